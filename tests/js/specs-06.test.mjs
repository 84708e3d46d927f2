// The OME-Zarr 0.6 built-in through the built package: the fixtures of
// tests/fixtures/conventions-0.6 walked from their folders, checked by `ome-zarr-0.6`,
// `ome-zarr` and `auto` (the Rust side, tests/specs_06.rs, checks every case of cases.json);
// the spec's text from builtinSpec; `zom validate --verdict`'s exit codes.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { FsStore } from "zom/fs";
import { builtinSpec, detectConventions, validateHierarchy, walk } from "zom/validate";
import { fixtures, readJson, repoRoot, zom } from "./helpers.mjs";

const root = join(fixtures, "conventions-0.6");
const cases = readJson("conventions-0.6", "cases.json");
const show = (problems) => problems.map((p) => `${p.path} ${JSON.stringify(p.loc)} ${p.message} [${p.spec} ${p.rule}]`).join("\n");

test("ome-zarr-0.6 is a built-in, shipped beside the module", () => {
  const spec = builtinSpec("ome-zarr-0.6");
  assert.equal(spec.name, "ome-zarr-0.6");
  assert.match(spec.description, /NOT checked/);
});

test("every 0.6 case gets cases.json's verdict under ome-zarr-0.6, ome-zarr and auto", async () => {
  for (const c of cases) {
    const zom = await walk(new FsStore(join(root, c.dir)));
    for (const specs of ["ome-zarr-0.6", "ome-zarr", "auto"]) {
      const report = validateHierarchy(zom, { specs });
      assert.equal(report.valid, c.expect_valid, `${c.name} (${specs}):\n${show(report.problems)}`);
    }
    if (c.expected_problem?.rule) {
      const report = validateHierarchy(zom, { specs: "ome-zarr-0.6", strict: true });
      assert.ok(
        report.problems.some((p) => p.path === c.expected_problem.path && p.rule === c.expected_problem.rule),
        `${c.name}: no ${c.expected_problem.rule} at ${c.expected_problem.path}:\n${show(report.problems)}`,
      );
    }
  }
  const claims = detectConventions(await walk(new FsStore(join(root, "ome-0.6-scene"))));
  assert.deepEqual(
    claims.map((d) => `${d.spec} ${d.claim}@${d.path}`),
    ["ome-zarr-0.6 scene@", "ome-zarr-0.6 image@crop", "ome-zarr-0.6 image@volume"],
  );
});

test("zom validate --verdict: exit 0 with a verdict, valid or not; 2 when it cannot run", async () => {
  const dir = (name) => relative(repoRoot, join(root, name));
  const args = ["--spec", "ome-zarr-0.6", "--json", "--verdict"];
  const ok = await zom("validate", dir("ome-0.6-image"), ...args);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).valid, true);
  const bad = await zom("validate", dir("mutated/plate-well-missing"), ...args);
  assert.equal(bad.code, 0, bad.stderr);
  assert.equal(JSON.parse(bad.stdout).valid, false);
  assert.equal((await zom("validate", dir("mutated/plate-well-missing"), "--spec", "ome-zarr-0.6")).code, 1, "without --verdict");
  const tmp = mkdtempSync(join(tmpdir(), "zom-verdict-"));
  try {
    // A root whose zarr.json is not JSON: a verdict (invalid), not a failure to run.
    mkdirSync(join(tmp, "broken"));
    writeFileSync(
      join(tmp, "broken", "zarr.json"),
      '{"zarr_format": 3, "node_type": "group", "attributes": {"ome": {"version": "0.6rc0\n}}}',
    );
    const broken = await zom("validate", join(tmp, "broken"), ...args);
    assert.equal(broken.code, 0, broken.stderr);
    assert.equal(JSON.parse(broken.stdout).valid, false);
    assert.equal(JSON.parse(broken.stdout).unreadable[0].code, "InvalidMetadata");
    assert.equal((await zom("validate", join(tmp, "broken"), "--spec", "ome-zarr-0.6")).code, 2, "without --verdict");
    assert.equal((await zom("validate", join(tmp, "nothing-here"), ...args)).code, 2, "no target");
    assert.equal((await zom("validate", dir("ome-0.6-image"), "--spec", join(tmp, "no-spec.json"), "--verdict")).code, 2, "no spec file");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("zom validate --attributes: a group's attributes alone, by its own version or the one asked for", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "zom-attributes-"));
  try {
    const image = JSON.parse(readFileSync(join(root, "ome-0.6-image", "zarr.json"), "utf8")).attributes;
    const file = (name, attrs) => {
      const path = join(tmp, `${name}.json`);
      writeFileSync(path, JSON.stringify(attrs));
      return path;
    };
    const good = await zom("validate", "--attributes", file("good", image), "--json");
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.equal(JSON.parse(good.stdout).valid, true);
    // The dataset paths name no arrays here: not a problem, there are no nodes to look in.
    const duplicate = structuredClone(image);
    duplicate.ome.multiscales[0].coordinateSystems[0].axes[2].name = "y";
    const bad = await zom("validate", "--attributes", file("duplicate", duplicate), "--spec", "ome-zarr", "--json");
    assert.equal(bad.code, 1);
    assert.deepEqual(
      JSON.parse(bad.stdout).problems.map((p) => [p.spec, p.rule]),
      [["ome-zarr-0.6", "unique-axis-names"]],
    );
    assert.equal((await zom("validate", "--attributes", file("duplicate", duplicate), "--verdict")).code, 0, "--verdict");
    const text = await zom("validate", "--attributes", file("duplicate", duplicate));
    assert.match(text.stdout, /INVALID: the attributes of .*duplicate\.json, 1 error, 0 warnings/);
    assert.equal((await zom("validate", "--attributes", join(tmp, "absent.json"))).code, 2, "no file");
    assert.equal((await zom("validate", "--attributes", file("good", image), "--include", "attributes")).code, 2, "usage");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
