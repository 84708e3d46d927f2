"""Writes the data of bench/first/first.mjs (first impressions) with zarr-python 3.

    .venv/bin/python bench/first/generate_first.py [OUT_DIR]  # default: bench/data/first

(bench/first/first.mjs runs it, with $ZOM_PYTHON or .venv/bin/python, when OUT_DIR/manifest.json is
missing or names another SHA-256 of this script.)

- OUT_DIR/app: a 512x512 uint16 array, Zarr v3, 256x256 chunks (4 chunks), zstd level 3: what
  the "app" page opens and reads whole.
- OUT_DIR/tile: a small first tile, as a viewer's first read usually is: a 512x512 uint16
  array of smooth structures on a gradient in bands (no texture, no noise), one chunk, zstd
  level 3, about 8 KB stored: what the "tile" page opens and reads whole.
- OUT_DIR/pyramid: an OME-Zarr 0.5 image laid out as ome-zarr-py 0.18 writes the viewer bench's
  (bench/viewer/generate_pyramid.py): axes c, y, x, 4 levels "0".."3" (4096², 2048², 1024², 512², each
  the 2x2 mean of the one above), inner chunks 1x256², shards 1x1024² (the whole level when it
  is smaller), zstd level 3, dimension_names, not consolidated. The metadata is written here
  (the `ome` attributes of the spec) rather than by ome-zarr-py, so that .venv suffices.

OUT_DIR/manifest.json holds the SHA-256 of this script and what the pages check their reads
against, in bench/lib/tiles.js's checksum form ("length:sum:weighted", weighted = sum of
value * (flat index mod 251), C order): the app and tile arrays', and each 256² tile's of the pyramid's
lowest level; and the pyramid's levels.
"""

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import ZstdCodec

HERE = Path(__file__).parent
APP_SIZE = 512
APP_CHUNK = 256
PYRAMID_SIZE = 4096
LEVELS = 4
TILE = 256
SHARD = 1024


def image(size: int, seed: int) -> np.ndarray:
    """A deterministic image with 12-bit values: smooth structures on a gradient, a texture, noise."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    gradient = 600.0 * (x + y) / (2 * size)
    blobs = 900.0 * np.sin(x / (size / 13.2)) * np.cos(y / (size / 15.2)) + 400.0 * np.sin((x - y) / (size / 7.7))
    texture = 60.0 * np.sin(x / 6.5) * np.sin(y / 9.0)
    noise = np.random.default_rng(seed).normal(0.0, 3.0, size=(size, size)).astype(np.float32)
    return np.clip(np.rint(1500.0 + gradient + blobs + texture + noise), 0, 4095).astype(np.uint16)


def checksum(values: np.ndarray) -> str:
    flat = values.reshape(-1).astype(np.int64)
    weights = np.arange(flat.size, dtype=np.int64) % 251
    return f"{flat.size}:{int(flat.sum())}:{int((flat * weights).sum())}"


def write_app(out: Path) -> dict:
    values = image(APP_SIZE, seed=7)
    arr = zarr.create_array(
        store=str(out), shape=values.shape, dtype="uint16", chunks=(APP_CHUNK, APP_CHUNK), compressors=ZstdCodec(level=3), fill_value=0
    )
    arr[...] = values
    return {
        "path": "app",
        "shape": list(values.shape),
        "chunks": [APP_CHUNK, APP_CHUNK],
        "sum": int(values.astype(np.int64).sum()),
        "checksum": checksum(values),
        "stored_bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
    }


def write_tile(out: Path) -> dict:
    y, x = np.mgrid[0:APP_SIZE, 0:APP_SIZE].astype(np.float32)
    smooth = 1500.0 + 600.0 * (x + y) / (2 * APP_SIZE) + 900.0 * np.sin(x / 80.0) * np.cos(y / 70.0)
    # Quantised into bands 256 levels apart (a label-like or sparse image), so that the chunk
    # compresses to about 8 KB.
    values = np.clip(np.rint(smooth / 256.0) * 256.0, 0, 4095).astype(np.uint16)
    arr = zarr.create_array(store=str(out), shape=values.shape, dtype="uint16", chunks=values.shape, compressors=ZstdCodec(level=3), fill_value=0)
    arr[...] = values
    return {
        "path": "tile",
        "shape": list(values.shape),
        "chunks": list(values.shape),
        "checksum": checksum(values),
        "stored_bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
    }


def write_pyramid(out: Path) -> dict:
    level = image(PYRAMID_SIZE, seed=42)
    group = zarr.open_group(str(out), mode="w", zarr_format=3)
    datasets, levels = [], []
    for k in range(LEVELS):
        if k:
            level = np.rint(level.reshape(level.shape[0] // 2, 2, level.shape[1] // 2, 2).mean(axis=(1, 3))).astype(np.uint16)
        n = level.shape[0]
        shard = min(SHARD, n)
        arr = group.create_array(
            str(k),
            shape=(1, n, n),
            dtype="uint16",
            chunks=(1, TILE, TILE),
            shards=(1, shard, shard),
            compressors=ZstdCodec(level=3),
            fill_value=0,
            dimension_names=["c", "y", "x"],
        )
        arr[...] = level[np.newaxis]
        datasets.append({"path": str(k), "coordinateTransformations": [{"type": "scale", "scale": [1.0, 2.0**k, 2.0**k]}]})
        levels.append({"path": str(k), "shape": [1, n, n], "chunks": [1, TILE, TILE], "shards": [1, shard, shard]})
    axes = [
        {"name": "c", "type": "channel"},
        {"name": "y", "type": "space", "unit": "micrometer"},
        {"name": "x", "type": "space", "unit": "micrometer"},
    ]
    group.attrs["ome"] = {"version": "0.5", "multiscales": [{"name": "image", "axes": axes, "datasets": datasets}]}
    # The tiles of the lowest level, 256² each, in C order of their coordinates.
    tiles = {}
    for i in range(level.shape[0] // TILE):
        for j in range(level.shape[1] // TILE):
            tiles[f"0,{i},{j}"] = checksum(level[i * TILE : (i + 1) * TILE, j * TILE : (j + 1) * TILE])
    return {"path": "pyramid", "levels": levels, "lowest_tiles": tiles}


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "data" / "first"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    manifest = {
        "generator_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "zarr": zarr.__version__,
        "app": write_app(out / "app"),
        "tile": write_tile(out / "tile"),
        "pyramid": write_pyramid(out / "pyramid"),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"generate_first: app, tile and pyramid in {time.perf_counter() - t0:.1f}s → {out}")


if __name__ == "__main__":
    main()
