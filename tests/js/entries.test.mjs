// The package's entry points in Node, each case in a fresh process (the module loads once per
// process): "zom" loads its WebAssembly on first use (synchronously) or with `await init()`
// (compiled asynchronously), `init({ workers })` sets the default decode workers, `require`
// gives the CommonJS build with the same API whose "zom" and "zom/fs" share one module
// instance, importing any entry touches no browser global (server-side rendering), and the
// browser entry itself (what a bundler's "default" condition gives) loads in Node too.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixtures, repoRoot } from "./helpers.mjs";

const sample = JSON.stringify(`${fixtures}/sample`);

/** Runs `code` in a new Node process in the repository (ESM, or CommonJS with `cjs`); its stdout parsed as JSON. */
function run(code, { cjs = false } = {}) {
  const out = execFileSync(process.execPath, ["--input-type", cjs ? "commonjs" : "module", "-e", code], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  return JSON.parse(out);
}

// Globals a server-side bundle must not touch: reading any of them throws.
const TRAP_BROWSER_GLOBALS = `
  for (const name of ["window", "document", "self", "location", "navigator"]) {
    Object.defineProperty(globalThis, name, { configurable: true, get() { throw new Error("touched " + name); } });
  }`;

test('"zom" loads on the first call, synchronously, and reads with decode workers', () => {
  const got = run(`
    import { FsStore } from "zom/fs";
    import { isInitialized, openArray, version, workerStats } from "zom";
    const before = isInitialized();
    const v = version();
    const arr = await openArray(new FsStore(${sample}), "image/gradient_circles");
    const { data, shape } = await arr.get();
    // Chunks decode on this thread until the workers are up; the next read goes to them.
    for (const end = Date.now() + 20000; workerStats().workers === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    await arr.get();
    process.stdout.write(JSON.stringify({ before, after: isInitialized(), v, shape, first: data[0], stats: workerStats() }));`);
  assert.equal(got.before, false);
  assert.equal(got.after, true);
  assert.match(got.v, /^\d+\.\d+\.\d+/);
  assert.deepEqual(got.shape, [256, 256]);
  assert.equal(got.stats.failed, false);
  assert.ok(got.stats.workers > 0 && got.stats.decoded >= 4, JSON.stringify(got.stats));
});

test("await init() compiles the carried WebAssembly; init({ workers: 0 }) decodes on the calling thread", () => {
  const got = run(`
    import { FsStore } from "zom/fs";
    import { init, isInitialized, openArray, workerStats } from "zom";
    const pending = init({ workers: 0 });
    const early = isInitialized();
    await pending;
    const arr = await openArray(new FsStore(${sample}), "image/gradient_circles");
    await arr.get();
    process.stdout.write(JSON.stringify({ early, loaded: isInitialized(), stats: workerStats() }));`);
  assert.deepEqual(got, { early: false, loaded: true, stats: { workers: 0, decoded: 0, failed: false, replaced: 0 } });
});

test("init rejects a bad workers or worker option with InvalidArgument", () => {
  const got = run(`
    import { init } from "zom";
    const codes = [];
    for (const options of [{ workers: -1 }, { workers: 1.5 }, { worker: 42 }]) {
      try { await init(options); codes.push("none"); } catch (e) { codes.push(e.code); }
    }
    process.stdout.write(JSON.stringify(codes));`);
  assert.deepEqual(got, ["InvalidArgument", "InvalidArgument", "InvalidArgument"]);
});

test('require("zom") is the CommonJS build: same API, loads synchronously, reads in workers; "zom/fs" shares its ZomError', () => {
  const got = run(
    `
    const zom = require("zom");
    const { FsStore } = require("zom/fs");
    const v = zom.version();
    const cjs = require.resolve("zom").endsWith("node.cjs");
    (async () => {
      const store = new FsStore(${sample});
      const arr = await zom.openArray(store, "measurements/temperature");
      const { data, shape } = await arr.get([zom.slice(0, 2), zom.slice(0, 3)]);
      // Chunks decode on this thread until the workers are up; the next read goes to them.
      for (const end = Date.now() + 20000; zom.workerStats().workers === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      await arr.get();
      let shared = null;
      try { await store.get("../outside"); } catch (e) { shared = e instanceof zom.ZomError && zom.isZomError(e); }
      process.stdout.write(JSON.stringify({
        v, shape, values: Array.from(data), kind: data.constructor.name, shared,
        cjs, stats: zom.workerStats(),
      }));
    })();`,
    { cjs: true },
  );
  assert.match(got.v, /^\d+\.\d+\.\d+/);
  assert.deepEqual(got.shape, [2, 3]);
  assert.equal(got.kind, "Float32Array");
  assert.equal(got.values.length, 6);
  assert.equal(got.shared, true, "FsStore's errors are the ZomError of require('zom')");
  assert.equal(got.cjs, true);
  assert.ok(got.stats.decoded > 0, JSON.stringify(got.stats));
});

test('require("zom/manual") throws before init(), then loads the .wasm beside it', () => {
  const got = run(
    `
    const manual = require("zom/manual");
    let before;
    try { manual.version(); } catch (e) { before = e.code; }
    manual.init().then(() => process.stdout.write(JSON.stringify({ before, v: manual.version() })));`,
    { cjs: true },
  );
  assert.equal(got.before, "InvalidArgument");
  assert.match(got.v, /^\d+\.\d+\.\d+/);
});

test("importing every entry touches no browser global (server-side rendering), ESM and CommonJS", () => {
  const esm = run(`${TRAP_BROWSER_GLOBALS}
    const zom = await import("zom");
    await import("zom/manual");
    await import("zom/fs");
    const { validateDocument } = await import("zom/validate");
    const report = validateDocument('{"zarr_format": 3, "node_type": "group"}');
    const group = await zom.open(new Map([["zarr.json", new TextEncoder().encode('{"zarr_format": 3, "node_type": "group"}')]]));
    process.stdout.write(JSON.stringify({ valid: report.valid, kind: group.kind }));`);
  assert.deepEqual(esm, { valid: true, kind: "group" });
  const cjs = run(
    `${TRAP_BROWSER_GLOBALS}
    require("zom");
    require("zom/manual");
    require("zom/fs");
    const { validateDocument } = require("zom/validate");
    process.stdout.write(JSON.stringify({ valid: validateDocument('{"zarr_format": 3, "node_type": "group"}').valid }));`,
    { cjs: true },
  );
  assert.deepEqual(cjs, { valid: true });
});

test("the browser entry (the exports' default condition) imports without touching browser globals and works in Node", () => {
  const index = pathToFileURL(`${repoRoot}/pkg/index.js`).href;
  const got = run(`${TRAP_BROWSER_GLOBALS}
    const zom = await import(${JSON.stringify(index)});
    const v = zom.version();
    const { validateDocument } = await import("zom/validate");
    const report = validateDocument('{"zarr_format": 3, "node_type": "array"}');
    process.stdout.write(JSON.stringify({ v, valid: report.valid }));`);
  assert.match(got.v, /^\d+\.\d+\.\d+/);
  assert.equal(got.valid, false);
});
