"""Writes the Icechunk repository of bench/icechunk/icechunk.mjs with icechunk-python 2.3.0.

    .venv-icechunk/bin/python bench/icechunk/generate_icechunk.py [OUT_DIR]  # default: bench/data/icechunk

(from the repository root, in .venv-icechunk, which `node scripts/setup.mjs --python-icechunk`
creates with the pinned scripts/python-requirements-icechunk.txt; `npm run bench -- --only
icechunk` runs it when OUT_DIR/manifest.json is missing or this script or bench/lib/generate.py
changed.)

OUT_DIR/repo is a repository in spec version 2 (Icechunk 2.x, default configuration) whose
branch `main` holds, after one commit, the 4096x4096 uint16 image of bench/lib/generate.py
(image_u16: the values bench/viewer/viewer.mjs reads) twice:

  chunked  512² chunks, zstd level 3: 64 native chunks, one object each in chunks/
  sharded  2048² shards of 256² inner chunks, zstd level 3: 4 native chunks (the shards)

OUT_DIR/plain/<name> holds the same arrays as plain Zarr v3 (zarr-python LocalStore) and
OUT_DIR/plain/manifest.json lists them in the form examples/bench_decode.rs reads: the bench's
floors decode at the native speed of exactly these chunks.

OUT_DIR/manifest.json: the SHA-256 of this script and of bench/lib/generate.py, the versions, the
snapshot id of `main`, and per array its layout, stored bytes, the manifest file that holds its
chunk references, and each chunk's object (found by its bytes among chunks/: Icechunk names
objects by random ids) and size. bench/icechunk/icechunk.mjs computes its floors from these files only,
not from how a reader reads them.
"""

import hashlib
import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path

import icechunk
import numpy as np
import zarr
from zarr.codecs import ZstdCodec

HERE = Path(__file__).resolve().parent
IMAGE_GENERATOR = HERE.parent / "lib" / "generate.py"

assert icechunk.__version__ == "2.3.0", icechunk.__version__
assert zarr.__version__ == "3.4.2", zarr.__version__

# name → (description, create_array keyword arguments)
ARRAYS = {
    "chunked": ("chunked 512², zstd", dict(chunks=(512, 512), compressors=ZstdCodec(level=3))),
    "sharded": ("sharded 2048² / 256², zstd", dict(shards=(2048, 2048), chunks=(256, 256), compressors=ZstdCodec(level=3))),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def image_u16() -> np.ndarray:
    """bench/lib/generate.py's image (loaded from the file: it is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_generate", IMAGE_GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.image_u16()


def chunk_keys(arr) -> list:
    """The keys of every stored chunk (shards for a sharded array) of `arr`, in C order of its grid."""
    outer = arr.shards or arr.chunks
    grid = [-(-s // c) for s, c in zip(arr.shape, outer)]
    return [f"{arr.path}/c/{i}/{j}" for i in range(grid[0]) for j in range(grid[1])]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "data" / "icechunk"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    icechunk.set_logs_filter("error")  # the local filesystem storage warns about concurrent writers: one here
    data = image_u16()

    # The plain copies, for the native decode speeds.
    plain = []
    for name, (description, kwargs) in ARRAYS.items():
        arr = zarr.create_array(store=str(out / "plain" / name), shape=data.shape, dtype="uint16", fill_value=0, **kwargs)
        arr[...] = data
        plain.append({"name": name, "description": description})
    (out / "plain" / "manifest.json").write_text(json.dumps({"cases": plain}, indent=2) + "\n")

    repo_dir = out / "repo"
    repo = icechunk.Repository.create(icechunk.local_filesystem_storage(str(repo_dir)), spec_version=2)
    session = repo.writable_session("main")
    arrays = {}
    for name, (description, kwargs) in ARRAYS.items():
        arr = zarr.create_array(store=session.store, name=name, shape=data.shape, dtype="uint16", fill_value=0, **kwargs)
        arr[...] = data
        arrays[name] = (description, arr)
    snapshot = session.commit("the bench arrays")

    # Every chunk's object, by its bytes (chunk objects hold one chunk each, whole).
    objects = {}
    for p in (repo_dir / "chunks").iterdir():
        objects.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), []).append(f"chunks/{p.name}")
    readback = repo.readonly_session(branch="main").store
    proto = zarr.core.buffer.default_buffer_prototype()
    nodes = {n["path"]: n for n in repo.inspect_snapshot(snapshot)["nodes"]}
    manifests = {m.id: m for m in repo.list_manifest_files(snapshot)}
    entries = []
    for name, (description, arr) in arrays.items():
        chunks = {}
        for key in chunk_keys(arr):
            raw = zarr.core.sync.sync(readback.get(key, proto)).to_bytes()
            found = objects[hashlib.sha256(raw).hexdigest()]
            chunks[key[len(name) + 1 :]] = {"object": found[0], "bytes": len(raw)}
        refs = nodes[f"/{name}"]["manifest_refs"]
        assert len(refs) == 1, f"{name}: {len(refs)} manifests"
        manifest = manifests[refs[0]["id"]]
        stored = sum(c["bytes"] for c in chunks.values())
        entries.append(
            {
                "name": name,
                "description": description,
                "dtype": "uint16",
                "shape": list(arr.shape),
                "chunks": list(arr.chunks),
                "shards": list(arr.shards) if arr.shards else None,
                "decoded_bytes": int(data.nbytes),
                "stored_bytes": stored,
                "manifest": {"object": f"manifests/{manifest.id}", "bytes": (repo_dir / "manifests" / manifest.id).stat().st_size},
                "chunk_objects": chunks,
            }
        )
        print(f"generate: icechunk/{name:8s} {len(chunks)} objects, {stored / data.nbytes:6.1%} of {data.nbytes >> 20} MiB", flush=True)
    manifest = {
        "generator_sha256": sha256(Path(__file__)),
        "image_generator_sha256": sha256(IMAGE_GENERATOR),
        "icechunk": icechunk.__version__,
        "zarr": zarr.__version__,
        "spec_version": 2,
        "branch": "main",
        "snapshot": snapshot,
        "snapshot_object": {"object": f"snapshots/{snapshot}", "bytes": (repo_dir / "snapshots" / snapshot).stat().st_size},
        "repo_object": {"object": "repo", "bytes": (repo_dir / "repo").stat().st_size},
        "arrays": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"generate: an Icechunk repository of {len(entries)} arrays (snapshot {snapshot}) in {time.perf_counter() - t0:.1f}s → {out}")


if __name__ == "__main__":
    main()
