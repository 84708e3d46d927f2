// zarrita.js's own tests, run against zom/zarrita: the test files its npm package ships
// (zarrita 0.7.5, pinned in tests/zarrita-suite/package-lock.json, MIT; installed by
// `node scripts/setup.mjs --suites`, which npm test runs) are laid out as in
// zarrita's repository (tests/zarrita-suite/work/packages/zarrita/__tests__/, fixtures/ beside
// packages/), and vitest runs them with every import of zarrita's source answered by
// tests/zarrita-suite/shim/, which re-exports zom/zarrita (tests/zarrita-suite/vitest.config.mjs).
// The fixtures are written by tests/fixtures/zarrita/generate_v{2,3}.py with zarr-python.
//
// Each of zarrita's tests becomes one test here: it must pass, except those listed in
// NOT_APPLICABLE with the reason; a listed test that passes fails here too (the list is stale).
//
//   node --test --test-reporter=spec tests/js/zarrita-suite.test.mjs
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

const suiteDir = join(repoRoot, "tests", "zarrita-suite");
const workDir = join(suiteDir, "work");
const RUN_TIMEOUT_MS = 300_000;

/**
 * zarrita's test files that read through its public API. Not run: zarrita's internals (codecs,
 * indexer, setter, util, typedarray, bytes, json2, delta, scale_offset, cast_value, transpose,
 * indexing/{indexer,slice,set,setter,util,contiguous-copy,selection-property,
 * transposed-integer-index}), writing (create, shared-array-buffer: every test creates an
 * array), and the type-level tests (errors, hierarchy, extension-types, get-types), which need
 * `tintype`, a tool of zarrita's repository that is not published.
 */
const SUITES = [
  ["zarrita", "open.test.js"],
  ["zarrita", "consolidated.test.js"],
  ["zarrita", "indexing/get.test.js"],
  ["zarrita", "signal.test.js"],
  ["zarrita", "array-extension.test.js"],
  ["zarrita", "caching.test.js"],
  ["zarrita", "range-coalescing.test.js"],
  ["zarrita", "public-api.test.js"],
];

const PRIORITY =
  "spies on zarrita's internal fallback between open.v2 and open.v3 (which format to try first, learned from earlier opens): " +
  "zom/zarrita's open asks zom's core, which reads a node's documents in one pass and never calls open.v2 or open.v3";

/**
 * zarrita's tests that cannot apply to zom/zarrita, by full name (describe blocks and test name
 * joined by " "), with the reason.
 */
const NOT_APPLICABLE = new Map([
  ["open (v2 vs v3 priority) prioritizes v2 by default", PRIORITY],
  ["open (v2 vs v3 priority) prioritizes v3 after opening v3 more times", PRIORITY],
  ["open (v2 vs v3 priority) switches back to prioritizing v2 after opening v2 more times", PRIORITY],
  [
    "v3 1d.contiguous.f2 without Float16Array 1d.contiguous.f2.le",
    "expects float16 to be refused where the engine has no Float16Array: zom/zarrita reads it, as a Float32Array",
  ],
  [
    "defineArrayExtension works with zarr.get through the interception chain",
    "zom/zarrita's get reads through zom's core (one read plan, the decode pool), not through getChunk: an array extension changes what getChunk answers only",
  ],
  ["zarr.set cancels on signal aborting signal rejects a pending zarr.set", "writes (zarr.create, zarr.set): zom/zarrita reads only"],
  ["withRangeCoalescing onFlush callback emits one report per path per flush", "the onFlush observability hook is not offered"],
  ["withRangeCoalescing onFlush callback swallows errors thrown from the callback", "the onFlush observability hook is not offered"],
  [
    "withRangeCoalescing signal merging merges caller signals via AbortSignal.any across a batch",
    "zom aborts a merged read when every caller has aborted, not when any has: one cancelled tile does not fail its neighbours",
  ],
  [
    "public API surface",
    "the exact list of names: zom/zarrita also exports the names of zarrita 0.6 that libraries built on it still import " +
      "(withConsolidated, tryWithConsolidated, _zarrita_internal_get_strides, _zarrita_internal_slice_indices, KeyError, " +
      "NodeNotFoundError, IndexError); tests/js/current.test.mjs checks that no name of 0.7.5 or 0.6.2 is missing",
  ],
]);

/** work/ anew: zarrita's test files where its repository has them, the fixtures beside. */
function layOut() {
  rmSync(workDir, { recursive: true, force: true });
  for (const [pkg, file] of SUITES) {
    const from = join(suiteDir, "node_modules", pkg === "zarrita" ? "zarrita" : `@zarrita/${pkg}`, "dist", "__tests__", file);
    const to = join(workDir, "packages", pkg, "__tests__", file);
    mkdirSync(join(to, ".."), { recursive: true });
    cpSync(from, to);
  }
  symlinkSync(join(repoRoot, "tests", "fixtures", "zarrita"), join(workDir, "fixtures"), "dir");
}

/** vitest's JSON report of the laid-out suites. */
function runVitest() {
  const report = join(workDir, "report.json");
  const vitest = join(suiteDir, "node_modules", "vitest", "vitest.mjs");
  const r = spawnSync(process.execPath, [vitest, "run", "--config", "vitest.config.mjs", "--reporter=json", `--outputFile=${report}`], {
    cwd: suiteDir,
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  if (!existsSync(report)) {
    throw new Error(`vitest wrote no report (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`.slice(0, 8000));
  }
  return JSON.parse(readFileSync(report, "utf8"));
}

layOut();
const report = runVitest();

test("vitest loaded every suite", () => {
  const broken = report.testResults.filter((f) => f.assertionResults.length === 0);
  assert.deepEqual(
    broken.map((f) => `${f.name}: ${f.message}`),
    [],
  );
  assert.equal(report.testResults.length, SUITES.length);
});

const seen = new Set();
for (const file of report.testResults) {
  const name = file.name.slice(join(workDir, "packages").length + 1);
  for (const t of file.assertionResults) {
    const full = [...t.ancestorTitles, t.title].join(" ");
    seen.add(full);
    const reason = NOT_APPLICABLE.get(full);
    const skip = ["skipped", "pending", "todo"].includes(t.status) ? "skipped in zarrita's own suite" : false;
    test(`${name} › ${full}`, { skip }, () => {
      if (reason !== undefined) {
        assert.notEqual(t.status, "passed", `listed as not applicable (${reason}) but passes: take it off the list`);
        return;
      }
      assert.equal(t.status, "passed", (t.failureMessages ?? []).join("\n").slice(0, 4000));
    });
  }
}

test("every test listed as not applicable still exists", () => {
  assert.deepEqual(
    [...NOT_APPLICABLE.keys()].filter((k) => !seen.has(k)),
    [],
  );
});
