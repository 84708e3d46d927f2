"""Writes the benchmark arrays into bench/data/ (one Zarr array per case) with zarr-python 3.

    .venv/bin/python bench/lib/generate.py [OUT_DIR]  # default: bench/data next to this script

(from the repository root, after `node scripts/setup.mjs`, which creates .venv with the pinned
scripts/python-requirements.txt; `npm run bench` runs it so).

Every case holds the same 4096x4096 image-like values (a smooth gradient, a texture, a little
noise: compressors then behave as on real images), in 1024x1024 chunks (2 MiB of uint16), so
that per-codec throughputs are comparable. bench/data/manifest.json lists the cases and the
SHA-256 of this script, which scripts/bench.mjs compares to decide whether to regenerate.

Besides the decode cases (manifest "cases", bench/decode/decode.mjs):
- READ_CASES (manifest "read_cases"): arrays only bench/read/read.mjs reads over HTTP (it also
  reads decode cases: blosc zstd and lz4, gzip, zstd, sharded zstd, v2 blosc lz4).
- walk/plain and walk/consolidated (manifest "walk", bench/walk/walk.mjs): one v3 hierarchy of
  1001 nodes (groups with small arrays, attributes on every node, no chunks), without and
  with consolidated metadata.
- walk10k/consolidated (manifest "walk10k", bench/walk/walk.mjs): a v3 hierarchy of 10,000 nodes of
  the same kind, consolidated: only its root zarr.json is written (it holds every node).
- walk_v2/consolidated (manifest "walk_v2", bench/walk/walk.mjs): a Zarr v2 hierarchy of 1,990
  nodes of the same kind, consolidated: only its root .zmetadata is written.
- viewer/<case> (manifest "viewer_cases", bench/viewer/viewer.mjs): the arrays a viewer reads tile by
  tile, 4096x4096 uint16 in viewer-sized chunks (VIEWER_CASES): the image values sharded
  (2048² shards of 256² inner chunks) and chunked (512²), and uniform noise in 0..32767 (about
  30 MB stored: transfer is then a real term of a read). viewer/manifest.json lists them again
  as "cases", the form examples/bench_decode.rs reads, so that the viewer bench's floors use
  the native decode speed of exactly these arrays. (The OME-Zarr pyramid of the viewer bench
  is ome-zarr-py's: bench/viewer/generate_pyramid.py, in its own environment.)
"""

import hashlib
import json
import shutil
import sys
import time
import warnings
from pathlib import Path

import numcodecs
import numpy as np
import zarr
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec

SIZE = 4096
CHUNK = 1024


def image_u16() -> np.ndarray:
    """A deterministic 4096x4096 uint16 'image' with 12-bit values, as a microscope camera
    writes: smooth structures on a gradient, a fine texture, and a little sensor noise."""
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    gradient = 600.0 * (x + y) / (2 * SIZE)
    blobs = 900.0 * np.sin(x / 310.0) * np.cos(y / 270.0) + 400.0 * np.sin((x - y) / 530.0)
    texture = 60.0 * np.sin(x / 6.5) * np.sin(y / 9.0)
    noise = np.random.default_rng(42).normal(0.0, 3.0, size=(SIZE, SIZE)).astype(np.float32)
    values = 1500.0 + gradient + blobs + texture + noise
    return np.clip(np.rint(values), 0, 4095).astype(np.uint16)


def image_f32(u16: np.ndarray) -> np.ndarray:
    """float32 values of the same image, scaled to about [0, 1] (full mantissas, as measured data)."""
    return (u16.astype(np.float32) / np.float32(65535.0)).astype(np.float32)


def blosc(cname: str, shuffle: str) -> BloscCodec:
    return BloscCodec(cname=cname, clevel=5, shuffle=shuffle)


# name → (description, dtype, create_array keyword arguments)
CASES = {
    "v3_gzip": ("v3 gzip level 5", "uint16", dict(compressors=GzipCodec(level=5))),
    "v3_zstd": ("v3 zstd level 3", "uint16", dict(compressors=ZstdCodec(level=3))),
    "v3_blosc_lz4_shuffle": ("v3 blosc lz4 shuffle", "uint16", dict(compressors=blosc("lz4", "shuffle"))),
    "v3_blosc_zstd_shuffle": ("v3 blosc zstd shuffle", "uint16", dict(compressors=blosc("zstd", "shuffle"))),
    "v3_blosc_lz4_bitshuffle": (
        "v3 blosc lz4 bitshuffle",
        "uint16",
        dict(compressors=blosc("lz4", "bitshuffle")),
    ),
    "v2_lz4": ("v2 numcodecs lz4", "uint16", dict(zarr_format=2, compressors=numcodecs.LZ4(), filters=None)),
    "v2_zlib": ("v2 numcodecs zlib 5", "uint16", dict(zarr_format=2, compressors=numcodecs.Zlib(level=5), filters=None)),
    "v2_blosc_lz4_shuffle": (
        "v2 numcodecs blosc lz4 shuffle",
        "uint16",
        dict(zarr_format=2, compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE), filters=None),
    ),
    "v3_raw": ("v3 uncompressed bytes", "uint16", dict(compressors=None)),
    "v3_sharded_zstd": (
        "v3 sharded 2048² (512² inner, zstd)",
        "uint16",
        dict(shards=(2048, 2048), chunks=(512, 512), compressors=ZstdCodec(level=3)),
    ),
    "v3_f32_blosc_zstd": (
        "v3 float32 blosc zstd shuffle",
        "float32",
        dict(compressors=blosc("zstd", "shuffle")),
    ),
}


# Arrays only bench/read/read.mjs reads (not decode cases): name → (description, kwargs).
READ_CASES = {
    "v3_sharded_blosc_zstd": (
        "v3 sharded 2048² (512² inner, blosc zstd shuffle)",
        dict(shards=(2048, 2048), chunks=(512, 512), compressors=blosc("zstd", "shuffle")),
    ),
}

# The arrays of bench/viewer/viewer.mjs: name → (description, values, create_array keyword arguments);
# values "image" (image_u16) or "noise" (noise_u16).
VIEWER_CASES = {
    "sharded_zstd": (
        "sharded 2048² / 256², zstd",
        "image",
        dict(shards=(2048, 2048), chunks=(256, 256), compressors=ZstdCodec(level=3)),
    ),
    "chunked_zstd": ("chunked 512², zstd", "image", dict(chunks=(512, 512), compressors=ZstdCodec(level=3))),
    "chunked_blosc_zstd": (
        "chunked 512², blosc zstd shuffle",
        "image",
        dict(chunks=(512, 512), compressors=blosc("zstd", "shuffle")),
    ),
    "noise_chunked_zstd": ("noise, chunked 512², zstd", "noise", dict(chunks=(512, 512), compressors=ZstdCodec(level=3))),
    "noise_sharded_zstd": (
        "noise, sharded 2048² / 256², zstd",
        "noise",
        dict(shards=(2048, 2048), chunks=(256, 256), compressors=ZstdCodec(level=3)),
    ),
}


def noise_u16() -> np.ndarray:
    """Uniform noise in 0..32767 (15 random bits of 16): zstd keeps about 94% of its bytes."""
    return np.random.default_rng(7).integers(0, 32768, size=(SIZE, SIZE), dtype=np.uint16)


def viewer_arrays(out: Path, u16: np.ndarray) -> list:
    """Writes VIEWER_CASES under out (one array each) and out/manifest.json (examples/bench_decode.rs's
    form); returns the manifest entries."""
    noise = noise_u16()
    entries = []
    for name, (description, values, kwargs) in VIEWER_CASES.items():
        data = u16 if values == "image" else noise
        arr = zarr.create_array(store=str(out / name), shape=data.shape, dtype="uint16", fill_value=0, **kwargs)
        arr[...] = data
        stored = sum(p.stat().st_size for p in (out / name).rglob("*") if p.is_file())
        entries.append(
            {
                "name": name,
                "description": description,
                "values": values,
                "dtype": "uint16",
                "shape": list(data.shape),
                "chunks": list(arr.chunks),
                "shards": list(arr.shards) if arr.shards else None,
                "decoded_bytes": int(data.nbytes),
                "stored_bytes": stored,
            }
        )
        print(f"generate: viewer/{name:19s} {stored / data.nbytes:6.1%} of {data.nbytes >> 20} MiB", flush=True)
    (out / "manifest.json").write_text(json.dumps({"generator_sha256": script_sha256(), "cases": entries}, indent=2) + "\n")
    return entries


# The walk hierarchy: root → WALK_GROUPS groups, each with WALK_GROUP_ARRAYS 1-D arrays and
# WALK_SUBGROUPS subgroups of WALK_LEAF_ARRAYS 2-D arrays each: 1 + 8 × (1 + 4 + 8 × 15) = 1001.
WALK_GROUPS = 8
WALK_GROUP_ARRAYS = 4
WALK_SUBGROUPS = 8
WALK_LEAF_ARRAYS = 14


def add_walk_image(group, j: int) -> None:
    """The leaf array of both walk hierarchies: a 256² float32 image in zstd chunks."""
    group.create_array(
        f"image{j}",
        shape=(256, 256),
        chunks=(64, 64),
        dtype="float32",
        fill_value=0.0,
        compressors=ZstdCodec(level=3),
        dimension_names=["y", "x"],
        attributes={"units": "m", "index": j},
    )


def walk_hierarchy(out: Path) -> int:
    """Writes the walk hierarchy (metadata only) to out/plain and a consolidated copy to
    out/consolidated; returns its number of nodes."""
    plain = out / "plain"
    root = zarr.open_group(str(plain), mode="w", zarr_format=3, attributes={"title": "walk bench"})
    nodes = 1
    for i in range(WALK_GROUPS):
        g = root.create_group(f"group{i}", attributes={"index": i, "description": f"group number {i}"})
        nodes += 1
        for j in range(WALK_GROUP_ARRAYS):
            g.create_array(f"series{j}", shape=(1000,), chunks=(250,), dtype="int32", fill_value=0, attributes={"index": j})
            nodes += 1
        for k in range(WALK_SUBGROUPS):
            s = g.create_group(f"sub{k}", attributes={"index": k})
            nodes += 1
            for j in range(WALK_LEAF_ARRAYS):
                add_walk_image(s, j)
                nodes += 1
    shutil.copytree(plain, out / "consolidated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "consolidated metadata is not part of the v3 spec"
        zarr.consolidate_metadata(str(out / "consolidated"))
    return nodes


# The 10,000-node hierarchy: root → WALK10K_GROUPS groups → WALK10K_SUBGROUPS subgroups each →
# WALK10K_ARRAYS arrays each: 1 + 9 × (1 + 10 × (1 + 110)) = 10,000 nodes.
WALK10K_GROUPS = 9
WALK10K_SUBGROUPS = 10
WALK10K_ARRAYS = 110


def walk10k_hierarchy(out: Path) -> int:
    """Builds the 10,000-node hierarchy in memory, consolidates it with zarr-python and writes
    the root zarr.json (with every node's metadata inline) to out/consolidated; returns the
    number of nodes."""
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync
    from zarr.storage import MemoryStore

    store = MemoryStore()
    root = zarr.open_group(store=store, mode="w", zarr_format=3, attributes={"title": "walk bench, 10k"})
    nodes = 1
    for i in range(WALK10K_GROUPS):
        g = root.create_group(f"group{i}", attributes={"index": i})
        nodes += 1
        for k in range(WALK10K_SUBGROUPS):
            s = g.create_group(f"sub{k}", attributes={"index": k})
            nodes += 1
            for j in range(WALK10K_ARRAYS):
                add_walk_image(s, j)
                nodes += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(store)
    doc = sync(store.get("zarr.json", prototype=default_buffer_prototype()))
    (out / "consolidated").mkdir(parents=True)
    (out / "consolidated" / "zarr.json").write_bytes(doc.to_bytes())
    return nodes


# The v2 hierarchy: root → WALK_V2_GROUPS groups → WALK_V2_SUBGROUPS subgroups each →
# WALK_V2_ARRAYS arrays each: 1 + 9 × (1 + 10 × (1 + 21)) = 1,990 nodes.
WALK_V2_GROUPS = 9
WALK_V2_SUBGROUPS = 10
WALK_V2_ARRAYS = 21


def walk_v2_hierarchy(out: Path) -> int:
    """Builds a Zarr v2 hierarchy in memory (arrays like add_walk_image's, numcodecs Zstd),
    consolidates it with zarr-python and writes its root .zmetadata (every node's .zarray,
    .zgroup and .zattrs) to out/consolidated; returns the number of nodes."""
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync
    from zarr.storage import MemoryStore

    store = MemoryStore()
    root = zarr.open_group(store=store, mode="w", zarr_format=2, attributes={"title": "walk bench, v2"})
    nodes = 1
    for i in range(WALK_V2_GROUPS):
        g = root.create_group(f"group{i}", attributes={"index": i})
        nodes += 1
        for k in range(WALK_V2_SUBGROUPS):
            s = g.create_group(f"sub{k}", attributes={"index": k})
            nodes += 1
            for j in range(WALK_V2_ARRAYS):
                s.create_array(
                    f"image{j}",
                    shape=(256, 256),
                    chunks=(64, 64),
                    dtype="float32",
                    fill_value=0.0,
                    compressors=numcodecs.Zstd(level=3),
                    attributes={"units": "m", "index": j, "_ARRAY_DIMENSIONS": ["y", "x"]},
                )
                nodes += 1
    zarr.consolidate_metadata(store)
    doc = sync(store.get(".zmetadata", prototype=default_buffer_prototype()))
    (out / "consolidated").mkdir(parents=True)
    (out / "consolidated" / ".zmetadata").write_bytes(doc.to_bytes())
    return nodes


def script_sha256() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "data"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    u16 = image_u16()
    f32 = image_f32(u16)
    manifest = {
        "generator_sha256": script_sha256(),
        "zarr": zarr.__version__,
        "numcodecs": numcodecs.__version__,
        "cases": [],
    }
    for name, (description, dtype, kwargs) in CASES.items():
        data = u16 if dtype == "uint16" else f32
        kwargs = {"chunks": (CHUNK, CHUNK), **kwargs}
        arr = zarr.create_array(
            store=str(out / name), shape=data.shape, dtype=dtype, fill_value=0, **kwargs
        )
        arr[...] = data
        stored = sum(p.stat().st_size for p in (out / name).rglob("*") if p.is_file())
        manifest["cases"].append(
            {
                "name": name,
                "description": description,
                "zarr_format": arr.metadata.zarr_format,
                "dtype": dtype,
                "shape": list(data.shape),
                "decoded_bytes": int(data.nbytes),
                "stored_bytes": stored,
            }
        )
        print(f"generate: {name:26s} {stored / data.nbytes:6.1%} of {data.nbytes >> 20} MiB", flush=True)
    manifest["read_cases"] = []
    for name, (description, kwargs) in READ_CASES.items():
        arr = zarr.create_array(store=str(out / name), shape=u16.shape, dtype="uint16", fill_value=0, **kwargs)
        arr[...] = u16
        stored = sum(p.stat().st_size for p in (out / name).rglob("*") if p.is_file())
        manifest["read_cases"].append(
            {"name": name, "description": description, "dtype": "uint16", "shape": list(u16.shape), "stored_bytes": stored}
        )
        print(f"generate: {name:26s} {stored / u16.nbytes:6.1%} of {u16.nbytes >> 20} MiB", flush=True)
    manifest["viewer_cases"] = viewer_arrays(out / "viewer", u16)
    t1 = time.perf_counter()
    nodes = walk_hierarchy(out / "walk")
    manifest["walk"] = {"nodes": nodes, "plain": "walk/plain", "consolidated": "walk/consolidated"}
    print(f"generate: walk hierarchy of {nodes} nodes in {time.perf_counter() - t1:.1f}s", flush=True)
    t1 = time.perf_counter()
    nodes = walk10k_hierarchy(out / "walk10k")
    manifest["walk10k"] = {"nodes": nodes, "consolidated": "walk10k/consolidated"}
    print(f"generate: walk10k hierarchy of {nodes} nodes in {time.perf_counter() - t1:.1f}s", flush=True)
    t1 = time.perf_counter()
    nodes = walk_v2_hierarchy(out / "walk_v2")
    manifest["walk_v2"] = {"nodes": nodes, "consolidated": "walk_v2/consolidated"}
    print(f"generate: walk_v2 hierarchy of {nodes} nodes in {time.perf_counter() - t1:.1f}s", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"generate: {len(CASES) + len(READ_CASES) + len(VIEWER_CASES)} arrays and a hierarchy in {time.perf_counter() - t0:.1f}s → {out}")


if __name__ == "__main__":
    main()
