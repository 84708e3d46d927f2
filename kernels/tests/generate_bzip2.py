"""Writes the bzip2 test data (tests/bzip2/) with Python's bz2 module (libbzip2): a few inputs
at several block sizes, and concatenated streams. Run from the repository root, after
`node scripts/setup.mjs` (standard library only, but .venv is the project's Python):
.venv/bin/python kernels/tests/generate_bzip2.py"""
import bz2
import random
from pathlib import Path

out = Path(__file__).parent / "bzip2"
out.mkdir(exist_ok=True)
for old in out.iterdir():
    old.unlink()

rng = random.Random(11)
words = [bytes(rng.choice(b"abcdefgh ijk") for _ in range(rng.randint(1, 8))) for _ in range(200)]
inputs = {
    "empty": b"",
    "one": b"q",
    "text": b" ".join(rng.choice(words) for _ in range(4000)),
    # runs longer than 4 + 255 (the initial run-length coding), and every byte value
    "runs": b"a" * 1000 + b"b" * 4 + b"c" * 5 + b"d" * 259 + b"e" * 260 + bytes(range(256)) * 8,
    "random": bytes(rng.getrandbits(8) for _ in range(5000)),
    # more than one 100 kB block at level 1
    "blocks": b" ".join(rng.choice(words) for _ in range(30000))[:120000],
}
for name, data in inputs.items():
    if name != "blocks":
        (out / f"{name}.bin").write_bytes(data)
    levels = (1,) if name == "blocks" else (1, 9)
    for level in levels:
        (out / f"{name}.{level}.bz2").write_bytes(bz2.compress(data, level))
    if name != "blocks":
        half = len(data) // 2
        (out / f"{name}.two.bz2").write_bytes(bz2.compress(data[:half]) + bz2.compress(data[half:]))
