"""Writes a big OME-Zarr plate, metadata only, for the benchmark of walking a hierarchy by its
metadata (issue 35): N rows x M columns, every well written, F fields per well, each field an
L-level 1 x 8 x 8 uint16 image, by ome-zarr-py (pinned in scripts/python-requirements-ome.txt).
Not committed: write it where the benchmark wants it.

    node scripts/setup.mjs --python-ome
    .venv-ome/bin/python bench/plate/generate_plate.py --rows 8 --cols 12 --fields 2 --levels 3 --format 0.5 OUT
    .venv-ome/bin/python bench/plate/generate_plate.py --rows 16 --cols 24 --fields 2 --levels 3 --format 0.5 OUT

It deletes OUT first, and prints the node count (every group and array: 1 plate + N rows +
N*M wells + N*M*F fields + N*M*F*L arrays) and the time taken.

Fast by default (--copy): ome-zarr-py writes the plate's metadata (write_plate_metadata, every
well listed), zarr-python the row groups, and ome-zarr-py one well, its fields and their
arrays (write_well_metadata, write_image); that well's metadata documents are then copied to
every other well unchanged. Nothing differs between wells: each field is named "field <f>",
not after its well, and a well's metadata names its fields by relative path. --no-copy writes
every well with ome-zarr-py instead (the same bytes, slower). Either way the chunk files are
deleted: only metadata documents remain.

--keep-chunks keeps them, for the benchmark of a plate's pictures (bench/plate/plate-pictures.mjs):
every field then holds pixels, --channels C x --size S x S uint16 (a few bright cells on a dim,
noisy background, the same in every field), chunked 1 x --chunk x --chunk; with --copy the
well's chunk files are copied with its metadata. Its plates (not committed):

    .venv-ome/bin/python bench/plate/generate_plate.py --rows 8 --cols 12 --fields 2 --levels 3 --format 0.5 \
        --keep-chunks --channels 2 --size 512 --chunk 256 bench/data/plates-pictures/plate96-v0.5

(levels 512, 256 and 128 square: a 72-pixel thumbnail needs level 2, one chunk per channel).
The defaults (1 channel, 8 x 8, chunks 8 x 8, chunks deleted) are the walk bench's plates.
"""

from __future__ import annotations

import argparse
import shutil
import string
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import zarr
from ome_zarr.format import FormatV04, FormatV05
from ome_zarr.writer import write_image, write_plate_metadata, write_well_metadata

FORMATS = {"0.4": FormatV04(), "0.5": FormatV05()}
METADATA_FILES = {"zarr.json", ".zarray", ".zgroup", ".zattrs"}


def row_name(i: int) -> str:
    """A, B, ..., Z, AA, AB, ... (a 1536-well plate has 32 rows)."""
    letters = string.ascii_uppercase
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]


def field_image(channels: int, size: int) -> np.ndarray:
    """The walk bench's 8 x 8 ramp, or (larger) cells on a noisy background, C x S x S uint16."""
    if channels == 1 and size == 8:
        y, x = np.mgrid[0:8, 0:8]
        return (x * 7 + y * 3).astype(np.uint16)[None]
    rng = np.random.default_rng(46)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    planes = []
    for c in range(channels):
        plane = np.full((size, size), 100.0, dtype=np.float32)
        for _ in range(24):
            cy, cx = rng.uniform(0, size, 2)
            r = rng.uniform(size / 40, size / 16)
            plane += rng.uniform(800, 3000) / (c + 1) * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
        plane += rng.normal(0, 8, plane.shape)
        planes.append(np.clip(plane, 0, 65535).astype(np.uint16))
    return np.stack(planes)


def write_well(well: zarr.Group, fields: int, levels: int, fmt, image: np.ndarray, chunk: int) -> None:
    write_well_metadata(well, [{"path": str(f), "acquisition": 0} for f in range(fields)], fmt=fmt)
    for f in range(fields):
        write_image(
            image,
            well.require_group(str(f)),
            scale_factors=[2**i for i in range(1, levels)],
            axes="cyx",
            fmt=fmt,
            name=f"field {f}",
            storage_options={"chunks": (1, chunk, chunk)},
        )


def strip_chunks(root: Path) -> None:
    for p in root.rglob("*"):
        if p.is_file() and p.name not in METADATA_FILES:
            p.unlink()
    for p in sorted(root.rglob("*"), key=lambda q: len(q.parts), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()


def count_nodes(root: Path) -> int:
    return sum(1 for p in root.rglob("*") if p.name in ("zarr.json", ".zgroup", ".zarray"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=8)
    ap.add_argument("--cols", type=int, default=12)
    ap.add_argument("--fields", type=int, default=2)
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--format", choices=sorted(FORMATS), default="0.5", help="OME-Zarr version (0.4: zarr v2, 0.5: zarr v3)")
    ap.add_argument("--copy", action=argparse.BooleanOptionalAction, default=True, help="write one well, copy its files to the others (default)")
    ap.add_argument("--keep-chunks", action="store_true", help="keep the chunk files (default: metadata only)")
    ap.add_argument("--channels", type=int, default=1, help="channels per field (default 1)")
    ap.add_argument("--size", type=int, default=8, help="a field's height and width at level 0 (default 8)")
    ap.add_argument("--chunk", type=int, help="a chunk's height and width (default: --size)")
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    if args.size < 1 or args.channels < 1:
        sys.exit("--size, --channels: at least 1")
    if not 1 <= args.levels or args.size >> (args.levels - 1) < 1:
        sys.exit(f"--levels: 1 to {args.size.bit_length()} (the image is {args.size} x {args.size})")
    chunk = args.chunk or args.size
    if not 1 <= args.rows <= 26 * 27:
        sys.exit("--rows: 1 to 702")
    t0 = time.perf_counter()
    fmt = FORMATS[args.format]
    rows = [row_name(i) for i in range(args.rows)]
    cols = [str(j + 1) for j in range(args.cols)]
    wells = [f"{r}/{c}" for r in rows for c in cols]
    image = field_image(args.channels, args.size)
    if args.out.exists():
        shutil.rmtree(args.out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the writers' deprecation and performance warnings
        root = zarr.open_group(args.out, mode="w", zarr_format=fmt.zarr_format)
        write_plate_metadata(
            root, rows, cols, wells, fmt=fmt, name="plate", field_count=args.fields, acquisitions=[{"id": 0, "name": "acquisition 0"}]
        )
        row_groups = {r: root.require_group(r) for r in rows}
        for well_path in wells[:1] if args.copy else wells:
            r, c = well_path.split("/")
            write_well(row_groups[r].require_group(c), args.fields, args.levels, fmt, image, chunk)
    if not args.keep_chunks:
        strip_chunks(args.out)
    if args.copy:
        first = args.out / wells[0]
        for well_path in wells[1:]:
            shutil.copytree(first, args.out / well_path)
    nodes = count_nodes(args.out)
    want = 1 + len(rows) + len(wells) * (1 + args.fields * (1 + args.levels))
    assert nodes == want, (nodes, want)
    how = "one well by ome-zarr-py, copied" if args.copy else "every well by ome-zarr-py"
    what = ", metadata only"
    if args.keep_chunks:
        files = [p for p in args.out.rglob("*") if p.is_file() and p.name not in METADATA_FILES]
        what = f", {args.channels} x {args.size} x {args.size} uint16 fields in chunks of {chunk}: {len(files)} chunk files, {sum(p.stat().st_size for p in files) / 2**20:.0f} MiB"
    print(f"{args.out}: OME-Zarr {args.format} plate {args.rows} x {args.cols}, {args.fields} fields, {args.levels} levels: {nodes} nodes ({how}){what} in {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
