// zom as a dependency of real apps, with zero zom-specific configuration (and the zarrita
// apps: a zarrita viewer's code with one alias sending "zarrita" to "zom/zarrita"): packs the package
// (`npm pack`, pkg/ must be built), installs the tarball into tests/apps (one shared
// node_modules, `npm install --no-save`: the committed package.json and lock stay as they are),
// builds one minimal app per setup for production, serves it with tests/fixtures at /data/
// and checks, in headless Chromium or in Node, that it reads zarr-python's values of the
// sample hierarchy with the decode pool's workers, and arrays whose decoders are codec parts
// (loaded on first use from files the bundler split off), printing no warning or error. Each build's
// output is read too: a bundler warning that concerns zom fails the app; the others are
// printed for a human to judge. Ends with a table (also written to test-output/apps.json):
// setup, whether it built, the configuration it needed, values, read time, pool, shipped size.
// Each build's stdout and stderr are kept in test-output/apps/<app>.<script>.log.
//
//   node --test --test-reporter=spec tests/apps/apps.test.mjs
//   ZOM_APPS_TARBALL=/path/zom-x.y.z.tgz node --test …   # install that tarball instead of packing
//
// The apps' devDependencies (vite, webpack, rollup, parcel, esbuild) are installed with
// `npm ci` when tests/apps/node_modules is older than tests/apps/package-lock.json.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { gzipSync } from "node:zlib";
import { launchChromium } from "../browser/chromium.mjs";
import { unplain } from "../browser/plain.mjs";
import { readJson, repoRoot } from "../js/helpers.mjs";
import { elements, sameValues } from "../js/hierarchy-common.mjs";
import { startServer } from "../server/server.mjs";

const appsDir = dirname(fileURLToPath(import.meta.url));
const fixturesDir = join(repoRoot, "tests", "fixtures");
const packDir = join(appsDir, ".pack");
const outputDir = join(repoRoot, "test-output");

const BUILD_TIMEOUT_MS = 180_000;
const DEV_START_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 600_000;
const NODE_TIMEOUT_MS = 30_000;
const PAGE_LOAD_TIMEOUT_MS = 30_000;
/** How long a page may take from its load event to its result: a hang fails. */
const READ_TIMEOUT_MS = 10_000;

/**
 * The apps. browser: the directory served at / (relative to the app) and the page's path;
 * output: the built files whose gzipped sizes are summed (null: the files the page fetched);
 * node: the script run with the data URL as its argument; ssr: also `npm run build:ssr` and its
 * bundle run in Node without window/document; dev: also its dev server (`npm run dev`), which
 * pre-bundles dependencies its own way; config: what the app had to configure.
 */
const APPS = [
  { name: "vite", browser: { root: "dist", page: "/" }, output: "dist", config: "none (no vite.config)", ssr: true, dev: true },
  { name: "webpack", browser: { root: ".", page: "/" }, output: "dist", config: "none (no webpack.config)" },
  { name: "esbuild", browser: { root: ".", page: "/" }, output: "dist", config: "none (CLI defaults: iife)" },
  {
    name: "rollup",
    browser: { root: ".", page: "/" },
    output: "dist",
    config: "rollup.config.mjs: node-resolve {browser} + terser, output.dir (the codec parts are chunks)",
  },
  { name: "parcel", browser: { root: "dist", page: "/" }, output: "dist", config: "none (no .parcelrc)" },
  {
    name: "importmap",
    browser: { root: "../..", page: "/apps/importmap/dist/" },
    output: null,
    config: "import map (from package.json exports)",
  },
  { name: "node-esm", node: "script.mjs", config: "none" },
  { name: "node-cjs", node: "script.cjs", config: "none" },
  { name: "worker", browser: { root: "dist", page: "/" }, output: "dist", config: "none (no vite.config)" },
  // A zarrita viewer's code with "zarrita" sent to "zom/zarrita": the one-line migration.
  {
    name: "vite-zarrita",
    browser: { root: "dist", page: "/" },
    output: "dist",
    config: 'vite.config.js: resolve.alias { zarrita: "zom/zarrita" }',
  },
  {
    name: "webpack-zarrita",
    browser: { root: ".", page: "/" },
    output: "dist",
    config: 'webpack.config.js: resolve.alias { zarrita$: "zom/zarrita" }',
  },
  {
    name: "importmap-zarrita",
    browser: { root: "../..", page: "/apps/importmap-zarrita/dist/" },
    output: null,
    config: 'import map { zarrita: zom\'s "./zarrita" entry }',
  },
];

/** A warning that concerns zom (any of these in its text) fails the app's build. */
const ZOM_WARNING =
  /node_modules[\\/]+zom\b|\bzom\b|dynamic import|import\(|\beval\b|top-level await|\bTLA\b|externalized for browser compatibility|critical dependency|import\.meta|new URL|\bnode:[a-z_]+|\bworker\b|wasm/i;
/** Generic size advisories: printed, not failures (even where they name zom's files). */
const SIZE_ADVISORY =
  /larger than \d+ ?[km]i?b|exceed(s|ed)? the recommended (size )?limit|entrypoint size limit|chunkSizeWarningLimit|performance recommendations|bundle size|asset size limit|webpack performance/i;

/** A bundler's closing summary line, not a diagnostic of its own. */
const SUMMARY =
  /^webpack [\d.]+ compiled|^\d+ (warnings?|errors?) ha(s|ve) detailed information|^Use 'stats\.errorDetails|^\d+ (warnings?|errors?)$/;

/** One row per setup for the final table. */
const rows = [];
/** Warnings that did not fail any app, per app, for the human reader. */
const otherWarnings = {};
let expected;
let tarball;
let zomVersion;
let chromium;
let chromiumProfile;
let lockSnapshot;

// ---------------------------------------------------------------------------------------------
// Processes

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes start with ESC
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const stripAnsi = (s) => s.replace(ANSI, "");

/**
 * Runs `cmd args` (no shell unless `shell`) in `cwd` with a time limit; resolves to
 * {code, signal, stdout, stderr, ms, timedOut}, never rejects (a spawn error is in stderr).
 * On timeout the whole process group is killed.
 */
function run(cmd, args, { cwd, timeout, env = {}, shell = false }) {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      cwd,
      shell,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        PATH: `${join(appsDir, "node_modules", ".bin")}${process.platform === "win32" ? ";" : ":"}${process.env.PATH}`,
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        ...env,
      },
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeout);
    child.on("error", (e) => {
      stderr += `\n${cmd}: ${e.message}`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr), ms: performance.now() - t0, timedOut });
    });
  });
}

/** The first `n` lines of `text`, with a note of how many more there were. */
function head(text, n = 25) {
  const lines = text.trim().split("\n");
  return lines.length <= n ? lines.join("\n") : `${lines.slice(0, n).join("\n")}\n… (${lines.length - n} more lines)`;
}

/** "exit code 1" / "killed after 180 s" for a finished process. */
function how(r, timeout) {
  if (r.timedOut) return `did not finish in ${timeout / 1000} s (killed)`;
  return r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
}

// ---------------------------------------------------------------------------------------------
// Install: the bundlers (npm ci when stale), then the fresh zom tarball

/** `npm ci` in tests/apps unless node_modules is newer than the lock (npm rewrites node_modules/.package-lock.json on every install). */
async function installBundlers() {
  const lock = join(appsDir, "package-lock.json");
  const stamp = join(appsDir, "node_modules", ".package-lock.json");
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= statSync(lock).mtimeMs) return "ok: tests/apps/node_modules";
  const r = await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: appsDir, timeout: INSTALL_TIMEOUT_MS });
  if (r.code !== 0) throw new Error(`npm ci in tests/apps failed (${how(r, INSTALL_TIMEOUT_MS)}):\n${head(r.stderr || r.stdout, 40)}`);
  const now = new Date();
  utimesSync(stamp, now, now);
  return `installed: tests/apps/node_modules (npm ci, ${(r.ms / 1000).toFixed(0)} s)`;
}

/** `npm pack` of the repository (pkg/ built) into tests/apps/.pack, or ZOM_APPS_TARBALL. */
async function packZom() {
  if (process.env.ZOM_APPS_TARBALL) return resolve(process.env.ZOM_APPS_TARBALL);
  const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  if (!existsSync(join(repoRoot, "pkg"))) throw new Error("pkg/ is not built: run `node scripts/build.mjs` first");
  rmSync(packDir, { recursive: true, force: true });
  mkdirSync(packDir, { recursive: true });
  const r = await run("npm", ["pack", "--pack-destination", packDir, "--json"], { cwd: repoRoot, timeout: 120_000 });
  if (r.code !== 0) throw new Error(`npm pack failed (${how(r, 120_000)}):\n${head(r.stderr || r.stdout)}`);
  const files = readdirSync(packDir).filter((f) => f.endsWith(".tgz"));
  assert.equal(files.length, 1, `npm pack wrote ${files.join(", ") || "nothing"} for ${manifest.name}`);
  return join(packDir, files[0]);
}

/** Installs `tgz` into tests/apps/node_modules without touching package.json or the lock. */
async function installZom(tgz) {
  rmSync(join(appsDir, "node_modules", "zom"), { recursive: true, force: true });
  const r = await run("npm", ["install", "--no-save", "--no-audit", "--no-fund", tgz], { cwd: appsDir, timeout: INSTALL_TIMEOUT_MS });
  if (r.code !== 0) throw new Error(`npm install --no-save ${tgz} failed (${how(r, INSTALL_TIMEOUT_MS)}):\n${head(r.stderr || r.stdout)}`);
  const installed = join(appsDir, "node_modules", "zom", "package.json");
  if (!existsSync(installed)) throw new Error(`npm install ${tgz} left no node_modules/zom/package.json`);
  return JSON.parse(readFileSync(installed, "utf8")).version;
}

/** package.json and package-lock.json of tests/apps, to notice a build that changes them (Parcel's autoinstall). */
const readLock = () => ["package.json", "package-lock.json"].map((f) => readFileSync(join(appsDir, f), "utf8"));

// ---------------------------------------------------------------------------------------------
// Builds and their warnings

/**
 * The diagnostics in a bundler's output: an entry starts at a line that says warning or error
 * (webpack "WARNING in", esbuild "▲ [WARNING]", rollup "(!)"/"[!]", Parcel "⚠️"/"🚨", Vite
 * "[plugin …]", or any line with the word) and runs to the next entry, progress line
 * ("✓ …") or blank line not followed by an indented line (code frames are indented). After
 * Vite's "error during build:" everything is one error.
 */
function diagnostics(output) {
  const entries = [];
  let current = null;
  let blank = false;
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const t = line.trim();
    if (/^error during build:?$/i.test(t)) {
      entries.push({ kind: "error", lines: lines.slice(i) });
      break;
    }
    const error = /^(ERROR in |✘ \[ERROR\]|\[!\]|🚨)|\berror\b|\bErr(or)?:/i.test(t) && !/^\s*at /.test(line);
    const warning = /^(WARNING in |▲ \[WARNING\]|\(!\) |⚠️|\[plugin [^\]]+\]|\[[A-Z_]+\] Warning)|\bwarn(ing)?s?\b|\bdeprecat/i.test(t);
    if (t === "") {
      blank = true;
    } else if (SUMMARY.test(t) || /^[✓✔✗✨]/.test(t)) {
      current = null;
    } else if (error || warning) {
      current = { kind: error ? "error" : "warning", lines: [line] };
      entries.push(current);
    } else if (current && (!blank || /^\s/.test(line))) {
      if (blank) current.lines.push("");
      current.lines.push(line);
    } else {
      current = null;
    }
    if (t !== "") blank = false;
  }
  return entries.map((e) => ({ kind: e.kind, text: e.lines.join("\n").trim() }));
}

/** A failed build's output, less JS stack frames and runs of blank lines. */
function failureText(output) {
  return output
    .split("\n")
    .filter((l) => !/^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/.test(l))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Runs the app's npm script `script` (from its package.json, with tests/apps/node_modules/.bin on PATH). */
async function buildApp(app, script) {
  const dir = join(appsDir, app.name);
  const command = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts[script];
  const r = await run(command, [], { cwd: dir, timeout: BUILD_TIMEOUT_MS, shell: true });
  const output = `${r.stdout}\n${r.stderr}`;
  const log = join(outputDir, "apps", `${app.name}.${script.replace(/:/g, "-")}.log`);
  mkdirSync(dirname(log), { recursive: true });
  writeFileSync(
    log,
    `$ ${command}\n# ${how(r, BUILD_TIMEOUT_MS)}, ${(r.ms / 1000).toFixed(1)} s\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
  );
  const found = diagnostics(output);
  const warnings = found.filter((d) => d.kind === "warning").map((d) => d.text);
  const zom = warnings.filter((w) => ZOM_WARNING.test(w) && !SIZE_ADVISORY.test(w));
  const other = warnings.filter((w) => !zom.includes(w));
  const errors = found.filter((d) => d.kind === "error").map((d) => d.text);
  return { command, ok: r.code === 0 && !r.timedOut, how: how(r, BUILD_TIMEOUT_MS), ms: r.ms, output, zom, other, errors };
}

// ---------------------------------------------------------------------------------------------
// Sizes

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** Gzipped bytes of `files` (not .map, not .html), as {wasm, js, other, total}. */
function shippedSize(files) {
  const size = { wasm: 0, js: 0, other: 0, total: 0, files: 0 };
  for (const file of new Set(files)) {
    const ext = extname(file);
    if (ext === ".map" || ext === ".html") continue;
    const gz = gzipSync(readFileSync(file), { level: 9 }).length;
    const kind = ext === ".wasm" ? "wasm" : [".js", ".mjs", ".cjs"].includes(ext) ? "js" : "other";
    size[kind] += gz;
    size.total += gz;
    size.files += 1;
  }
  return size;
}

/** The first line of `text` with its first detail line, at most 110 characters. */
function firstLine(text) {
  const [a, b] = text.split("\n").map((l) => l.trim());
  const line = a.endsWith(":") && b ? `${a} ${b}` : a;
  return line.length > 110 ? `${line.slice(0, 109)}…` : line;
}

const kB = (n) => `${(n / 1000).toFixed(1)} kB`;

// ---------------------------------------------------------------------------------------------
// Checking a result

/**
 * Checks an app's result (shared/read.js readSample) against zarr-python's values and the
 * pool's counters; pushes each problem to `failures` with `step`; returns {values, pool}
 * summaries for the table.
 */
function checkResult(result, failures, step) {
  let right = 0;
  for (const read of result.reads) {
    const want = expected[read.path];
    try {
      if (read.error !== undefined) {
        failures.push(`${step}: ${read.path}: the read failed: ${head(read.error, 3)}`);
        continue;
      }
      assert.ok(want, `no expected values for ${read.path}`);
      assert.deepEqual(read.shape, want.shape, "shape");
      sameValues(elements(unplain(read.data), unplain(read.dtype)), want.values, read.path);
      right += 1;
    } catch (e) {
      const values = "actual" in e && e.generatedMessage === false ? ` (got ${inspect(e.actual)}, want ${inspect(e.expected)})` : "";
      failures.push(`${step}: ${read.path}: ${e.message.split("\n")[0]}${values}`);
    }
  }
  const values = `${right}/${result.reads.length}`;

  let pool;
  // Read again once the workers were up (shared/read.js).
  const circles = result.poolRead ?? result.reads.find((r) => r.path === "image/gradient_circles");
  const stats = result.pool;
  if (stats?.error !== undefined) {
    failures.push(`${step}: workerStats(): ${stats.error.split("\n")[0]}`);
    pool = "no workerStats";
  } else if (!circles || circles.error !== undefined) {
    pool = "not checked (read failed)";
    failures.push(`${step}: the pool was not checked: image/gradient_circles was not read`);
  } else {
    // Chunks as the reader decodes them (gradient_circles is sharded: its inner chunks).
    const chunks = circles.shape.reduce((n, len, d) => n * Math.ceil(len / circles.chunks[d]), 1);
    const decoded = circles.pool.after.decoded - circles.pool.before.decoded;
    const problems = [];
    if (stats.failed !== false) problems.push(`failed is ${stats.failed} (the pool fell back to the main thread)`);
    if (!(stats.workers > 0)) problems.push(`${stats.workers} workers started`);
    if (!(decoded > 0)) problems.push(`the workers decoded ${decoded} chunks while image/gradient_circles (${chunks} chunks) was read`);
    for (const p of problems) failures.push(`${step}: pool: ${p}`);
    pool =
      problems.length === 0
        ? `yes (${stats.workers} workers; ${decoded}/${chunks} circles chunks, ${stats.decoded} in all)`
        : `no: ${problems.join("; ")}`;
  }
  return { values, pool, readMs: result.ms };
}

// ---------------------------------------------------------------------------------------------
// Running an app

/**
 * Opens the app's page in Chromium (served from its build output, or at `url` when given: a
 * dev server), waits for its result; returns {result, lines, requested}.
 */
async function openPage(app, failures, url) {
  const server =
    url === undefined
      ? await startServer({ root: resolve(appsDir, app.name, app.browser.root), mounts: { "/data/": fixturesDir }, indexHtml: true })
      : null;
  const page = await chromium.newPage();
  const lines = [];
  page.on("console", (m) => lines.push({ type: m.type(), text: `${m.worker() ? "[worker] " : ""}${m.text()}` }));
  page.on("pageerror", (e) => lines.push({ type: "pageerror", text: e.stack || e.message || String(e) }));
  page.on("requestfailed", (r) => lines.push({ type: "requestfailed", text: `${r.url()}: ${r.failure()?.errorText}` }));
  // Whatever stops the app before it sets window.zomApp (a module that fails to load or
  // link, a rejected top-level await) ends the wait at once.
  await page.addInitScript(() => {
    const fatal = (text) => {
      if (!("zomAppFatal" in window) && !("zomApp" in window)) window.zomAppFatal = text;
    };
    addEventListener(
      "error",
      (e) =>
        fatal(
          e instanceof ErrorEvent ? String(e.error?.stack ?? e.message) : `failed to load ${e.target?.src ?? e.target?.href ?? e.target}`,
        ),
      true,
    );
    addEventListener("unhandledrejection", (e) => fatal(`unhandled rejection: ${String(e.reason?.stack ?? e.reason)}`));
  });
  let result;
  try {
    await page.goto(url ?? `${server.url}${app.browser.page}`, { timeout: PAGE_LOAD_TIMEOUT_MS });
    try {
      await page.waitForFunction(() => "zomApp" in window || "zomAppFatal" in window, null, { timeout: READ_TIMEOUT_MS });
    } catch {
      failures.push(`page: no result ${READ_TIMEOUT_MS / 1000} s after the load event (a hang?)`);
    }
    const got = JSON.parse(await page.evaluate(() => JSON.stringify({ app: window.zomApp, fatal: window.zomAppFatal })));
    if (got.fatal !== undefined) failures.push(`page: the app failed: ${head(got.fatal, 8)}`);
    result = got.app;
    // Let console messages that are on their way arrive.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
  } catch (e) {
    failures.push(`page: ${e.message.split("\n")[0]}`);
  } finally {
    await page.close().catch(() => {});
    await server?.close();
  }
  const bad = lines.filter((l) => ["error", "warning", "assert", "pageerror", "requestfailed"].includes(l.type));
  for (const l of bad) failures.push(`page console ${l.type}: ${head(l.text, 6)}`);
  const requested = [
    ...new Set(
      (server?.stats.log ?? []).filter((e) => e.status === 200 || e.status === 206).map((e) => new URL(e.url, "http://x").pathname),
    ),
  ];
  return { result, lines, requested };
}

/** The files under the server root that the page fetched, other than the data. */
function fetchedFiles(app, requested) {
  const root = resolve(appsDir, app.name, app.browser.root);
  return requested
    .filter((p) => !p.startsWith("/data/"))
    .map((p) => join(root, decodeURIComponent(p).replace(/\/$/, "/index.html")))
    .filter((f) => existsSync(f) && statSync(f).isFile());
}

/** Runs a Node script of an app with the data URL; returns its parsed last stdout line, or undefined. */
async function runNode(args, cwd, step, failures) {
  const server = await startServer({ root: fixturesDir, mounts: { "/data/": fixturesDir } });
  try {
    const r = await run(process.execPath, [...args, `${server.url}/data/sample/`], { cwd, timeout: NODE_TIMEOUT_MS });
    if (r.code !== 0 || r.timedOut) {
      failures.push(`${step}: node ${args.join(" ")} failed (${how(r, NODE_TIMEOUT_MS)}):\n${head(r.stderr || r.stdout, 12)}`);
      return undefined;
    }
    if (r.stderr.trim() !== "") failures.push(`${step}: printed to stderr:\n${head(r.stderr, 12)}`);
    const last = r.stdout.trim().split("\n").at(-1);
    try {
      return JSON.parse(last);
    } catch {
      failures.push(`${step}: no JSON on stdout: ${head(r.stdout, 5)}`);
      return undefined;
    }
  } finally {
    await server.close();
  }
}

/**
 * Starts the app's dev server (`npm run dev`, with --port), reads the sample from a second
 * server through ?data= (CORS) and checks the page like a build's; returns its row.
 */
async function runDevServer(app) {
  const failures = [];
  const row = {
    setup: `${app.name} (dev server)`,
    builds: "n/a",
    config: `${app.config}; vite dev`,
    values: "—",
    readMs: null,
    pool: "—",
    size: null,
  };
  const dir = join(appsDir, app.name);
  const command = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts.dev;
  const data = await startServer({ root: fixturesDir });
  const child = spawn(command, [], {
    cwd: dir,
    shell: true,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PATH: `${join(appsDir, "node_modules", ".bin")}:${process.env.PATH}`, NO_COLOR: "1" },
  });
  let output = "";
  try {
    const url = await new Promise((found, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`no URL from \`${command}\` in ${DEV_START_TIMEOUT_MS / 1000} s:\n${head(output)}`)),
        DEV_START_TIMEOUT_MS,
      );
      const look = (d) => {
        output += stripAnsi(String(d));
        const m = output.match(/Local:\s+(http:\/\/\S+)/);
        if (m) {
          clearTimeout(timer);
          found(m[1]);
        }
      };
      child.stdout.on("data", look);
      child.stderr.on("data", look);
      child.on("exit", (code) => fail(new Error(`\`${command}\` exited (code ${code}):\n${head(output)}`)));
    });
    const { result } = await openPage(app, failures, `${url}?data=${encodeURIComponent(`${data.url}/sample/`)}`);
    if (result) Object.assign(row, checkResult(result, failures, "dev page"));
    for (const d of diagnostics(output)) {
      failures.push(`dev server ${d.kind}: ${head(d.text, 8)}`);
    }
  } catch (e) {
    failures.push(`dev server: ${e.message}`);
  } finally {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
    await data.close();
  }
  row.failures = failures;
  return { row, failures };
}

/** Records a build's warnings: zom's fail the app, the others are kept for the table's reader. */
function noteBuild(app, step, build, failures) {
  for (const w of build.zom) failures.push(`${step}: bundler warning about zom:\n${head(w, 10)}`);
  if (build.other.length) (otherWarnings[`${app.name} ${step}`] ??= []).push(...build.other);
  if (!build.ok) {
    // The bundler's error entries, or (where they say little, as Parcel's "🚨 Build failed.") its whole output.
    const errors = failureText(build.errors.join("\n\n"));
    const said = errors.split("\n").length > 2 ? errors : failureText(build.output);
    failures.push(`${step}: \`${build.command}\` failed (${build.how}):\n${head(said, 30)}`);
  }
}

/** Builds, runs and checks one app; returns its table rows and its failures. */
async function runApp(app) {
  const failures = [];
  const dir = join(appsDir, app.name);
  const row = { setup: app.name, builds: "n/a", config: app.config, values: "—", readMs: null, pool: "—", size: null };
  const rowsOut = [row];

  if (app.node) {
    const result = await runNode([app.node], dir, "run", failures);
    if (result) Object.assign(row, checkResult(result, failures, "run"));
  } else {
    for (const out of ["dist", "dist-ssr"]) rmSync(join(dir, out), { recursive: true, force: true });
    const build = await buildApp(app, "build");
    noteBuild(app, "build", build, failures);
    row.buildMs = Math.round(build.ms);
    const changed = readLock().some((text, i) => text !== lockSnapshot[i]);
    if (changed) {
      failures.push("build: the build changed tests/apps/package.json or package-lock.json (restored)");
      ["package.json", "package-lock.json"].forEach((f, i) => {
        writeFileSync(join(appsDir, f), lockSnapshot[i]);
      });
    }
    row.builds = build.ok ? (build.zom.length ? "yes, with zom warnings" : "yes") : "no";
    if (build.ok) {
      const { result, requested } = await openPage(app, failures);
      if (result) Object.assign(row, checkResult(result, failures, "page"));
      const files = app.output === null ? fetchedFiles(app, requested) : filesUnder(join(dir, app.output));
      row.size = shippedSize(files);
    }
    if (app.ssr) {
      const ssrRow = {
        setup: `${app.name} (ssr)`,
        builds: "n/a",
        config: `${app.config}; vite build --ssr`,
        values: "—",
        readMs: null,
        pool: "—",
        size: null,
      };
      rowsOut.push(ssrRow);
      const ssrFailures = [];
      const ssr = await buildApp(app, "build:ssr");
      noteBuild(app, "ssr build", ssr, ssrFailures);
      ssrRow.buildMs = Math.round(ssr.ms);
      ssrRow.builds = ssr.ok ? (ssr.zom.length ? "yes, with zom warnings" : "yes") : "no";
      if (ssr.ok) {
        const bundle = filesUnder(join(dir, "dist-ssr")).find((f) => /\.(m?js)$/.test(f));
        if (!bundle) ssrFailures.push("ssr build: no .js file in dist-ssr/");
        else {
          const out = await runNode([join(appsDir, "shared", "ssr-run.mjs"), bundle], dir, "ssr run", ssrFailures);
          if (out) {
            for (const t of out.touched) ssrFailures.push(`ssr run: ${head(t, 6)}`);
            if (out.result?.fatal !== undefined) ssrFailures.push(`ssr run: render failed: ${head(out.result.fatal, 10)}`);
            else if (out.result) Object.assign(ssrRow, checkResult(out.result, ssrFailures, "ssr run"));
          }
        }
      }
      ssrRow.failures = ssrFailures;
      failures.push(...ssrFailures.map((f) => `(ssr) ${f}`));
    }
    if (app.dev) {
      const dev = await runDevServer(app);
      rowsOut.push(dev.row);
      failures.push(...dev.failures.map((f) => `(dev) ${f}`));
    }
  }
  row.failures = failures.filter((f) => !/^\((ssr|dev)\) /.test(f));
  return { rows: rowsOut, failures };
}

// ---------------------------------------------------------------------------------------------
// The tests

before(async () => {
  const t0 = performance.now();
  // The sample's arrays, and those of tests/fixtures/current/v3 the apps read through codec parts.
  const current = Object.entries(readJson("current", "v3.values.json")).map(([name, entry]) => [`current/v3/${name}`, entry]);
  expected = { ...readJson("expected", "sample.values.json"), ...Object.fromEntries(current) };
  console.log(await installBundlers());
  tarball = await packZom();
  zomVersion = await installZom(tarball);
  lockSnapshot = readLock();
  console.log(
    `installed: zom ${zomVersion} from ${relative(repoRoot, tarball)} (${kB(statSync(tarball).size)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
});

after(async () => {
  await chromium?.close();
  if (chromiumProfile) rmSync(chromiumProfile, { recursive: true, force: true });
  if (rows.length === 0) return;
  for (const [where, list] of Object.entries(otherWarnings)) {
    console.log(`\nother build warnings (${where}), for a human to judge:`);
    for (const w of list) console.log(head(w, 12).replace(/^/gm, "  "));
  }
  const table = [
    ["setup", "builds?", "config needed", "values right", "read ms", "pool used", "shipped (gzip: wasm + JS)", "problems (first)"],
    ...rows.map((r) => [
      r.setup,
      r.builds,
      r.config,
      r.values,
      r.readMs === null ? "—" : r.readMs.toFixed(0),
      r.pool,
      r.size ? `${kB(r.size.total)} (${kB(r.size.wasm)} + ${kB(r.size.js)}${r.size.other ? ` + ${kB(r.size.other)} other` : ""})` : "—",
      r.failures.length === 0 ? "none" : `${r.failures.length}: ${firstLine(r.failures[0])}`,
    ]),
  ];
  const widths = table[0].map((_, c) => Math.max(...table.map((r) => String(r[c]).length)));
  const line = (r) => `| ${r.map((x, c) => String(x).padEnd(widths[c])).join(" | ")} |`;
  console.log(`\nzom ${zomVersion} in apps:`);
  console.log(line(table[0]));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of table.slice(1)) console.log(line(r));
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(
    join(outputDir, "apps.json"),
    `${JSON.stringify({ zom: zomVersion, tarball: relative(repoRoot, tarball), rows, otherWarnings }, null, 2)}\n`,
  );
  console.log(`written: ${relative(repoRoot, join(outputDir, "apps.json"))}`);
});

for (const app of APPS) {
  const what = app.node
    ? `${app.name}: ${app.node} in Node reads zarr-python's values over HTTP with the worker pool, printing nothing on stderr`
    : `${app.name}: builds for production with ${app.config}, and the page reads zarr-python's values with the worker pool, with no warning${app.ssr ? "; its SSR bundle runs in Node without touching window/document" : ""}${app.dev ? "; so does its dev server" : ""}`;
  test(what, { timeout: 2 * BUILD_TIMEOUT_MS + 120_000 }, async (t) => {
    if (app.browser && !chromium) ({ browser: chromium, profile: chromiumProfile } = await launchChromium("zom-apps-"));
    const { rows: appRows, failures } = await runApp(app);
    rows.push(...appRows);
    for (const [where, list] of Object.entries(otherWarnings).filter(([k]) => k.startsWith(`${app.name} `))) {
      for (const w of list) t.diagnostic(`${where}: other warning (not about zom): ${w.split("\n")[0]}`);
    }
    for (const r of appRows) if (r.buildMs !== undefined) t.diagnostic(`${r.setup}: built in ${(r.buildMs / 1000).toFixed(1)} s`);
    assert.ok(failures.length === 0, `${app.name}: ${failures.length} problem(s):\n${failures.map((f) => `- ${f}`).join("\n")}`);
  });
}
