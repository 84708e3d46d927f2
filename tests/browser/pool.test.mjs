// Reads decoded in module Web Workers in headless Chromium: the page (tests/browser/pool.html)
// loads the built package from /pkg/index.js with no bundler, the fixtures come from
// tests/server on another origin (CORS). Every v3, v2 and sample array read whole with 2
// workers (all of a hierarchy at once) and with none equals zarr-python's values; the workers
// decoded the chunks (the pool's count), and no fallback warning was printed. Where the
// page's Content-Security-Policy forbids workers (tests/browser/pool-csp.html), reads decode on
// the main thread after one console warning; where it allows only same-origin workers
// (pool-csp-self.html) the warning names init({ worker }), which then makes the pool work. On
// a cross-origin isolated page (COOP + COEP) the workers write into a SharedArrayBuffer
// output; on the others the chunks are transferred back (no SharedArrayBuffer), with the same
// values. A codec registered from JavaScript (registerCodec: the example LERC codec,
// examples/codecs/lerc.mjs, through the probe tests/js/child/lerc-probe.mjs, bundled with
// esbuild) reads arrays zarr-python 3 wrote with imagecodecs' LERC (tests/fixtures/registered)
// equal to zarr-python's values with 2 workers, while the page itself never imports the codec
// module (the workers do), and with none.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { build } from "esbuild";
import { readJson, repoRoot } from "../js/helpers.mjs";
import { elements, sameValues } from "../js/hierarchy-common.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures } from "../server/testing.mjs";
import { launchChromium, openTestPage, recordConsole } from "./chromium.mjs";
import { unplain } from "./plain.mjs";
import { serve } from "./server.mjs";

let site;
let data;
let browser;
let profile;
let page;
const consoleLines = [];

before(async () => {
  site = await serve(repoRoot);
  data = await startServer({ root: fixtures });
  ({ browser, profile } = await launchChromium("zom-chromium-pool-"));
  page = await browser.newPage();
  recordConsole(page, consoleLines);
  await openTestPage(page, `${site.url}/tests/browser/pool.html`, "zomPool", consoleLines);
});

after(async () => {
  await browser?.close();
  await Promise.all([site?.close(), data?.close()]);
  if (profile) rmSync(profile, { recursive: true, force: true });
});

for (const name of ["v3", "v2", "sample"]) {
  test(`every ${name} array read in Chromium with 2 decode workers and with none equals zarr-python's values`, async () => {
    const expected = readJson("expected", `${name}.values.json`);
    const paths = Object.keys(expected);
    const before = await page.evaluate(() => window.zomPool.pool(2));
    for (const workers of [2, 0]) {
      const got = await page.evaluate(
        ([url, paths, workers]) => window.zomPool.readAll(url, paths, workers),
        [`${data.url}/${name}`, paths, workers],
      );
      const failures = [];
      for (const read of got) {
        const entry = expected[read.path];
        try {
          assert.equal(read.shared, false, "not cross-origin isolated: no SharedArrayBuffer");
          assert.ok(!read.error, JSON.stringify(read.error));
          assert.deepEqual(read.shape, entry.shape);
          sameValues(elements(unplain(read.data), unplain(read.dtype)), entry.values, read.path);
        } catch (e) {
          failures.push(`${name}/${read.path} workers ${workers}: ${e.message.split("\n")[0]}`);
        }
      }
      assert.deepEqual(failures, [], failures.join("\n"));
    }
    const pool = await page.evaluate(() => window.zomPool.pool(2));
    assert.equal(pool.failed, false, consoleLines.join("\n"));
    assert.ok(pool.decoded - before.decoded >= paths.length / 2, `the workers decoded ${pool.decoded - before.decoded} chunks`);
    assert.deepEqual(
      consoleLines.filter((l) => /workers could not start|pageerror/.test(l)),
      [],
    );
  });
}

test("where a Content-Security-Policy forbids workers, reads decode on the main thread after one warning", async () => {
  const strict = await browser.newPage();
  const lines = recordConsole(strict);
  try {
    // The same page with <meta http-equiv="Content-Security-Policy" content="worker-src 'none'">.
    await openTestPage(strict, `${site.url}/tests/browser/pool-csp.html`, "zomPool", lines);
    const expected = readJson("expected", "v3.values.json");
    const paths = ["codec_zstd", "shard_index_end", "dtype_float64"];
    for (let round = 0; round < 2; round++) {
      const got = await strict.evaluate(([url, paths]) => window.zomPool.readAll(url, paths, 2), [`${data.url}/v3`, paths]);
      for (const read of got) {
        assert.ok(!read.error, JSON.stringify(read.error));
        sameValues(elements(unplain(read.data), unplain(read.dtype)), expected[read.path].values, read.path);
      }
    }
    const pool = await strict.evaluate(() => window.zomPool.pool(2));
    assert.deepEqual(pool, { failed: true, decoded: 0 });
    const warnings = lines.filter((l) => l.includes("decode workers could not start"));
    assert.equal(warnings.length, 1, lines.join("\n"));
    assert.match(warnings[0], /^warning: /);
  } finally {
    await strict.close();
  }
});

test("where a CSP allows only same-origin workers, the warning says what to do, and init({ worker }) with zom/worker served makes the pool work", async () => {
  const expected = readJson("expected", "v3.values.json");
  const paths = ["codec_zstd", "shard_index_end", "dtype_float64"];
  // The same page with worker-src 'self': the default blob: worker is refused.
  for (const [query, usesWorkers] of [
    ["", false],
    ["?worker=/pkg/zom_worker.js", true],
  ]) {
    const tab = await browser.newPage();
    const lines = recordConsole(tab);
    try {
      await openTestPage(tab, `${site.url}/tests/browser/pool-csp-self.html${query}`, "zomPool", lines);
      const got = await tab.evaluate(([url, paths]) => window.zomPool.readAll(url, paths, 2), [`${data.url}/v3`, paths]);
      for (const read of got) {
        assert.ok(!read.error, JSON.stringify(read.error));
        sameValues(elements(unplain(read.data), unplain(read.dtype)), expected[read.path].values, read.path);
      }
      const pool = await tab.evaluate(() => window.zomPool.pool(2));
      const warnings = lines.filter((l) => l.includes("decode workers could not start"));
      if (usesWorkers) {
        assert.equal(pool.failed, false, lines.join("\n"));
        assert.ok(pool.decoded > 0, `the workers decoded ${pool.decoded} chunks`);
        // (404s of the fixtures' missing chunks are logged as errors: expected.)
        assert.deepEqual(
          lines.filter((l) => /^(warning|pageerror)/.test(l)),
          [],
        );
      } else {
        assert.deepEqual(pool, { failed: true, decoded: 0 });
        assert.equal(warnings.length, 1, lines.join("\n"));
        assert.match(warnings[0], /init\(\{ worker: url \}\)/, "the warning names the option");
      }
    } finally {
      await tab.close();
    }
  }
});

test("on a cross-origin isolated page the workers write into a SharedArrayBuffer, with zarr-python's values", async () => {
  assert.equal(await page.evaluate(() => window.zomPool.crossOriginIsolated), false);
  const isolatedSite = await serve(repoRoot, { isolated: true });
  const isolated = await browser.newPage();
  const lines = recordConsole(isolated);
  try {
    await openTestPage(isolated, `${isolatedSite.url}/tests/browser/pool.html`, "zomPool", lines);
    assert.equal(await isolated.evaluate(() => window.zomPool.crossOriginIsolated), true);
    let sharedReads = 0;
    for (const name of ["v3", "v2", "sample"]) {
      const expected = readJson("expected", `${name}.values.json`);
      const paths = Object.keys(expected);
      for (const workers of [2, 0]) {
        const got = await isolated.evaluate(
          ([url, paths, workers]) => window.zomPool.readAll(url, paths, workers),
          [`${data.url}/${name}`, paths, workers],
        );
        for (const read of got) {
          assert.ok(!read.error, `${name}/${read.path}: ${JSON.stringify(read.error)}`);
          assert.deepEqual(read.shape, expected[read.path].shape);
          sameValues(
            elements(unplain(read.data), unplain(read.dtype)),
            expected[read.path].values,
            `${name}/${read.path} workers ${workers}`,
          );
          if (workers === 0) assert.equal(read.shared, false, `${name}/${read.path}: no workers, no shared output`);
          sharedReads += read.shared;
        }
      }
    }
    assert.ok(sharedReads > 60, `${sharedReads} reads through a SharedArrayBuffer`);
    const pool = await isolated.evaluate(() => window.zomPool.pool(2));
    assert.equal(pool.failed, false, lines.join("\n"));
    assert.deepEqual(
      lines.filter((l) => /workers could not start|pageerror/.test(l)),
      [],
    );
  } finally {
    await isolated.close();
    await isolatedSite.close();
  }
});

test("a registered LERC codec reads zarr-python's values in Chromium workers and on the page", async () => {
  // The example codec bundled as a user would, with lerc-wasm.wasm beside the bundle, where
  // lerc looks for it.
  const out = join(repoRoot, "test-output", "lerc-codec");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(repoRoot, "tests", "js", "child", "lerc-probe.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    // lerc's Emscripten glue imports Node's "module" only on Node; a browser never runs it.
    external: ["module"],
    outfile: join(out, "lerc.js"),
    logLevel: "silent",
  });
  copyFileSync(join(repoRoot, "node_modules", "lerc", "lerc-wasm.wasm"), join(out, "lerc-wasm.wasm"));
  const got = await page.evaluate(
    async ([codecUrl, dataUrl]) => {
      const zom = await import("/pkg/index.js");
      zom.registerCodec({ name: "imagecodecs_lerc", module: codecUrl });
      try {
        const store = new zom.FetchStore(dataUrl);
        const out = {};
        for (const name of ["uint16", "float32"]) {
          const array = await zom.openArray(store, name);
          const before = zom.workerStats().decoded;
          const inWorkers = await array.get(null, { workers: 2 });
          const decoded = zom.workerStats().decoded - before;
          const importedBefore = globalThis.zomLercImports ?? 0;
          const here = await array.get(null, { workers: 0 });
          out[name] = {
            shape: inWorkers.shape,
            workers: Array.from(inWorkers.data),
            here: Array.from(here.data),
            decoded,
            importedBefore,
            importedAfter: globalThis.zomLercImports ?? 0,
          };
        }
        return out;
      } finally {
        zom.unregisterCodec("imagecodecs_lerc");
      }
    },
    [`${site.url}/test-output/lerc-codec/lerc.js`, `${data.url}/registered/lerc.zarr`],
  );
  for (const [name, shape, type] of [
    ["uint16", [64, 50], Uint16Array],
    ["float32", [40, 30], Float32Array],
  ]) {
    const bytes = readFileSync(join(fixtures, "registered", `${name}.expected`));
    const want = Array.from(new type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
    const read = got[name];
    assert.deepEqual(read.shape, shape);
    assert.deepEqual(read.workers, want, `${name} with 2 workers`);
    assert.deepEqual(read.here, want, `${name} on the page`);
    assert.ok(read.decoded > 0, `${name}: the workers decoded ${read.decoded} chunks`);
  }
  assert.equal(got.uint16.importedBefore, 0, "the page did not import the codec while workers decoded");
  assert.equal(got.uint16.importedAfter, 1);
  assert.deepEqual(
    consoleLines.filter((l) => /pageerror|workers could not start/.test(l)),
    [],
  );
});
