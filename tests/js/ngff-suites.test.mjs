// The NGFF specification's test suites (tests/js/ngff-harness.mjs) against the built-in
// OME-Zarr specs. The suites come from the ome/ngff-spec repository, which this project cannot
// fetch (only package registries are reachable, and none carries them): they are read from
// tests/fixtures/ngff-suites/<version>/, ../shared/ngff-suites/<version>/ (or ZOM_NGFF_SUITES) when present, and the test says
// why it skips otherwise.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixtures, repoRoot } from "./helpers.mjs";
import { DISAGREEMENTS, runSuites } from "./ngff-harness.mjs";

// Where the suites may be: asked for, in the fixtures, or beside the repository in the steering
// repository's shared/ (where material from outside the registries may be put).
const dir =
  process.env.ZOM_NGFF_SUITES ??
  [join(fixtures, "ngff-suites"), join(repoRoot, "..", "shared", "ngff-suites")].find((d) => existsSync(d)) ??
  join(fixtures, "ngff-suites");

test("the NGFF 0.4 and 0.5 test suites: every case as the spec says, but where a case contradicts the spec text", {
  skip: existsSync(dir) ? false : `no suites at ${dir}`,
}, (t) => {
  const results = runSuites(dir);
  const wrong = results.filter((r) => r.valid !== r.expected);
  const unexplained = wrong.filter((r) => !(r.id in DISAGREEMENTS));
  t.diagnostic(
    `${results.length - wrong.length} of ${results.length} cases as the suites say; ${wrong.length - unexplained.length} where zom follows the spec text`,
  );
  assert.deepEqual(
    unexplained.map(
      (r) => `${r.id}: expected ${r.expected ? "valid" : "invalid"}${r.problems.length ? ` (${r.problems.join(" | ")})` : ""}`,
    ),
    [],
  );
  assert.ok(results.length >= 178, `${results.length} cases`);
});
