// registerCodec in headless Chromium: the example LERC codec (examples/codecs/lerc.mjs, via
// the probe tests/js/child/lerc-probe.mjs) bundled with esbuild as a user would, with Esri's
// lerc-wasm.wasm beside the bundle, registered by its URL; arrays zarr-python 3 wrote with
// imagecodecs' LERC (tests/fixtures/registered) are read from the fixture server on another
// origin. With 2 workers the values equal zarr-python's and the page itself never imported the
// codec module (the workers did); with none the page imports it and gets the same values.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { build } from "esbuild";
import { launchChromium, openTestPage, recordConsole } from "./chromium.mjs";
import { repoRoot } from "../js/helpers.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures } from "../server/testing.mjs";
import { serve } from "./server.mjs";

const OUT = join(repoRoot, "test-output", "lerc-codec");
let site;
let data;
let browser;
let profile;
let page;
const consoleLines = [];

before(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  await build({
    entryPoints: [join(repoRoot, "tests", "js", "child", "lerc-probe.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    // lerc's Emscripten glue imports Node's "module" only on Node; a browser never runs it.
    external: ["module"],
    outfile: join(OUT, "lerc.js"),
    logLevel: "silent",
  });
  copyFileSync(join(repoRoot, "node_modules", "lerc", "lerc-wasm.wasm"), join(OUT, "lerc-wasm.wasm"));
  site = await serve(repoRoot);
  data = await startServer({ root: join(fixtures, "registered") });
  ({ browser, profile } = await launchChromium("zom-chromium-codecs-"));
  page = await browser.newPage();
  recordConsole(page, consoleLines);
  await openTestPage(page, `${site.url}/tests/browser/pool.html`, "zomPool", consoleLines);
});

after(async () => {
  await browser?.close();
  await Promise.all([site?.close(), data?.close()]);
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("a registered LERC codec reads zarr-python's values in Chromium workers and on the page", async () => {
  const got = await page.evaluate(
    async ([codecUrl, dataUrl]) => {
      const zom = await import("/pkg/index.js");
      zom.registerCodec({ name: "imagecodecs_lerc", module: codecUrl });
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
    },
    [`${site.url}/test-output/lerc-codec/lerc.js`, `${data.url}/lerc.zarr`],
  );
  for (const [name, shape, type] of [["uint16", [64, 50], Uint16Array], ["float32", [40, 30], Float32Array]]) {
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
  assert.deepEqual(consoleLines.filter((l) => /pageerror|workers could not start/.test(l)), []);
});
