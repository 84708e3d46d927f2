// The built package in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core;
// no browser download): tests/browser/index.html imports /pkg/index.js from a local server and
// runs the API; this checks its results and saves a screenshot to test-output/. "zom/manual"
// whose .wasm is missing (404, or an HTML page in its place) fails with a message that says
// what to do.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { jsonSchema, stringify } from "zom/validate";
import { parseJsonExact, readJson, repoRoot } from "../js/helpers.mjs";
import { launchChromium, recordConsole } from "./chromium.mjs";
import { serve } from "./server.mjs";

let server;
let browser;
let profile;
let results;
const consoleLines = [];

before(async () => {
  server = await serve(repoRoot);
  ({ browser, profile } = await launchChromium("zom-chromium-", { viewport: { width: 1100, height: 800 } }));
  const page = await browser.newPage();
  recordConsole(page, consoleLines);
  await page.goto(`${server.url}/tests/browser/index.html`);
  await page.waitForFunction(() => "zomResults" in window, null, { timeout: 30_000 });
  results = await page.evaluate(() => window.zomResults);
  mkdirSync(join(repoRoot, "test-output"), { recursive: true });
  await page.screenshot({ path: join(repoRoot, "test-output", "browser.png"), fullPage: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The value a page step returned, failing with its error (and the page's console) if it threw. */
function value(step) {
  const r = results[step];
  assert.ok(r, `the page ran ${step}: ${JSON.stringify(results.fatal ?? consoleLines)}`);
  assert.ok(!r.error, `${step} threw in the browser: ${JSON.stringify(r.error)}\n${consoleLines.join("\n")}`);
  return r.value;
}

test("the package loads in Chromium without a bundler", () => {
  assert.equal(results.fatal, undefined, results.fatal);
  assert.match(value("version"), /^\d+\.\d+\.\d+$/);
  assert.equal(results.isZomError, true);
});

test("fromDocuments in the browser equals pydantic-zarr's dump", () => {
  assert.deepEqual(parseJsonExact(value("fromDocuments")), readJson("expected", "v3-consolidated.zom.json"));
});

test("validateDocument in the browser: valid, and broken with located problems", () => {
  assert.deepEqual(value("validateDocument(valid)"), { valid: true, problems: [] });
  const broken = value("validateDocument(broken)");
  assert.equal(broken.valid, false);
  const summary = broken.problems.map((p) => `${p.path} ${p.kind} ${p.loc.join(".")}`);
  assert.ok(summary.includes("a missing_key chunk_grid"), summary.join("; "));
  assert.ok(summary.includes("a invalid_type shape"), summary.join("; "));
});

test("jsonSchema in the browser", () => {
  const schema = value("jsonSchema(3)");
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.deepEqual(schema, JSON.parse(stringify(jsonSchema(3))), "the same schema as in Node");
});

test("errors in the browser are ZomErrors with a code", () => {
  const { error } = results["fromDocuments(garbage)"];
  assert.equal(error?.name, "ZomError");
  assert.equal(error?.code, "InvalidMetadata");
});

test('"zom/manual" without its .wasm (a 404, or an HTML page in its place) says what to do', async () => {
  for (const [wasm, said] of [
    ["/no/such/zom_wasm_bg.wasm", /HTTP 404/],
    ["/tests/browser/index.html", /is an HTML page, not zom's WebAssembly/],
  ]) {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/tests/browser/plain.mjs`);
      const error = await page.evaluate(async (wasm) => {
        const zom = await import("/pkg/manual.js");
        try {
          await zom.init({ wasm });
          return null;
        } catch (e) {
          return { code: e.code, message: e.message, loaded: zom.isInitialized() };
        }
      }, wasm);
      assert.ok(error, `init({ wasm: ${wasm} }) resolved`);
      assert.equal(error.code, "NotFound");
      assert.equal(error.loaded, false);
      assert.match(error.message, said);
      assert.match(error.message, /init\(\{ wasm: url \}\)/, "the message names the option");
      assert.match(error.message, /import "zom" instead/, "and the entry that carries the WebAssembly");
    } finally {
      await page.close();
    }
  }
});
