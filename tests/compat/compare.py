"""Runs zom, zarr-metadata and pydantic-zarr on every corpus case and writes RESULTS.md.

A study, not part of the test suite. Run from the repository root, after `node scripts/setup.mjs`
(it creates .venv with the pinned scripts/python-requirements.txt, zarr-metadata included) and
`.venv/bin/python tests/compat/corpus.py`:

    .venv/bin/python tests/compat/compare.py             # table, summary, 10,000-array timing
    .venv/bin/python tests/compat/compare.py --no-bench  # without the timing

How each tool is asked (the adapters are the functions below):

- zom: `cargo run -q --release --example validate -- --strict FILE...` (CARGO_TARGET_DIR defaults
  to /work/target-compat). A case is rejected when the report's `valid` is false (some problem
  has severity `error`); `--strict` only adds `warning`s, shown apart.
- zarr-metadata 0.6.0: `zarr_metadata.model.read_node_metadata_v3(doc)` for `zarr.json`,
  `read_node_metadata_v2({".zarray" or ".zgroup": doc})` for v2, default scope. Its group reader
  only checks the `consolidated_metadata` envelope, so for a group that has one the adapter also
  calls `read_consolidated_metadata_v3(doc["consolidated_metadata"])` (its locs are prefixed with
  `consolidated_metadata`), as zom checks the nested documents. A case is rejected when
  `problems` is not empty. What the reading reports outside `problems` (fields no definition
  claims, `must_understand_fields` of the model) is shown as a note, not counted as a rejection.
- pydantic-zarr 0.9.2: `pydantic_zarr.v3.ArraySpec` / `GroupSpec` `.model_validate(doc)` (chosen by
  `node_type`; without a usable one, ArraySpec when the document has `shape`); v2:
  `pydantic_zarr.v2.ArraySpec` / `GroupSpec` `.model_validate({**doc, "attributes": {}})` (its v2
  models hold the `.zattrs` content as `attributes`, which a `.zarray` lacks). A case is rejected
  when model_validate raises (a ValidationError, or any other exception, shown as such).
- zarr-python 3.1.6, as a reference point only (not scored): whether `zarr.open(store, mode="r")`
  opens the node from a MemoryStore holding only this document.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter, defaultdict
from importlib.metadata import version
from pathlib import Path
from typing import Any

warnings.filterwarnings("ignore")

import pydantic_zarr.v2 as pz2  # noqa: E402
import pydantic_zarr.v3 as pz3  # noqa: E402
import zarr  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.storage import MemoryStore  # noqa: E402
from zarr_metadata.model import (  # noqa: E402
    read_consolidated_metadata_v3,
    read_node_metadata_v2,
    read_node_metadata_v3,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORPUS = HERE / "corpus"
RESULTS = HERE / "RESULTS.md"
TARGET = os.environ.get("CARGO_TARGET_DIR", "/work/target-compat")
ZOM_CMD = ["cargo", "run", "-q", "--release", "--example", "validate", "--", "--strict"]
TOOLS = ("zom", "zarr-metadata", "pydantic-zarr")


# ---------------------------------------------------------------------------------------------
# the three adapters; each gives {"rejects", "problems": [{loc, kind, message, severity}], "notes"}
# ---------------------------------------------------------------------------------------------

def run_zom(files: list[Path]) -> list[dict]:
    env = {**os.environ, "CARGO_TARGET_DIR": TARGET}
    out = subprocess.run(ZOM_CMD + [str(f) for f in files], cwd=REPO, env=env, check=True,
                         capture_output=True, text=True).stdout
    results = []
    for line in out.splitlines():
        report = json.loads(line)["report"]
        problems = [{"loc": tuple(p["loc"]), "kind": p["kind"], "message": p["message"],
                     "severity": p["severity"]} for p in report["problems"]]
        results.append({"rejects": not report["valid"], "problems": problems, "notes": []})
    assert len(results) == len(files)
    return results


def _zm_problems(problems: Any, prefix: tuple = ()) -> list[dict]:
    return [{"loc": prefix + tuple(p.loc), "kind": p.kind, "message": p.message,
             "severity": "error"} for p in problems]


def _zm_notes(reading: Any) -> list[str]:
    notes = []
    try:
        for loc, field in reading.fields():
            if type(field).__name__ == "UnclaimedField":
                notes.append(f"unclaimed `{'.'.join(map(str, loc))}`")
    except Exception:  # a value that is not an object has no fields
        pass
    model = getattr(reading, "metadata", None)
    mu = getattr(model, "must_understand_fields", None)
    if mu:
        notes.append("must_understand_fields: " + ", ".join(f"`{k}`" for k in mu))
    return notes


def run_zarr_metadata(file: str, doc: Any) -> dict:
    if file == "zarr.json":
        reading = read_node_metadata_v3(doc)
        problems = _zm_problems(reading.problems)
        notes = _zm_notes(reading)
        if isinstance(doc, dict) and isinstance(doc.get("consolidated_metadata"), dict):
            nested = read_consolidated_metadata_v3(doc["consolidated_metadata"])
            problems += _zm_problems(nested.problems, ("consolidated_metadata",))
    else:
        reading = read_node_metadata_v2({file: doc})
        problems = _zm_problems(reading.problems)
        notes = _zm_notes(reading)
    return {"rejects": bool(problems), "problems": problems, "notes": notes}


def run_pydantic_zarr(file: str, doc: Any) -> dict:
    if file == "zarr.json":
        node_type = doc.get("node_type") if isinstance(doc, dict) else None
        is_array = node_type == "array" or (node_type != "group" and "shape" in doc)
        model = pz3.ArraySpec if is_array else pz3.GroupSpec
        data = doc
    else:
        model = pz2.ArraySpec if file == ".zarray" else pz2.GroupSpec
        data = doc if "attributes" in doc else {**doc, "attributes": {}}
    try:
        model.model_validate(data)
        problems = []
    except ValidationError as e:
        problems = [{"loc": in_document(tuple(err["loc"]), data), "kind": err["type"],
                     "message": err["msg"], "severity": "error"} for err in e.errors()]
    except Exception as e:  # noqa: BLE001 - what it raises is the result
        problems = [{"loc": (), "kind": f"raised {type(e).__name__}", "message": str(e),
                     "severity": "error"}]
    return {"rejects": bool(problems), "problems": problems, "notes": []}


def run_zarr_python(file: str, doc: Any) -> dict:
    """Not a validator: whether zarr-python 3.1.6 opens the node (mode "r") from a store holding
    only this document. Shown as a reference point for what the main reader does; not scored."""
    store = MemoryStore()
    buf = default_buffer_prototype().buffer.from_bytes(json.dumps(doc).encode())
    asyncio.run(store.set(file, buf))
    try:
        zarr.open(store=store, mode="r", zarr_format=3 if file == "zarr.json" else 2)
        return {"opens": True, "error": ""}
    except Exception as e:  # noqa: BLE001 - what it raises is the result
        return {"opens": False, "error": f"{type(e).__name__}: {e}"}


# ---------------------------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------------------------

def errors(result: dict) -> list[dict]:
    return [p for p in result["problems"] if p["severity"] == "error"]


def in_document(loc: tuple, doc: Any) -> tuple:
    """pydantic's loc with its union-member tags (`NamedConfig`, `dict[str,any]`, `str`, which
    name a model, not a place) dropped: the steps that exist in the document, plus a last step
    naming a key an object lacks (a missing key)."""
    out, node = [], doc
    for i, step in enumerate(loc):
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        elif isinstance(node, dict) and i == len(loc) - 1:
            node = None
        else:
            continue
        out.append(step)
    return tuple(out)


def related(loc: tuple, defect: tuple) -> bool:
    """A problem points at a defect when one location is a prefix of the other (not the root)."""
    n = min(len(loc), len(defect))
    return len(loc) > 0 and tuple(loc[:n]) == tuple(defect[:n])


def located(result: dict, defect_locs: list[tuple]) -> int:
    """How many of the locations some error-severity problem points at."""
    return sum(any(related(p["loc"], d) for p in errors(result)) for d in defect_locs)


def distinct(result: dict) -> int:
    """How many different locations the error-severity problems name."""
    return len({p["loc"] for p in errors(result)})


def short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def loc_text(loc: tuple) -> str:
    return ".".join(map(str, loc)) if loc else "(root)"


def esc(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def cell(tool: str, result: dict, limit: int = 3) -> str:
    errs = errors(result)
    warns = [p for p in result["problems"] if p["severity"] != "error"]
    if errs:
        shown = [f"`{esc(loc_text(p['loc']))}` {esc(p['kind'])}" for p in errs[:limit]]
        if len(errs) > limit:
            shown.append(f"+{len(errs) - limit} more")
        text = f"✗ {len(errs)}: " + "; ".join(shown)
    else:
        text = "✓ valid" if tool == "zom" else "✓ no problem" if tool == "zarr-metadata" else "✓ accepted"
    if warns:
        text += " (warn: " + "; ".join(f"`{esc(loc_text(p['loc']))}` {p['kind']}" for p in warns) + ")"
    if result["notes"]:
        text += " [" + "; ".join(esc(n) for n in result["notes"]) + "]"
    return text


def first_message(result: dict) -> str:
    errs = errors(result)
    if not errs:
        warns = result["problems"]
        if warns:
            return f"valid, warning `{loc_text(warns[0]['loc'])}`: {warns[0]['message']}"
        return "accepts" + (f" ({'; '.join(result['notes'])})" if result["notes"] else "")
    p = errs[0]
    more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
    return f"`{loc_text(p['loc'])}` {p['kind']}: \"{p['message']}\"{more}"


# ---------------------------------------------------------------------------------------------
# timing: one zarr.json with consolidated_metadata of 10,000 arrays
# ---------------------------------------------------------------------------------------------

N_ENTRIES = 10_000
BENCH_DIR = Path("/tmp/zom-compat-bench")


def bench_arrays(cases: list[dict]) -> list[dict]:
    """The zarr-python-written v3 array documents of the corpus."""
    arrays = []
    for c in cases:
        if c["expect"] == "valid" and c["case"].startswith("ok_v3_") and c["file"].endswith("zarr.json"):
            doc = json.loads((CORPUS / c["file"]).read_text())
            if doc.get("node_type") == "array":
                arrays.append(doc)
    return arrays


def bench_document(arrays: list[dict]) -> dict:
    """A root group whose consolidated_metadata lists 10,000 arrays, each a copy (with its own
    `attributes`) of one of `arrays`, in turn."""
    metadata = {}
    for i in range(N_ENTRIES):
        entry = json.loads(json.dumps(arrays[i % len(arrays)]))
        entry["attributes"] = {"index": i, "title": f"array {i}"}
        metadata[f"array_{i:05d}"] = entry
    return {"attributes": {"title": "10,000 arrays"}, "zarr_format": 3,
            "consolidated_metadata": {"kind": "inline", "must_understand": False, "metadata": metadata},
            "node_type": "group"}


def timed(fn: Any, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench(cases: list[dict], repeat: int = 7) -> list[str]:
    BENCH_DIR.mkdir(exist_ok=True)
    (BENCH_DIR / "big").mkdir(exist_ok=True)
    (BENCH_DIR / "tiny").mkdir(exist_ok=True)
    big = BENCH_DIR / "big" / "zarr.json"
    tiny = BENCH_DIR / "tiny" / "zarr.json"
    arrays = bench_arrays(cases)
    big.write_text(json.dumps(bench_document(arrays), indent=2))
    tiny.write_text((CORPUS / "ok_v3_group" / "zarr.json").read_text())
    size = big.stat().st_size
    binary = Path(TARGET) / "release" / "examples" / "validate"

    # zom: the release binary, whole process (read + parse + validate + print), minus a run on a
    # 3-key document (process start-up and exit)
    def zom(path: Path) -> dict:
        out = subprocess.run([str(binary), str(path)], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)["report"]

    zom_report = zom(big)
    zom(tiny)
    zom_big = timed(lambda: zom(big), repeat)
    zom_tiny = timed(lambda: zom(tiny), repeat)

    # zarr-metadata: in-process, json.loads + the group reading + the consolidated reading
    raw = big.read_bytes()

    def zm() -> tuple:
        doc = json.loads(raw)
        group = read_node_metadata_v3(doc)
        nested = read_consolidated_metadata_v3(doc["consolidated_metadata"])
        return group.problems, nested.problems

    zm_problems = zm()
    zm_all = timed(zm, repeat)
    parse = timed(lambda: json.loads(raw), repeat)

    # pydantic-zarr cannot take this document (GroupSpec forbids `consolidated_metadata`); for
    # scale, the same 10,000 arrays as `members` of a GroupSpec (its own, ZOM form)
    doc = json.loads(raw)
    zom_form = {"zarr_format": 3, "node_type": "group", "attributes": doc["attributes"],
                "members": doc["consolidated_metadata"]["metadata"]}
    pz3.GroupSpec.model_validate(zom_form)
    pz_all = timed(lambda: pz3.GroupSpec.model_validate(zom_form), repeat)

    med = statistics.median
    ms = lambda s: f"{s * 1000:.1f} ms"  # noqa: E731
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    zom_net = med(zom_big) - med(zom_tiny)
    zm_med = med(zm_all)
    return [
        "## Timing: one zarr.json with consolidated metadata of 10,000 arrays",
        "",
        f"The document ({size / 1e6:.1f} MB, written to `{big}` by `bench_document()` in this script)"
        f" is a root group whose `consolidated_metadata` lists {N_ENTRIES:,} arrays: copies of the"
        f" {len(arrays)}"
        " zarr-python-written v3 arrays of the corpus in turn (every data type family, sharding,"
        " transpose, blosc, crc32c …), each with its own `attributes`.",
        f"zom reports {sum(p['severity'] == 'error' for p in zom_report['problems'])} errors on it,"
        f" zarr-metadata {len(zm_problems[0]) + len(zm_problems[1])} problems.",
        "",
        f"Median of {repeat} runs on {cpu} ({os.cpu_count()} cores, shared), Python"
        f" {platform.python_version()}:",
        "",
        "| what | median | runs (ms) |",
        "|---|---|---|",
        f"| zom, process on the document (`{binary.name} {big}`) | {ms(med(zom_big))} |"
        f" {', '.join(f'{t * 1000:.0f}' for t in zom_big)} |",
        f"| zom, process on a 3-key group document (start-up, exit) | {ms(med(zom_tiny))} |"
        f" {', '.join(f'{t * 1000:.0f}' for t in zom_tiny)} |",
        f"| **zom, difference (read + parse + validate + print)** | **{ms(zom_net)}** | |",
        f"| **zarr-metadata: `json.loads` + `read_node_metadata_v3` + `read_consolidated_metadata_v3`**"
        f" (in process) | **{ms(zm_med)}** | {', '.join(f'{t * 1000:.0f}' for t in zm_all)} |",
        f"| … of which `json.loads` alone | {ms(med(parse))} | |",
        f"| pydantic-zarr: `v3.GroupSpec.model_validate` of the same arrays as `members`"
        f" (a different input: it refuses `consolidated_metadata`) | {ms(med(pz_all))} |"
        f" {', '.join(f'{t * 1000:.0f}' for t in pz_all)} |",
        "",
        f"zarr-metadata takes about {zm_med / zom_net:.0f}× zom's time on this document (medians;"
        f" {min(zm_all) / zom_net:.0f}× to {max(zm_all) / zom_net:.0f}× for its fastest and slowest"
        " runs: the machine is shared)"
        " (zom: native release build of the `validate` example; zarr-metadata: CPython, timed"
        " in-process, so without interpreter start-up). pydantic-zarr checks much less (see the"
        " table above), so its time is not a like-for-like comparison.",
        "",
        "Reproduce: `python3 tests/compat/compare.py` (it builds and runs"
        f" `{' '.join(ZOM_CMD)} …` for the table, then times `{binary}` directly). The zom"
        f" timing by hand: `cargo build --release --example validate && time {binary} {big}`"
        f" and `time {binary} {tiny}`.",
        "",
    ]


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-bench", action="store_true", help="skip the 10,000-array timing")
    args = parser.parse_args()

    cases = json.loads((CORPUS / "cases.json").read_text())
    files = [CORPUS / c["file"] for c in cases]
    results: dict[str, dict[str, dict]] = {c["case"]: {} for c in cases}
    for c, r in zip(cases, run_zom(files)):
        results[c["case"]]["zom"] = r
    for c in cases:
        name = c["file"].rsplit("/", 1)[1]
        doc = json.loads((CORPUS / c["file"]).read_text())
        results[c["case"]]["zarr-metadata"] = run_zarr_metadata(name, doc)
        results[c["case"]]["pydantic-zarr"] = run_pydantic_zarr(name, doc)
        results[c["case"]]["zarr-python"] = run_zarr_python(name, doc)

    lines = [
        "# zom vs zarr-metadata vs pydantic-zarr: metadata validation on one corpus",
        "",
        "Generated by `python3 tests/compat/compare.py` from the corpus that"
        " `python3 tests/compat/corpus.py` writes (`tests/compat/corpus/`, listed in"
        " `corpus/cases.json`). Do not edit by hand.",
        "",
        f"Versions: zom at `{git_head()}`, zarr-metadata {version('zarr-metadata')},"
        f" pydantic-zarr {version('pydantic-zarr')} (pydantic {version('pydantic')}),"
        f" zarr-python {version('zarr')} (wrote the valid documents).",
        "",
        "How each tool is asked, and what counts as a rejection, is in the docstring of"
        " `compare.py`. In short: zom `validate --strict` (rejects = some `error`; `warning`s shown"
        " apart), zarr-metadata `read_node_metadata_v3` / `read_node_metadata_v2` (+"
        " `read_consolidated_metadata_v3` for consolidated groups; rejects = non-empty `problems`),"
        " pydantic-zarr `ArraySpec` / `GroupSpec` `.model_validate` (rejects = raises).",
        "",
        "`expect` is what the specs say: `valid`; `invalid` (breaks a MUST);"
        " `should_not` (breaks only a SHOULD NOT); `debatable` (the spec does not settle it)."
        " A cell lists the error count and up to three `loc` kind pairs;"
        " zarr-metadata notes in [brackets] are what its reading reports outside `problems`"
        " (fields no definition claims are not checked; `must_understand_fields` are left to the"
        " caller) — they are not counted as rejections.",
        "",
    ]
    lines += summary(cases, results)
    lines += ["## Every case", "",
              "The last column is not a validator: whether zarr-python 3.1.6 opens the node"
              " (`zarr.open(store, mode=\"r\")`) from a store holding only this document.", "",
              "| case | expect | defect | zom | zarr-metadata | pydantic-zarr | zarr-python opens |",
              "|---|---|---|---|---|---|---|"]
    for c in cases:
        r = results[c["case"]]
        zp = r["zarr-python"]
        zp_text = "opens" if zp["opens"] else "fails: " + esc(short(zp["error"]))
        lines.append(f"| `{c['case']}` | {c['expect']} | {esc(c['defect'])} | "
                     + " | ".join(cell(t, r[t]) for t in TOOLS) + f" | {zp_text} |")
    lines.append("")
    if not args.no_bench:
        lines += bench(cases)
    RESULTS.write_text("\n".join(lines))
    print(f"wrote {RESULTS}")


def git_head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "unknown"


def summary(cases: list[dict], results: dict) -> list[str]:
    by_expect: dict[str, list[dict]] = defaultdict(list)
    for c in cases:
        by_expect[c["expect"]].append(c)
    invalid = by_expect["invalid"]
    single = [c for c in invalid if c["category"] != "multiple"]
    multi = [c for c in invalid if c["category"] == "multiple"]
    valid = by_expect["valid"]

    def rejected(tool: str, cs: list[dict]) -> list[dict]:
        return [c for c in cs if results[c["case"]][tool]["rejects"]]

    def at_place(tool: str, cs: list[dict]) -> list[dict]:
        # a single defect may be reported at any of its locations (a rule between two keys)
        return [c for c in cs if located(results[c["case"]][tool], [tuple(l) for l in c["locs"]])]

    out = ["## Summary", ""]
    out += ["Caveats: the `expect` labels are this study's reading of the v2 spec and the v3 core"
            " spec (3.2 text); the defects were chosen from a list of categories written for zom,"
            " so the corpus tests the rules zom was built to check, not those another tool may"
            " check and zom does not; and \"rejected\" means rejected for any reason, while"
            " \"at the defect's location\" asks that some error point at the edited key (or a"
            " key inside it, or the object holding it).", ""]
    out += [f"{len(cases)} documents: {len(valid)} valid ({sum(c['category'] == 'valid' for c in valid)}"
            f" written by zarr-python, {sum(c['category'] != 'valid' for c in valid)} edited but still"
            f" valid), {len(single)} with one defect that breaks a MUST, {len(multi)} with four such"
            f" defects, {plural(len(by_expect['should_not']), 'that breaks', 'that break')} only a"
            f" SHOULD NOT, {len(by_expect['debatable'])} debatable.", ""]
    out += ["| | zom | zarr-metadata | pydantic-zarr |", "|---|---|---|---|"]
    out.append(f"| single-defect documents rejected (of {len(single)}) | "
               + " | ".join(str(len(rejected(t, single))) for t in TOOLS) + " |")
    out.append("| … rejected with a problem at the defect's location | "
               + " | ".join(str(len(at_place(t, single))) for t in TOOLS) + " |")
    out.append(f"| valid documents rejected (false positives, of {len(valid)}) | "
               + " | ".join(str(len(rejected(t, valid))) for t in TOOLS) + " |")
    for c in multi:
        n = len(c["locs"])
        out.append(f"| `{c['case']}` ({n} defects): errors / distinct locations / defects located | "
                   + " | ".join(f"{len(errors(r[t]))} / {distinct(r[t])} / {located(r[t], locs)}"
                                for r, locs in [(results[c['case']], [tuple(l) for l in c['locs']])]
                                for t in TOOLS) + " |")
    out.append("")
    zm_noted = [c for c in single if not results[c["case"]]["zarr-metadata"]["rejects"]
                and results[c["case"]]["zarr-metadata"]["notes"]]
    out += [f"zarr-metadata leaves {len(zm_noted)} of the single-defect documents it accepts flagged"
            " only outside `problems` (an unclaimed field, or `must_understand_fields`): "
            + ", ".join(f"`{c['case']}`" for c in zm_noted) + ".", ""]

    unclaimed = defaultdict(list)
    for c in valid:
        if c["category"] != "valid" or not c["file"].endswith("zarr.json"):
            continue
        doc = json.loads((CORPUS / c["file"]).read_text())
        for note in results[c["case"]]["zarr-metadata"]["notes"]:
            if note.startswith("unclaimed `"):
                node: Any = doc
                for step in note.split("`")[1].split("."):
                    node = node[int(step)] if isinstance(node, list) else node[step]
                name = node if isinstance(node, str) else node.get("name")
                unclaimed[name].append(c["case"])
    out += ["Names in zarr-python-written documents that zarr-metadata's default scope does not claim"
            " (so it checks neither them nor, for a data type, the fill value): "
            + ", ".join(f"`{n}` ({', '.join(f'`{x}`' for x in cs)})" for n, cs in unclaimed.items())
            + ".", ""]

    out += ["Rejected single-defect documents per category:", "",
            "| category | n | zom | zarr-metadata | pydantic-zarr |", "|---|---|---|---|---|"]
    cats: dict[str, list[dict]] = defaultdict(list)
    for c in single:
        cats[c["category"]].append(c)
    for cat, cs in cats.items():
        out.append(f"| {cat} | {len(cs)} | " + " | ".join(str(len(rejected(t, cs))) for t in TOOLS) + " |")
    out.append("")

    out += ["Missed (accepted) single-defect documents:", ""]
    for t in TOOLS:
        missed = [c for c in single if not results[c["case"]][t]["rejects"]]
        out.append(f"- {t} ({len(missed)}): " + (", ".join(f"`{c['case']}`" for c in missed) or "none"))
    out.append("")
    out += ["False positives (valid documents rejected):", ""]
    for t in TOOLS:
        fp = rejected(t, valid)
        out.append(f"- {t} ({len(fp)}): " + (", ".join(
            f"`{c['case']}` ({first_message(results[c['case']][t])})" for c in fp) or "none"))
    out.append("")
    out += ["Documents that break only a SHOULD NOT, and debatable ones:", ""]
    for c in by_expect["should_not"] + by_expect["debatable"]:
        zp = results[c["case"]]["zarr-python"]
        out.append(f"- `{c['case']}` ({c['expect']}: {esc(c['defect'])}): "
                   + "; ".join(f"{t} {first_message(results[c['case']][t])}" for t in TOOLS)
                   + "; zarr-python " + ("opens it" if zp["opens"] else "fails: " + esc(short(zp["error"]))))
    out.append("")
    zp_opens = [c for c in single if results[c["case"]]["zarr-python"]["opens"]]
    zp_fails = [c for c in valid if not results[c["case"]]["zarr-python"]["opens"]]
    out += [f"For reference (not scored): zarr-python 3.1.6 opens {len(zp_opens)} of the {len(single)}"
            " single-defect documents (" + ", ".join(f"`{c['case']}`" for c in zp_opens) + ")"
            + (f" and fails on {plural(len(zp_fails), 'valid one', 'valid ones')} (" + ", ".join(f"`{c['case']}`" for c in zp_fails)
               + ")" if zp_fails else " and on every valid one") + ".", ""]
    counts = {t: Counter() for t in TOOLS}
    for c in single:
        for t in TOOLS:
            counts[t][len(errors(results[c["case"]][t]))] += 1
    out += ["Errors reported per single-defect document (number of errors: number of documents): "
            + "; ".join(f"{t} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts[t].items()) if k)
                        for t in TOOLS) + ".", ""]

    out += ["### Where the tools disagree", "",
            "Every document on which the three tools do not all give the same verdict, with the"
            " first problem each reports:", ""]
    for c in cases:
        verdicts = {results[c["case"]][t]["rejects"] for t in TOOLS}
        if len(verdicts) > 1:
            out.append(f"- `{c['case']}` ({c['expect']}: {esc(c['defect'])})")
            for t in TOOLS:
                out.append(f"  - {t}: {esc(first_message(results[c['case']][t]))}")
    out.append("")
    out += NOTES
    return out


# Observations from reading the table; each names the cases it rests on (see "Every case").
NOTES = [
    "### Notable differences",
    "",
    "- **Every problem vs first problem.** zom and zarr-metadata return every problem with its"
    " location. pydantic-zarr's `model_validate` raises one `ValidationError` that lists every"
    " *field* whose type check fails (a union type gives one error per member: 7 for"
    " `v3_fill_null`), but its cross-field checks (`model_validator`s, loc `(root)`) only run when"
    " every field passed, and most Zarr rules are not in its types: in `multi_v2_array` it reports"
    " `order` and `dimension_separator`, not the rank mismatch or the fill value.",
    "- **What pydantic-zarr checks.** Its models check JSON types and a few literals: shape/chunks"
    " are tuples of int (negative, zero or over-uint64 lengths pass: `v3_shape_negative`,"
    " `v3_chunk_zero`, `v3_shape_huge`), `fill_value` is not checked against the data type, codec"
    " configurations and codec order are not checked, and `zarr_format` / `node_type` have"
    " defaults (a document without them passes: `v3_missing_zarr_format`, `v3_missing_node_type`)."
    " Its models forbid unknown keys, so zarr-python's own consolidated `zarr.json` is refused"
    " (`ok_v3_group_consolidated`), and so is a key with `must_understand: false`"
    " (`v3_unknown_key_mu_false`). An unknown v2 dtype makes it raise numpy's `TypeError`, not a"
    " `ValidationError` (`v2_dtype_unknown`).",
    "- **Unknown extensions and keys.** zarr-metadata does not check a name no definition in its"
    " scope claims (data types, codecs, chunk grids, chunk key encodings): such a field is"
    " reported as unclaimed in the reading, not as a problem (`v3_dtype_unknown`,"
    " `v3_codec_unknown`, `v3_cke_name_unknown`, `v3_chunk_grid_unknown`). Likewise an unknown"
    " top-level key without `must_understand: false` is accepted and listed in the model's"
    " `must_understand_fields` (`v3_unknown_key`, `v3_group_unknown_key`): the policy is left to"
    " the caller. zom applies the spec's rule itself: an unknown extension or key that does not"
    " set `must_understand: false` is an error (kind `must_understand`), one that does is a"
    " warning in `--strict` mode. zarr-python refuses all six of these documents.",
    "- **`must_understand: false` on a codec.** The v3 core spec (3.1+, \"Extension definition\")"
    " excludes only the data type, chunk grid and chunk key encoding from `must_understand=False`."
    " zarr-metadata refuses it on a codec (\"false is not supported at this extension point\");"
    " zom accepts it with warnings (`v3_codec_unknown_mu_false`). zarr-python 3.1.6 does not open"
    " that document either (unknown codec).",
    "- **zarr-python's extension data types.** zom and zarr-metadata accept every"
    " zarr-python-written document (zom also gives no `--strict` warning on any). zarr-metadata"
    " does not claim several names zarr-python writes (listed above), so it does not check them: a"
    " bad base64 fill value of a `null_terminated_bytes` array passes (`v3_fill_bytes_bad_base64`).",
    "- **Where zom is stricter than zarr-metadata.** A zero chunk length in v2 (`v2_chunk_zero`;"
    " the v2 spec does not say in words that a chunk length must be positive), an `|O` array"
    " without an object codec (`v2_object_no_codec`), a dimension length of 2^64"
    " (`v3_shape_huge`), a float fill value beyond the data type's finite range"
    " (`v3_fill_float16_overflow`, which the v3 spec says is rounded: counted above as a zom false"
    " positive), `.zarray` keys outside the spec (`v2_extra_key`: the v2 spec says SHOULD NOT and"
    " SHOULD be ignored, but zom reports an `error`, unlike its other SHOULD NOT rules, which are"
    " `--strict` warnings), and a byte order mark on a one-byte v2 type (`v2_dtype_u1_little`,"
    " which zarr-python 3.1.6 refuses too).",
    "- **Where zarr-metadata is stricter than zom.** An integer v2 fill value written as `1.0`"
    " (`v2_fill_int_as_float`; zarr-python opens it), and `must_understand: false` on a codec"
    " (above).",
    "- **Locations.** Both point into the document with the same path syntax and, on most"
    " documents, the same location; zom names the element (`shape.0`) where zarr-metadata names"
    " the list (`shape`), e.g. for shape values. pydantic-zarr's locations carry model names of union"
    " members (`chunk_key_encoding.NamedConfig.name`; this script drops those steps to compare),"
    " and cross-field errors have no location.",
    "- **Dependent checks.** When a value is broken, zom and zarr-metadata both skip the checks"
    " that depend on it: in `multi_v3_sharding` the chunk shape `[8, 0]` is reported, and the"
    " inner chunk `[3, 3]` that does not divide its 8 is not, by either tool.",
    "",
]


if __name__ == "__main__":
    sys.exit(main())
