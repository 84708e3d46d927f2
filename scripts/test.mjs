// `npm test`: installs what is missing, then runs every check in order and stops at the first
// failure. Ends with one summary line: "summary: N passed, N failed" (tests counted from the
// cargo and node test runners' own closing lines).
//
//   npm test                     # everything
//   npm test -- build js browser # setup, then only the steps whose names contain these words
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { startServer } from "../tests/server/server.mjs";
import { build } from "./build.mjs";
import { CODEC_PARTS, PARTS, root, StepError, seconds } from "./lib.mjs";
import { CHROMEDRIVER, PYTHON, setup } from "./setup.mjs";

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

/**
 * The Rust tests of store::HttpStore in headless Chromium (tests/wasm_browser.rs): starts one
 * fixture server per behaviour the tests need and passes their URLs to the test build as
 * compile-time environment variables; wasm-bindgen-test-runner drives Chromium through
 * chromedriver with the arguments in webdriver.json.
 */
async function rustInChromium() {
  const modes = {
    ZOM_TEST_SERVER: { s3Listing: true },
    ZOM_TEST_SERVER_NO_RANGES: { ignoreRange: true },
    ZOM_TEST_SERVER_NO_SUFFIX_400: { refuseSuffix: 400 },
    ZOM_TEST_SERVER_NO_SUFFIX_416: { refuseSuffix: 416 },
    ZOM_TEST_SERVER_403: { forbiddenForMissing: true },
    ZOM_TEST_SERVER_BAD_RANGE: { wrongContentRange: true },
  };
  const servers = [];
  try {
    const env = {
      CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: "wasm-bindgen-test-runner",
      CHROMEDRIVER,
      WASM_BINDGEN_TEST_WEBDRIVER_JSON: join(root, "webdriver.json"),
    };
    for (const [name, mode] of Object.entries(modes)) {
      const server = await startServer({ root: join(root, "tests", "fixtures"), ...mode });
      servers.push(server);
      env[name] = server.url;
    }
    await runTests("cargo", ["test", "--target", "wasm32-unknown-unknown", "--test", "wasm_browser"], env);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

const tsc = join(root, "node_modules", ".bin", "tsc");
/**
 * node --test with a bound on every test that sets none of its own, so that a hung read fails
 * its test rather than hanging CI: several times the slowest test's time on a loaded machine.
 */
const nodeTest = (timeoutMs) => ["--test", "--test-reporter=spec", `--test-timeout=${timeoutMs}`];

const steps = [
  ["setup", () => setup({ browser: true, python: true, suites: true })],
  ["cargo fmt", () => runTests("cargo", ["fmt", "--check"])],
  // The TypeScript and the JavaScript of scripts/, bench/, tests/ and bin/ (biome.jsonc): formatted
  // and linted; `node_modules/.bin/biome check --write .` applies the formatting and the safe fixes.
  ["biome (format and lint)", () => runTests(join(root, "node_modules", ".bin", "biome"), ["ci", "."])],
  ["cargo clippy", () => runTests("cargo", ["clippy", "--all-targets", "--", "-D", "warnings"])],
  [
    // Each part as scripts/build.mjs builds it: its features, without the embedded built-in specs.
    "cargo clippy (wasm32, shipped parts)",
    async () => {
      for (const part of PARTS) {
        await runTests("cargo", [
          "clippy",
          "--target",
          "wasm32-unknown-unknown",
          "--lib",
          "--no-default-features",
          "--features",
          part.features.join(","),
          "--",
          "-D",
          "warnings",
        ]);
      }
      // The codec parts: kernels/parts with each part's features and its exports.
      for (const part of CODEC_PARTS) {
        await runTests("cargo", [
          "clippy",
          "-p",
          "zom-parts",
          "--target",
          "wasm32-unknown-unknown",
          "--lib",
          "--no-default-features",
          "--features",
          ["export", ...part.features].join(","),
          "--",
          "-D",
          "warnings",
        ]);
      }
    },
  ],
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
        "--test",
        "wasm_browser",
        "--",
        "-D",
        "warnings",
      ]),
  ],
  ["cargo test", () => runTests("cargo", ["test"])],
  // Chunk encoding is a feature the WebAssembly build leaves off: lint and test it on its own.
  [
    "cargo test (encode feature)",
    async () => {
      await runTests("cargo", ["clippy", "--all-targets", "--features", "encode", "--", "-D", "warnings"]);
      await runTests("cargo", ["test", "--features", "encode", "--test", "codec_encode"], { ZOM_PYTHON: PYTHON });
    },
  ],
  [
    "rust tests in wasm (node)",
    () =>
      runTests("cargo", ["test", "--target", "wasm32-unknown-unknown", "--test", "wasm_node", "--test", "codec_shuffle"], {
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: "wasm-bindgen-test-runner",
      }),
  ],
  ["rust tests in wasm (chromium)", rustInChromium],
  ["build", () => build()],
  [
    "tsc --strict --noEmit",
    async () => {
      await runTests(tsc, ["-p", "tsconfig.json", "--noEmit", "--strict"]);
      await runTests(tsc, ["-p", "tests/js/tsconfig.json", "--noEmit", "--strict"]);
    },
  ],
  // Two files at a time: many of them wait on servers and simulated latency rather than compute.
  ["js tests (node)", () => runTests(process.execPath, [...nodeTest(120_000), "--test-concurrency=2", ...testFiles("tests/js")])],
  // Chromium for all of them; engines.test.mjs also runs the explorer and pool journeys in
  // Firefox ESR and WebKit (tests/browser/engines.mjs, docs/browsers.md).
  ["browser tests (chromium, firefox, webkit)", () => runTests(process.execPath, [...nodeTest(300_000), ...testFiles("tests/browser")])],
  // npm pack, the tarball installed into one app per bundler (and Node ESM, CommonJS, a user's
  // worker), each built for production and checked in Chromium or Node (tests/apps/).
  ["apps (bundlers)", () => runTests(process.execPath, [...nodeTest(600_000), "tests/apps/apps.test.mjs"])],
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
