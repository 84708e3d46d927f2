#!/usr/bin/env python3
"""Builds the seed corpora of the zom fuzz targets from tests/fixtures.

Usage: .venv/bin/python fuzz/seed.py [target...]  (writes fuzz/corpus/<target>/, replacing seeds
       only; from the repository root, after `node scripts/setup.mjs`, which creates .venv with
       the pinned scripts/python-requirements.txt; fuzz/run.sh uses that Python too)

Each seed is laid out as the target's harness reads it (fuzz/src/<target>.rs):
- metadata_document: flag byte (document kind) + a metadata document of the fixtures;
- zom_roundtrip: ZOM JSON of the fixture hierarchies, whole and node by node, and flat forms;
- codec_decode: selector, data type, rank, 16-bit dims, 4 config bytes + an encoded stream
  (tests/fixtures/codec/cases.json and the fixtures' chunk files);
- shard_index: header + a shard written by zarr-python for the harness' configuration;
- selection_plan: a few hand-picked selections (negative steps, edges, huge shapes);
- array_read: flag, the array's metadata document and its first chunks;
- hierarchy_spec: flag, a built-in spec (src/spec/builtin), 0xFF, the raw ZOM of a convention
  fixture (tests/fixtures/conventions, valid and mutated);
- zip_archive: flag + a zipped sample hierarchy (tests/fixtures/zip: stored, Zip64, deflated
  in a subfolder), and small zips of a few members written here with zipfile.
- icechunk_files: flag + an Icechunk metadata file of tests/fixtures/icechunk (repo info,
  snapshots, manifests) whole, and its decompressed flatbuffers payload (numcodecs' zstd);
  each repository's configuration: config.yaml, and the repo info's `config` (FlexBuffers).

zarr-python (3.1.6) writes the shards; everything else is read from the fixture files.
"""

import base64
import hashlib
import json
import math
import random
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = Path(__file__).resolve().parent / "corpus"
HIERARCHIES = ["v2", "v3", "v2-consolidated", "v3-consolidated", "sample"]
KINDS = ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"]

# Keep in step with CODECS / V2_DTYPES / V3_DTYPES in fuzz/src/codec_decode.rs.
CODECS = [
    "v2 blosc", "v2 blosc snappy", "v2 gzip", "v2 zlib", "v2 zstd", "v2 lz4", "v2 bz2",
    "v2 lzma", "v2 delta", "v2 fixedscaleoffset", "v2 shuffle", "v2 packbits",
    "v2 vlen-utf8", "v2 vlen-bytes", "v2 vlen-array", "v2 crc32", "v2 adler32",
    "v2 fletcher32", "v2 categorize", "v2 astype", "v2 quantize", "v2 order F zlib",
    "v2 bitround", "v3 crc32c", "v3 transpose", "v3 bytes", "v3 packbits", "v3 vlen-utf8",
    "v3 vlen-bytes", "v3 gzip", "v3 zstd", "v3 blosc", "v3 numcodecs delta zlib",
    "v3 numcodecs shuffle lz4", "v3 numcodecs pcodec",
]
SIZE_TO_V2 = {1: 0, 2: 2, 3: 19, 4: 7, 8: 12}


def write(target, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def u16(n):
    return struct.pack("<H", n)


def hierarchy_files(name):
    base = FIXTURES / name
    for path in sorted(base.rglob("*")):
        if path.is_file():
            yield path.relative_to(base).as_posix(), path


def metadata_document():
    for name in HIERARCHIES:
        for key, path in hierarchy_files(name):
            kind = key.rsplit("/", 1)[-1]
            if kind in KINDS:
                nested = 0x08 if "/" in key else 0
                write("metadata_document", bytes([KINDS.index(kind) | nested]) + path.read_bytes())


def zom_nodes(node):
    yield node
    for child in (node.get("members") or {}).values():
        yield from zom_nodes(child)


def zom_roundtrip():
    for name in ["v2", "v3", "v2-consolidated", "v3-consolidated"]:
        zom = json.loads((FIXTURES / "expected" / f"{name}.zom.json").read_text())
        write("zom_roundtrip", json.dumps(zom).encode())
        for node in zom_nodes(zom):
            write("zom_roundtrip", json.dumps(node).encode())
    for name in ["v2", "v3"]:
        flat = json.loads((FIXTURES / "expected" / f"{name}.flat.json").read_text())
        for node in flat.values() if isinstance(flat, dict) else []:
            write("zom_roundtrip", json.dumps(node).encode())


def codec_seed(selector, dtype, shape, params, encoded):
    head = bytes([CODECS.index(selector), dtype, len(shape)])
    head += b"".join(u16(d) for d in shape) + bytes(params)
    return head + encoded


def codec_decode():
    cases = json.loads((FIXTURES / "codec" / "cases.json").read_text())
    for s in cases["streams"]:
        cid, config = s["id"], s["config"]
        encoded = base64.b64decode(s["encoded"])
        dtype = SIZE_TO_V2.get(s["typesize"], 0)
        shape = [s["count"] % 4097]
        p = [0, 0, 0, 0]
        if cid == "blosc":
            selectors = ["v2 blosc", "v2 blosc snappy"]
        elif cid == "lzma":
            selectors, p[1] = ["v2 lzma"], config.get("format", 1)
        elif cid in ("crc32", "adler32", "fletcher32"):
            selectors, p[1] = [f"v2 {cid}"], 1 if config.get("location") == "end" else 0
        elif cid == "crc32c":
            selectors = ["v3 crc32c"]
        elif cid == "shuffle":
            selectors, p[1] = ["v2 shuffle"], config.get("elementsize", 4)
        else:
            selectors = [f"v2 {cid}"]
        for sel in selectors:
            write("codec_decode", codec_seed(sel, dtype, shape, p, encoded))
    # Chunk files of the v2 fixtures, by compressor / filter.
    for name in ["v2"]:
        for key, path in hierarchy_files(name):
            if not key.endswith(".zarray"):
                continue
            meta = json.loads(path.read_text())
            comp = (meta.get("compressor") or {}).get("id")
            filters = [f["id"] for f in meta.get("filters") or []]
            ids = filters + ([comp] if comp else [])
            sel = next((f"v2 {i}" for i in ids if f"v2 {i}" in CODECS), None)
            if sel is None:
                continue
            folder = path.parent
            chunk = next((p for p in sorted(folder.iterdir()) if not p.name.startswith(".")), None)
            if chunk is None or not chunk.is_file():
                continue
            shape = meta["chunks"] if len(meta["chunks"]) <= 3 else [0]
            write("codec_decode", codec_seed(sel, 0, [d % 65536 for d in shape], [1, 2, 3, 4],
                                             chunk.read_bytes()))


def shard_index():
    import numpy as np
    import zarr
    from zarr.storage import MemoryStore

    rng = random.Random(7)
    for trial in range(24):
        rank = 1 + trial % 3
        per = [1 + rng.randrange(3) for _ in range(rank)]
        inner = [1 + rng.randrange(3) for _ in range(rank)]
        at_start = trial % 2 == 1
        crc = trial % 4 < 2
        kind = trial % 3  # int32, uint8, string (flags >> 4)
        codec_kind = (trial // 3) % 3  # bytes, bytes+gzip, bytes+crc32c
        shard = [p * i for p, i in zip(per, inner)]
        dtype = {0: "int32", 1: "uint8", 2: str}[kind]
        fill = {0: -1, 1: 7, 2: "f"}[kind]
        index_codecs = [zarr.codecs.BytesCodec()] + ([zarr.codecs.Crc32cCodec()] if crc else [])
        if kind == 2:
            serializer, compressors = zarr.codecs.VLenUTF8Codec(), None
        else:
            serializer = zarr.codecs.BytesCodec()
            compressors = [None, [zarr.codecs.GzipCodec(level=1)], [zarr.codecs.Crc32cCodec()]][codec_kind]
        store = MemoryStore()
        sharding = zarr.codecs.ShardingCodec(
            chunk_shape=inner,
            codecs=[serializer] + (compressors or []),
            index_codecs=index_codecs,
            index_location="start" if at_start else "end",
        )
        arr = zarr.create_array(store, shape=shard, chunks=shard, dtype=dtype, fill_value=fill,
                                serializer=sharding, compressors=None, filters=None)
        n = math.prod(shard)
        if kind == 2:
            values = np.array([f"s{i}" * (i % 3) for i in range(n)], dtype=object).reshape(shard)
        else:
            values = (np.arange(n) % 100).astype(dtype).reshape(shard)
        if trial % 5 == 4:
            values.flat[0] = fill  # an empty inner chunk, sometimes
        arr[...] = values
        key = "c/" + "/".join("0" * rank)
        data = store._store_dict[key].to_bytes()
        flags = (1 if at_start else 0) | (2 if crc else 0) | (codec_kind << 2) | (kind << 4)
        head = bytes([rank - 1])
        for p, i in zip(per, inner):
            head += bytes([p - 1, i - 1])
        head += bytes([flags]) + u16(trial * 3)
        wanted = [[rng.randrange(p) for p in per] for _ in range(1 + trial % 5)]
        head += bytes([len(wanted)]) + b"".join(bytes(w) for w in wanted)
        write("shard_index", head + data)
    # The fixtures' own shards (zstd inner codecs: index parsing and planning only).
    for name in ["shard_index_end", "shard_index_start", "shard_nested", "shard_string"]:
        for key, path in hierarchy_files(f"v3/{name}"):
            if key.startswith("c/"):
                flags = 3 if name == "shard_index_start" else 2
                head = bytes([1, 1, 3, 1, 3, flags, 0, 0, 2, 0, 0, 1, 1])
                write("shard_index", head + path.read_bytes())


def sel_entry(kind, *args):
    """One selection entry in the harness' layout (fuzz/src/selection_plan.rs)."""
    if kind == "all":
        return bytes([0])
    if kind == "index":
        return bytes([1]) + small_i64(args[0])
    start, stop, step = args
    flags = (1 if start is not None else 0) | (2 if stop is not None else 0) | (4 if step is not None else 0)
    out = bytes([2, flags])
    for v in (start, stop, step):
        if v is not None:
            out += small_i64(v)
    return out


def small_i64(v):
    if -24 < v < 24:
        return bytes([0, v & 0xFF])
    return bytes([200]) + struct.pack("<h", v)


def dim(n):
    if n < 16:
        return bytes([0, n])
    return bytes([200]) + u16(n)


def selection_plan():
    cases = [
        ([10], [3], [2], [sel_entry("slice", None, None, -1)]),
        ([10], [3], [2], [sel_entry("slice", 8, 1, -3)]),
        ([7, 9], [2, 4], [1, 3], [sel_entry("slice", -1, None, -2), sel_entry("index", -1)]),
        ([5, 6, 7], [2, 3, 4], [1, 2, 2], [sel_entry("all"), sel_entry("slice", 1, 5, 2)]),
        ([12, 12], [5, 5], [2, 2], [sel_entry("slice", 11, 0, -5), sel_entry("slice", 0, 12, 7)]),
        ([0, 4], [1, 2], [1, 1], []),
        ([300], [64], [4], [sel_entry("slice", -200, 299, 3)]),
        ([], [], [], []),
        ([4, 4, 4, 4], [3, 3, 3, 3], [2, 2, 2, 2], [sel_entry("slice", None, None, -1)] * 4),
    ]
    for shape, chunks, inner, entries in cases:
        data = bytes([len(shape)]) + b"".join(dim(d) for d in shape) + b"".join(dim(c) for c in chunks)
        data += bytes(i - 1 for i in inner) + bytes([len(entries)]) + b"".join(entries)
        write("selection_plan", data)


def chunk_key(meta, coords, v3):
    if v3:
        enc = meta.get("chunk_key_encoding", {"name": "default"})
        sep = (enc.get("configuration") or {}).get("separator", "/" if enc["name"] == "default" else ".")
        if enc["name"] == "default":
            return "/".join(["c"] + [str(c) for c in coords])
        return sep.join(str(c) for c in coords) if coords else "0"
    sep = meta.get("dimension_separator", ".")
    return sep.join(str(c) for c in coords) if coords else "0"


def array_seed(meta_bytes, v3, chunks, selection=b""):
    data = bytes([0 if v3 else 1]) + u16(len(meta_bytes)) + meta_bytes
    chunks = [c for c in chunks if len(c) < 65536][:4]
    data += bytes([len(chunks)]) + b"".join(u16(len(c)) + c for c in chunks)
    return data + selection


def array_read():
    for name in ["v2", "v3", "sample"]:
        for key, path in hierarchy_files(name):
            kind = key.rsplit("/", 1)[-1]
            if kind not in ("zarr.json", ".zarray"):
                continue
            meta = json.loads(path.read_text())
            v3 = kind == "zarr.json"
            if v3 and meta.get("node_type") != "array":
                continue
            if v3:
                grid_chunks = meta["chunk_grid"]["configuration"]["chunk_shape"]
            else:
                grid_chunks = meta["chunks"]
            grid = [math.ceil(s / c) if c else 0 for s, c in zip(meta["shape"], grid_chunks)]
            chunks = []
            for linear in range(min(4, math.prod(grid))):
                coords, rem = [], linear
                for g in reversed(grid):
                    coords.insert(0, rem % g)
                    rem //= g
                file = path.parent / chunk_key(meta, coords, v3)
                chunks.append(file.read_bytes() if file.is_file() else b"")
            if len(path.read_bytes()) < 65536:
                write("array_read", array_seed(path.read_bytes(), v3, chunks))
                write("array_read", array_seed(path.read_bytes(), v3, chunks, bytes([1, 2, 255, 0x80, 255])))
    cases = json.loads((FIXTURES / "codec" / "cases.json").read_text())
    for a in cases["arrays"]:
        v3 = a["zarr_format"] == 3
        meta = json.dumps(a["metadata"]).encode()
        by_coords = sorted(a["chunks"].values(), key=lambda c: c["coords"])
        chunks = [base64.b64decode(c["encoded"]) for c in by_coords]
        write("array_read", array_seed(meta, v3, chunks))


def raw_zom(folder):
    """The ZOM of a fixture folder nested from its documents as they are (as tests/specs.rs)."""
    root = {}
    docs = sorted(
        (p for p in folder.rglob("*") if p.name in ("zarr.json", ".zarray", ".zgroup", ".zattrs")),
        key=lambda p: len(p.relative_to(folder).parts),
    )

    def slot(parts):
        at = root
        for name in parts:
            at = at.setdefault("members", {}).setdefault(name, {})
        return at

    for p in docs:
        node = slot(p.parent.relative_to(folder).parts)
        doc = json.loads(p.read_text())
        if p.name == ".zattrs":
            node["attributes"] = doc
            continue
        doc.pop("consolidated_metadata", None)
        node.update(doc)
        if p.name == ".zgroup" or doc.get("node_type") == "group":
            node.setdefault("members", {})
        if p.name != "zarr.json":
            node.setdefault("attributes", {})
    return root


def hierarchy_spec():
    builtin = ROOT / "src" / "spec" / "builtin"
    specs = {p.stem: p.read_bytes() for p in sorted(builtin.glob("*.json"))}
    cases = json.loads((FIXTURES / "conventions" / "cases.json").read_text())
    for i, case in enumerate(cases):
        zom = json.dumps(raw_zom(FIXTURES / "conventions" / case["dir"])).encode()
        name = "xarray" if case["convention"] == "xarray" else f"ome-zarr-{case['ome_version']}"
        write("hierarchy_spec", bytes([i % 8]) + specs[name] + b"\xff" + zom)


def zip_archive():
    import io
    import zipfile

    for i, path in enumerate(sorted((FIXTURES / "zip").glob("*.zip"))):
        for flag in (0, 1):
            write("zip_archive", bytes([flag]) + path.read_bytes())
    # Small archives, so that mutations reach the records rather than the data.
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=method) as zf:
            zf.writestr("zarr.json", (FIXTURES / "v3" / "zarr.json").read_bytes()[:200])
            zf.writestr("a/c/0", bytes(range(40)))
            zf.writestr("a/", b"")
        write("zip_archive", bytes([method & 1]) + buf.getvalue())


def repo_config(payload):
    """The `config` field (slot 9) of a repo info flatbuffers payload, or None."""
    u32 = lambda at: struct.unpack_from("<I", payload, at)[0]
    table = u32(0)
    vtable = table - struct.unpack_from("<i", payload, table)[0]
    vsize = struct.unpack_from("<H", payload, vtable)[0]
    slot = 4 + 2 * 9
    if slot + 2 > vsize:
        return None
    field = struct.unpack_from("<H", payload, vtable + slot)[0]
    if field == 0:
        return None
    vector = table + field + u32(table + field)
    return payload[vector + 4 : vector + 4 + u32(vector)]


def icechunk_files():
    from numcodecs import Zstd

    kinds = {"repo": 0, "snapshots": 1, "manifests": 2}
    header_len = 39
    for repo in ("v2", "v1", "containers/v2", "containers/v1"):
        folder = FIXTURES / "icechunk" / repo
        yaml = folder / "config.yaml"
        if yaml.exists():
            write("icechunk_files", bytes([9]) + yaml.read_bytes())
        if (folder / "repo").exists():
            config = repo_config(bytes(Zstd().decode((folder / "repo").read_bytes()[header_len:])))
            if config:
                write("icechunk_files", bytes([8]) + config)
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            kind = kinds.get(path.relative_to(folder).parts[0])
            if kind is None:
                continue
            data = path.read_bytes()
            write("icechunk_files", bytes([4 | kind]) + data)
            write("icechunk_files", bytes([7]) + data)
            write("icechunk_files", bytes([kind]) + bytes(Zstd().decode(data[header_len:])))


def main():
    targets = {
        "metadata_document": metadata_document,
        "zom_roundtrip": zom_roundtrip,
        "codec_decode": codec_decode,
        "shard_index": shard_index,
        "selection_plan": selection_plan,
        "array_read": array_read,
        "hierarchy_spec": hierarchy_spec,
        "zip_archive": zip_archive,
        "icechunk_files": icechunk_files,
    }
    chosen = sys.argv[1:] or list(targets)
    for name in chosen:
        folder = CORPUS / name
        if folder.exists():
            for old in folder.glob("seed-*"):
                old.unlink()
        targets[name]()
        print(f"{name}: {len(list(folder.glob('seed-*')))} seeds")


if __name__ == "__main__":
    main()
