"""Writes the LZMA test data (tests/data/) with Python's lzma module (liblzma): a few inputs,
each compressed in the xz and alone formats with several presets, checks and LZMA properties.
Run from the repository root, after `node scripts/setup.mjs` (standard library only, but .venv
is the project's Python): .venv/bin/python kernels/lzma/tests/generate.py"""
import lzma
import random
from pathlib import Path

out = Path(__file__).parent / "data"
out.mkdir(exist_ok=True)
for old in out.iterdir():
    old.unlink()

rng = random.Random(7)
words = [bytes(rng.choice(b"abcdefghij klmnop") for _ in range(rng.randint(1, 9))) for _ in range(300)]
inputs = {
    "empty": b"",
    "one": b"x",
    "text": b" ".join(rng.choice(words) for _ in range(3000)),
    # incompressible: LZMA2 stores it in uncompressed chunks, between compressed ones
    "mixed": bytes(rng.getrandbits(8) for _ in range(3000)) + b"abc" * 3000,
    "runs": bytes([0] * 5000 + [1, 2] * 3000 + list(range(256)) * 40),
    # over 64 KiB compressed: several LZMA chunks, later ones without a state reset
    "letters": bytes(rng.choice(b"abcdefghijklmnop") for _ in range(140000)),
}
cases = []
for name, data in inputs.items():
    if name == "letters":
        # (its 140 kB are not stored: the test compares with lzma-rs)
        cases.append((f"{name}.p6.xz", lzma.compress(data)))
        continue
    (out / f"{name}.bin").write_bytes(data)
    for preset in (0, 6, 9 | lzma.PRESET_EXTREME):
        cases.append((f"{name}.p{preset & 15}.xz", lzma.compress(data, format=lzma.FORMAT_XZ, preset=preset)))
    for check, label in ((lzma.CHECK_NONE, "none"), (lzma.CHECK_CRC32, "crc32")):
        cases.append((f"{name}.{label}.xz", lzma.compress(data, format=lzma.FORMAT_XZ, check=check)))
    cases.append((f"{name}.alone.lzma", lzma.compress(data, format=lzma.FORMAT_ALONE)))
    props = [{"id": lzma.FILTER_LZMA2, "preset": 6, "lc": 0, "lp": 2, "pb": 4}]
    cases.append((f"{name}.lc0lp2pb4.xz", lzma.compress(data, format=lzma.FORMAT_XZ, filters=props)))
    props = [{"id": lzma.FILTER_LZMA1, "preset": 6, "lc": 1, "lp": 3, "pb": 1}]
    cases.append((f"{name}.lc1lp3pb1.lzma", lzma.compress(data, format=lzma.FORMAT_ALONE, filters=props)))
    # two streams with stream padding between them
    two = lzma.compress(data[: len(data) // 2]) + b"\0" * 8 + lzma.compress(data[len(data) // 2 :])
    cases.append((f"{name}.two.xz", two))
for file, data in cases:
    (out / file).write_bytes(data)
# Unsupported: the SHA-256 check and a filter chain (delta + LZMA2).
(out / "text.sha256.unsupported.xz").write_bytes(lzma.compress(inputs["text"], check=lzma.CHECK_SHA256))
chain = [{"id": lzma.FILTER_DELTA, "dist": 2}, {"id": lzma.FILTER_LZMA2}]
(out / "text.delta.unsupported.xz").write_bytes(lzma.compress(inputs["text"], filters=chain))
