// `npm test`: installs what is missing, then runs every check in order and stops at the first
// failure. Ends with one summary line: "summary: N passed, N failed" (tests counted from the
// cargo and node test runners' own closing lines).
//
//   npm test                     # everything
//   npm test -- build js browser # setup, then only the steps whose names contain these words
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "./build.mjs";
import { root, seconds, StepError } from "./lib.mjs";
import { setup } from "./setup.mjs";

const testFiles = (dir) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith(".test.mjs"))
    .sort()
    .map((f) => relative(root, join(root, dir, f)));

const counts = { passed: 0, failed: 0, skipped: 0 };

/** Adds the counts a test runner printed to the totals. */
function tally(output) {
  // cargo test and wasm-bindgen-test-runner: "test result: ok. 3 passed; 0 failed; 1 ignored; …"
  for (const m of output.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)) {
    counts.passed += Number(m[1]);
    counts.failed += Number(m[2]);
    counts.skipped += Number(m[3]);
  }
  // node --test, spec reporter: "ℹ pass 12" / "ℹ fail 0" / "ℹ skipped 0" / "ℹ todo 0"
  for (const [re, key] of [
    [/^ℹ pass (\d+)$/gm, "passed"],
    [/^ℹ fail (\d+)$/gm, "failed"],
    [/^ℹ skipped (\d+)$/gm, "skipped"],
    [/^ℹ todo (\d+)$/gm, "skipped"],
  ]) {
    for (const m of output.matchAll(re)) counts[key] += Number(m[1]);
  }
}

/** Runs a command, echoing its output as it comes, and tallies the tests it reports. */
function runTests(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      process.stdout.write(d);
      out += d;
    });
    child.stderr.on("data", (d) => {
      process.stderr.write(d);
      out += d;
    });
    child.on("error", (e) => reject(new StepError(`${cmd}: ${e.message}`)));
    child.on("close", (code, signal) => {
      tally(out);
      if (code === 0) resolve();
      else reject(new StepError(`\`${[cmd, ...args].join(" ")}\` failed (${signal ? `signal ${signal}` : `exit code ${code}`})`));
    });
  });
}

const tsc = join(root, "node_modules", ".bin", "tsc");
const nodeTest = ["--test", "--test-reporter=spec"];

const steps = [
  ["setup", () => setup({ browser: true })],
  ["cargo fmt", () => runTests("cargo", ["fmt", "--check"])],
  ["cargo clippy", () => runTests("cargo", ["clippy", "--all-targets", "--", "-D", "warnings"])],
  [
    "cargo clippy (wasm32)",
    () =>
      runTests("cargo", [
        "clippy",
        "--target",
        "wasm32-unknown-unknown",
        "--lib",
        "--test",
        "wasm_node",
        "--",
        "-D",
        "warnings",
      ]),
  ],
  ["cargo test", () => runTests("cargo", ["test"])],
  [
    "rust tests in wasm (node)",
    () =>
      runTests("cargo", ["test", "--target", "wasm32-unknown-unknown", "--test", "wasm_node"], {
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: "wasm-bindgen-test-runner",
      }),
  ],
  ["build", () => build()],
  [
    "tsc --strict --noEmit",
    async () => {
      await runTests(tsc, ["-p", "tsconfig.json", "--noEmit", "--strict"]);
      await runTests(tsc, ["-p", "tests/js/tsconfig.json", "--noEmit", "--strict"]);
    },
  ],
  ["js tests (node)", () => runTests(process.execPath, [...nodeTest, ...testFiles("tests/js")])],
  ["browser test (chromium)", () => runTests(process.execPath, [...nodeTest, ...testFiles("tests/browser")])],
];

const only = process.argv.slice(2);
const selected = steps.filter(([name], i) => i === 0 || only.length === 0 || only.some((w) => name.includes(w)));

const t0 = performance.now();
const timings = [];
let failure = null;
for (const [name, fn] of selected) {
  console.log(`\n=== ${name} ===`);
  const t = performance.now();
  try {
    await fn();
  } catch (e) {
    failure = { name, message: e instanceof StepError ? e.message : String(e?.stack ?? e) };
  }
  timings.push([name, performance.now() - t]);
  if (failure) break;
}

console.log("\n=== timings ===");
for (const [name, ms] of timings) console.log(`${seconds(ms).padStart(8)}  ${name}`);
console.log(`${seconds(performance.now() - t0).padStart(8)}  total`);
if (failure) {
  console.error(`\nnpm test FAILED at step "${failure.name}": ${failure.message}`);
  counts.failed = Math.max(counts.failed, 1);
}
console.log(`summary: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(failure ? 1 : 0);
