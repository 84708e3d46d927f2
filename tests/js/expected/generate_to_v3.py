#!/usr/bin/env python3
"""Ground truth for tests/js/convert.test.mjs: zarr-python's own v2 -> v3 metadata conversion
(the one `zarr migrate v3` uses) of every array of tests/fixtures/v2.

Run from the repository root:  python3 tests/js/expected/generate_to_v3.py
Writes tests/js/expected/to_v3.json: {"arrays": {path: v3 zarr.json dict}, "failed": {path:
the error zarr-python raised}}. Needs zarr 3.1.x (the fixtures' version).
"""

import json
import sys
import warnings
from pathlib import Path

import zarr
from zarr.metadata.migrate_v3 import _convert_array_metadata

sys.dont_write_bytecode = True
warnings.filterwarnings("ignore")

here = Path(__file__).resolve().parent
group = zarr.open_group(here.parents[1] / "fixtures" / "v2", mode="r")
arrays, failed = {}, {}
for path, node in sorted(group.members(max_depth=None)):
    if isinstance(node, zarr.Array):
        try:
            arrays[path] = _convert_array_metadata(node.metadata).to_dict()
        except Exception as e:  # recorded: zarr-python cannot convert these
            failed[path] = f"{type(e).__name__}: {e}"
out = {"zarr": zarr.__version__, "arrays": arrays, "failed": failed}
text = json.dumps(out, indent=1, sort_keys=True, default=str) + "\n"
(here / "to_v3.json").write_text(text)
print(f"{len(arrays)} arrays converted, {len(failed)} refused by zarr-python")
