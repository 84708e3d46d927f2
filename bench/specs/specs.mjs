// Issue 17's cost target: validating a 10,000-node hierarchy against a convention costs at most
// 2× validating it against the Zarr spec alone. Two hierarchies, built in this process from
// the nodes ome-zarr-py and xarray wrote (tests/fixtures/conventions), repeated:
//   - an OME-Zarr 0.5 plate: 32 rows × 48 columns of wells, each with two field images of two
//     resolution levels (the fixture's own image): 10,785 nodes;
//   - an xarray dataset (Zarr v3): 10,000 nodes, the fixture's variables and copies of one.
// Each is validated with `validateHierarchy(zom)` and `validateHierarchy(zom, {specs})` for the
// convention by name and "auto", alternating, N runs after one warm-up; medians.
//
//   node --expose-gc bench/specs/specs.mjs [--runs N] [--out bench/results.json]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { FsStore } from "../../pkg/store/fs.js";
import { initValidate, validateHierarchy, walk } from "../../pkg/validate.js";
import { benchDir, median, Targets, table } from "../lib/util.mjs";

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "7" }, out: { type: "string", default: join(benchDir, "results.json") } },
});
const RUNS = Number(args.runs);
await initValidate();

const fixtures = join(benchDir, "..", "tests", "fixtures", "conventions");
const walked = async (dir) => JSON.parse(JSON.stringify(await walk(new FsStore(join(fixtures, dir)))));
const nodeOnly = ({ errors, unlisted, ...zom }) => zom;

/** The plate fixture scaled up: every well the fixture's well A/1, with two field images. */
async function plate() {
  const small = nodeOnly(await walked("ome-0.5-plate"));
  const well = small.members.A.members["1"];
  // Field 1 has no labels (field 0 has), as the plate measured before fixtures had labels.
  const image = well.members["1"];
  const rows = Array.from({ length: 32 }, (_, i) => `R${i}`);
  const columns = Array.from({ length: 48 }, (_, i) => `${i + 1}`);
  const members = {};
  const wells = [];
  rows.forEach((r, ri) => {
    const rowMembers = {};
    columns.forEach((c, ci) => {
      wells.push({ path: `${r}/${c}`, rowIndex: ri, columnIndex: ci });
      const w = structuredClone(well);
      w.attributes.ome.well.images = [
        { path: "0", acquisition: 0 },
        { path: "1", acquisition: 0 },
      ];
      w.members = { 0: structuredClone(image), 1: structuredClone(image) };
      rowMembers[c] = w;
    });
    members[r] = { ...structuredClone(small.members.A), members: rowMembers };
  });
  const zom = structuredClone(small);
  zom.attributes.ome.plate.rows = rows.map((name) => ({ name }));
  zom.attributes.ome.plate.columns = columns.map((name) => ({ name }));
  zom.attributes.ome.plate.wells = wells;
  zom.members = members;
  return zom;
}

/** The xarray fixture scaled up: 10,000 data variables beside its coordinates. */
async function dataset() {
  const small = nodeOnly(await walked("xarray-v3"));
  const variable = small.members.temperature;
  const extra = 10_000 - 1 - Object.keys(small.members).length;
  for (let i = 0; i < extra; i++) small.members[`var${i}`] = structuredClone(variable);
  return small;
}

const count = (node) => 1 + Object.values(node.members ?? {}).reduce((n, m) => n + count(m), 0);
const time = (f) => {
  globalThis.gc?.();
  const t = performance.now();
  f();
  return performance.now() - t;
};

const targets = new Targets("specs");
const rows = [];
if (process.env.ZOM_BENCH_DUMP) {
  writeFileSync(`${process.env.ZOM_BENCH_DUMP}-plate.json`, JSON.stringify(await plate()));
  writeFileSync(`${process.env.ZOM_BENCH_DUMP}-dataset.json`, JSON.stringify(await dataset()));
}
const section = {
  date: new Date().toISOString().slice(0, 10),
  method: { runs: RUNS, statistic: "median after one warm-up; the three validations alternate" },
  hierarchies: [],
};
for (const [name, build, convention] of [
  ["OME-Zarr 0.5 plate", plate, "ome-zarr"],
  ["xarray dataset (v3)", dataset, "xarray"],
]) {
  const zom = await build();
  const nodes = count(zom);
  const ops = {
    zarr: () => validateHierarchy(zom),
    convention: () => validateHierarchy(zom, { specs: convention }),
    auto: () => validateHierarchy(zom, { specs: "auto" }),
  };
  for (const [op, f] of Object.entries(ops)) {
    const report = f();
    if (!report.valid) throw new Error(`${name} ${op}: not valid: ${JSON.stringify(report.problems.slice(0, 3))}`);
  }
  const ms = { zarr: [], convention: [], auto: [] };
  for (let r = 0; r < RUNS; r++) {
    const order = r % 2 ? ["auto", "convention", "zarr"] : ["zarr", "convention", "auto"];
    for (const op of order) ms[op].push(time(ops[op]));
  }
  const m = Object.fromEntries(Object.entries(ms).map(([op, xs]) => [op, median(xs)]));
  rows.push([
    name,
    String(nodes),
    m.zarr.toFixed(1),
    m.convention.toFixed(1),
    m.auto.toFixed(1),
    (m.convention / m.zarr).toFixed(2),
    (m.auto / m.zarr).toFixed(2),
  ]);
  section.hierarchies.push({ name, nodes, convention, ms: m, convention_vs_zarr: m.convention / m.zarr, auto_vs_zarr: m.auto / m.zarr });
  targets.check(`${name}: with ${convention} / Zarr spec alone`, m.convention / m.zarr, "<=", 2);
  targets.check(`${name}: with auto / Zarr spec alone`, m.auto / m.zarr, "<=", 2);
}
console.log(table(["hierarchy", "nodes", "Zarr (ms)", "+convention", "+auto", "ratio", "auto ratio"], rows));
let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.specs = section;
targets.save(results);
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
targets.print();
