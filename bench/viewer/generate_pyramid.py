"""Writes the OME-Zarr pyramid of bench/viewer/viewer.mjs (time to first tile) with ome-zarr-py.

    .venv-conventions/bin/python bench/viewer/generate_pyramid.py [OUT_DIR]  # default: bench/data/viewer_pyramid

(from the repository root, after `node scripts/setup.mjs --python-conventions`, which creates
.venv-conventions with the pinned ome-zarr-py 0.18 of scripts/python-requirements-conventions.txt;
`npm run bench -- --only viewer` runs it so, after bench/lib/generate.py, which clears bench/data).

The image: bench/lib/generate.py's 4096x4096 uint16 values as one channel (axes c, y, x), written
by `ome_zarr.writer.write_image` as OME-Zarr 0.5 (Zarr v3) with 4 levels (scale factors 2, 4,
8: 4096², 2048², 1024², 512²), inner chunks 1 x 256², shards 1 x 1024² (ome-zarr-py 0.18 takes
`shards` in `storage_options`), zstd level 3:

- OUT_DIR/plain: as the writer leaves it (it does not consolidate metadata);
- OUT_DIR/consolidated: a copy consolidated by zarr-python (`zarr.consolidate_metadata`: the
  group's zarr.json then holds every level's metadata), since ome-zarr-py makes no consolidated
  copy itself and viewers meet both.

OUT_DIR/manifest.json records the SHA-256 of this script and of bench/lib/generate.py (whose
image_u16 it uses), which scripts/bench.mjs compares to decide whether to regenerate, and the
levels (path, shape, chunks, shards, stored bytes).
"""

import hashlib
import json
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import ome_zarr
import zarr
from ome_zarr.format import FormatV05
from ome_zarr.writer import write_image
from zarr.codecs import ZstdCodec

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "lib"))
from generate import image_u16  # noqa: E402  (the same values as the other bench arrays)

SCALE_FACTORS = (2, 4, 8)
CHUNKS = (1, 256, 256)
SHARDS = (1, 1024, 1024)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "data" / "viewer_pyramid"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    image = image_u16()[np.newaxis]
    plain = out / "plain"
    group = zarr.open_group(str(plain), mode="w", zarr_format=3)
    write_image(
        image,
        group,
        scale_factors=SCALE_FACTORS,
        axes="cyx",
        fmt=FormatV05(),
        storage_options=dict(chunks=CHUNKS, shards=SHARDS, compressors=[ZstdCodec(level=3)]),
    )
    shutil.copytree(plain, out / "consolidated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "consolidated metadata is not part of the v3 spec"
        zarr.consolidate_metadata(str(out / "consolidated"))
    levels = []
    root = zarr.open_group(str(plain), mode="r")
    for dataset in root.attrs["ome"]["multiscales"][0]["datasets"]:
        arr = root[dataset["path"]]
        stored = sum(p.stat().st_size for p in (plain / dataset["path"]).rglob("*") if p.is_file())
        levels.append(
            {
                "path": dataset["path"],
                "shape": list(arr.shape),
                "chunks": list(arr.chunks),
                "shards": list(arr.shards) if arr.shards else None,
                "stored_bytes": stored,
            }
        )
    manifest = {
        "generator_sha256": sha256(Path(__file__)),
        "image_generator_sha256": sha256(HERE.parent / "lib" / "generate.py"),
        "ome_zarr": ome_zarr.__version__,
        "zarr": zarr.__version__,
        "ome_zarr_version": "0.5",
        "plain": "plain",
        "consolidated": "consolidated",
        "levels": levels,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(
        f"generate: OME-Zarr pyramid ({len(levels)} levels, ome-zarr-py {ome_zarr.__version__}) in "
        f"{time.perf_counter() - t0:.1f}s → {out}",
        flush=True,
    )


if __name__ == "__main__":
    main()
