// Hierarchy specs through the built package: the OME-Zarr and xarray fixtures written by
// ome-zarr-py and xarray (tests/fixtures/conventions) walked from their folders and over HTTP,
// validated with `specs`, their claims detected, their mutated copies failing at the place
// cases.json names; specs of one's own as objects and text; the built-in specs follow the
// format's JSON Schema (checked by ajv); `zom validate --spec` for conventions and spec files.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { FetchStore, ZomError } from "zom";
import { FsStore } from "zom/fs";
import { builtinSpec, detectConventions, specSchema, validateAttributes, validateHierarchy, walk } from "zom/validate";
import { withServer } from "../server/testing.mjs";
import { fixtures, readJson, repoRoot, zom } from "./helpers.mjs";

const conventions = join(fixtures, "conventions");
const cases = readJson("conventions", "cases.json");
const errors = (report) => report.problems.filter((p) => p.severity === "error");
const show = (problems) => problems.map((p) => `${p.path} ${JSON.stringify(p.loc)} ${p.message} [${p.spec} ${p.rule}]`).join("\n");

async function walked(dir) {
  const result = await walk(new FsStore(join(conventions, dir)));
  return result;
}

test("every valid fixture passes its convention and auto; what each claims", async () => {
  for (const c of cases.filter((c) => c.expect_valid)) {
    const zom = await walked(c.dir);
    assert.deepEqual(zom.errors, [], c.name);
    for (const specs of ["auto", c.convention, [c.convention]]) {
      const report = validateHierarchy(zom, { specs });
      assert.equal(report.valid, true, `${c.name} ${specs}: ${show(report.problems)}`);
    }
    const claims = detectConventions(zom);
    assert.ok(claims.length > 0, c.name);
    assert.ok(
      claims.every((d) => d.convention === c.convention),
      `${c.name}: ${JSON.stringify(claims)}`,
    );
    assert.equal(claims[0].path, "", c.name);
  }
  const image = detectConventions(await walked("ome-0.5-image"));
  assert.deepEqual(image, [
    { convention: "ome-zarr", spec: "ome-zarr-0.5", version: "0.5", claim: "image", path: "" },
    { convention: "ome-zarr", spec: "ome-zarr-0.5", version: "0.5", claim: "image", path: "labels/cells" },
  ]);
});

test("every mutated copy fails at the place cases.json names, with the spec and rule", async () => {
  let checked = 0;
  for (const c of cases.filter((c) => !c.expect_valid && c.expected_problem)) {
    const zom = await walked(c.dir);
    // A copy zom cannot read at all (invalid Zarr metadata) fails in the walk instead.
    if (zom.errors.length > 0) continue;
    const report = validateHierarchy(zom, { specs: "auto" });
    assert.equal(report.valid, false, c.name);
    const { path, loc } = c.expected_problem;
    const hit = errors(report).find((p) => p.path === path && JSON.stringify(p.loc.slice(0, loc.length)) === JSON.stringify(loc));
    assert.ok(hit, `${c.name}: nothing at ${path} ${JSON.stringify(loc)}:\n${show(report.problems)}`);
    if (hit.spec !== undefined) {
      assert.ok(hit.spec.startsWith(c.convention), `${c.name}: ${hit.spec}`);
      assert.equal(typeof hit.rule, "string");
    }
    checked++;
  }
  assert.ok(checked >= 25, `${checked} mutated cases checked`);
});

test("specs of one's own, as objects and JSON text; bad ones throw InvalidArgument", async () => {
  const zom = await walked("xarray-v3");
  const spec = {
    zom_spec: 1,
    name: "has-temperature",
    root: { kind: "group", members: { temperature: { node: { array: { properties: { data_type: { enum: ["float32", "float64"] } } } } } } },
  };
  assert.equal(validateHierarchy(zom, { specs: spec }).valid, true);
  assert.equal(validateHierarchy(zom, { specs: [JSON.stringify(spec), "xarray"] }).valid, true);
  const wrong = { ...spec, name: "needs-salinity", root: { members: { salinity: {} } } };
  const report = validateHierarchy(zom, { specs: [wrong] });
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.problems.map((p) => [p.path, p.loc, p.kind, p.spec, p.rule]),
    [["", ["members", "salinity"], "missing_key", "needs-salinity", "/root/members/salinity"]],
  );
  for (const bad of [{ zom_spec: 1, name: "x", root: { kind: "folder" } }, { zarr_format: 3 }, "ome", "no-such-convention"]) {
    assert.throws(
      () => validateHierarchy(zom, { specs: bad }),
      (e) => e instanceof ZomError && e.code === "InvalidArgument",
      JSON.stringify(bad),
    );
  }
  // A convention asked for by name must be claimed.
  const notOme = validateHierarchy(zom, { specs: "ome-zarr" });
  assert.equal(notOme.valid, false);
  assert.match(notOme.problems[0].message, /no node of the hierarchy claims ome-zarr/);
});

test("a group's attributes alone: their schemas and list rules, not the nodes they name", () => {
  const image = readJson("conventions", "ome-0.5-image", "zarr.json").attributes;
  assert.deepEqual(validateAttributes(image, { specs: "auto" }), { valid: true, problems: [] });
  assert.deepEqual(validateAttributes(JSON.stringify(image), { specs: "ome-zarr-0.5" }).valid, true);
  // A dataset path that names nothing is not a problem here: there are no nodes to look in.
  const renamed = structuredClone(image);
  renamed.ome.multiscales[0].datasets[1].path = "elsewhere";
  assert.equal(validateAttributes(renamed, { specs: "auto" }).valid, true);
  const duplicate = structuredClone(image);
  duplicate.ome.multiscales[0].axes[2].name = "y";
  const report = validateAttributes(duplicate, { specs: "auto" });
  assert.deepEqual(
    report.problems.map((p) => [p.path, p.loc.join("/"), p.spec, p.rule]),
    [["", "attributes/ome/multiscales/0/axes/2/name", "ome-zarr-0.5", "unique-axis-names"]],
  );
  // 0.4 attributes (no "ome") are read as a Zarr 2 group's; strict mode adds the SHOULDs.
  const v04 = readJson("conventions", "ome-0.4-image", ".zattrs");
  const before = validateAttributes(v04, { specs: "ome-zarr", strict: true });
  assert.equal(before.valid, true);
  delete v04.multiscales[0].name;
  const strict = validateAttributes(v04, { specs: "ome-zarr", strict: true });
  const added = strict.problems.filter((p) => !before.problems.some((q) => q.message === p.message));
  assert.deepEqual(
    added.map((p) => [p.severity, p.spec, p.loc.join("/")]),
    [["warning", "ome-zarr-0.4", "attributes/multiscales/0/name"]],
  );
  assert.deepEqual(validateAttributes(v04, { specs: "ome-zarr" }).problems, []);
  // What no spec claims, asked for by name; and what is not an object.
  assert.match(validateAttributes({ foo: 1 }, { specs: "ome-zarr" }).problems[0].message, /no node of the hierarchy claims ome-zarr/);
  assert.deepEqual(
    validateAttributes([1], { specs: "auto" }).problems.map((p) => p.kind),
    ["invalid_type"],
  );
});

test("the built-in specs follow the spec format's JSON Schema", () => {
  const ajv = new Ajv2020({ strict: false });
  const validate = ajv.compile(specSchema());
  for (const name of ["ome-zarr-0.4", "ome-zarr-0.5", "xarray"]) {
    const spec = builtinSpec(name);
    assert.equal(spec.name, name);
    assert.ok(validate(spec), `${name}: ${JSON.stringify(validate.errors)}`);
  }
  assert.equal(validate({ zom_spec: 1, name: "x" }), false, "needs root or claims");
  assert.throws(() => builtinSpec("ome"), ZomError);
});

test("over HTTP: an OME-Zarr plate walked from the fixture server validates and claims its wells", async () => {
  await withServer({ s3Listing: true }, async (server) => {
    const zom = await walk(new FetchStore(`${server.url}/conventions/ome-0.5-plate`));
    assert.deepEqual(zom.errors, []);
    assert.equal(validateHierarchy(zom, { specs: "ome-zarr" }).valid, true);
    const claims = detectConventions(zom).map((d) => `${d.claim}@${d.path}`);
    assert.ok(claims.includes("plate@") && claims.includes("well@A/1") && claims.includes("image@A/1/0"), claims.join(" "));
  });
});

// ---------- the command line ----------

const dir = (name) => relative(repoRoot, join(conventions, name));

test("zom validate --spec ome-zarr|xarray|auto|FILE: exit 0 when it conforms, 1 when not", async () => {
  const ok = await zom("validate", dir("ome-0.4-image"), "--spec", "ome-zarr");
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /^conventions: ome-zarr-0.4: image 2$/m);
  const auto = await zom("validate", dir("xarray-v2"), "--spec", "auto", "--json");
  assert.equal(auto.code, 0, auto.stdout + auto.stderr);
  assert.deepEqual(
    JSON.parse(auto.stdout).conventions.map((d) => d.spec),
    ["xarray"],
  );
  const bad = await zom("validate", dir("mutated/ome-0.5-axes-rank"), "--spec", "ome-zarr");
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /error invalid_value at \/ attributes\.ome\.multiscales\[0\]\.axes: .* \[ome-zarr-0\.5 dataset-arrays\]/);
  const wrong = await zom("validate", dir("xarray-v3"), "--spec", "ome-zarr");
  assert.equal(wrong.code, 1, "not claimed");
  const tmp = mkdtempSync(join(tmpdir(), "zom-spec-"));
  try {
    const file = join(tmp, "spec.json");
    writeFileSync(
      file,
      JSON.stringify({ zom_spec: 1, name: "two-levels", root: { member_patterns: [{ pattern: "^s[0-9]+$", kind: "array", min: 4 }] } }),
    );
    const own = await zom("validate", dir("ome-0.4-image"), "--spec", file);
    assert.equal(own.code, 1, own.stdout + own.stderr);
    assert.match(own.stdout, /needs at least 4 members matching/);
    assert.equal(
      (await zom("validate", dir("ome-0.4-image"), "--spec", "ome-zarr", "--exclude", "attributes")).code,
      2,
      "--exclude is for expected ZOMs",
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
