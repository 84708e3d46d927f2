// What it costs to start, in headless Chromium (Debian's, as the browser tests use it): a page
// bundled by esbuild from bench/load/load-page.js, served from 127.0.0.1 with the sample hierarchy
// (tests/fixtures/sample), each run in a new tab, no HTTP cache. Per case, the median over
// --runs of:
// - zom's carried WebAssembly ("zom"): `await init()` (the carried text read into bytes,
//   compile, instantiate) with its parts, and the first call without init (the same,
//   synchronously);
// - zom's .wasm fetched beside ("zom/manual", `init({ wasm: url })`: compileStreaming);
// - WebAssembly.compile of zom's module from its bytes, and its instantiation (`init` of
//   "zom/manual" with the compiled module), apart;
// - the first read of image/gradient_circles (256×256 uint16, 64 inner chunks of 4 zstd
//   shards) with the decode workers started from the carried code (a blob: URL) or from
//   zom/worker served by the page (`init({ worker: url })`), against the second read: chunks
//   decode on the calling thread until the workers are up, so the difference is what the
//   first read pays while they start;
// - zarrita.js + numcodecs.js (the peer, also bundled by esbuild), first and second read of the
//   same array (the first loads numcodecs' zstd WebAssembly, inlined in its JS).
// Writes the "load" section of bench/results.json. scripts/bench.mjs runs it (--only load);
// alone: node bench/load/load.mjs [--runs N] [--out results.json]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { launchChromium } from "../../tests/browser/chromium.mjs";
import { startServer } from "../../tests/server/server.mjs";
import { benchDir, bundlePage, median, table } from "../lib/util.mjs";

const root = join(benchDir, "..");
const { values } = parseArgs({
  options: { runs: { type: "string", default: "7" }, out: { type: "string", default: join(benchDir, "results.json") } },
});
const runs = Math.max(3, Number(values.runs));
const outDir = join(benchDir, ".load");

/** Bundles the page and copies what it serves itself (the .wasm and the worker script). */
function buildPage() {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  bundlePage({ entry: join(benchDir, "load", "load-page.js"), outdir: outDir });
  for (const file of ["zom_wasm_bg.wasm", "zom_worker.js"]) writeFileSync(join(outDir, file), readFileSync(join(root, "pkg", file)));
  writeFileSync(
    join(outDir, "index.html"),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="load-page.js"></script>\n',
  );
}

/** The byte costs of carrying the module in the JS rather than beside it. */
function sizes() {
  const wasm = readFileSync(join(root, "pkg", "zom_wasm_bg.wasm"));
  const inline = readFileSync(join(root, "pkg", "zom_wasm_inline.js"));
  const worker = readFileSync(join(root, "pkg", "zom_worker_source.js"));
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const br = (b) => brotliCompressSync(b).length;
  return {
    wasm_file: { raw: wasm.length, gzip: gz(wasm), brotli: br(wasm) },
    carried_in_js: { raw: inline.length, gzip: gz(inline), brotli: br(inline) },
    worker_code: { raw: worker.length, gzip: gz(worker), brotli: br(worker) },
  };
}

const CASES = ["inline-init", "inline-sync", "manual-url", "compile-instantiate", "pool-blob", "pool-url", "zarrita"];

async function main() {
  if (!existsSync(join(root, "pkg", "zom_wasm_inline.js"))) throw new Error("pkg/ is not built: npm run build");
  buildPage();
  const server = await startServer({ root: outDir, mounts: { "/data/": join(root, "tests", "fixtures") } });
  const { browser, profile } = await launchChromium("zom-bench-load-");
  const samples = Object.fromEntries(CASES.map((c) => [c, []]));
  const loadBefore = loadavg()[0];
  try {
    for (let run = 0; run < runs; run++) {
      // Alternating the cases run by run, each in a new tab.
      for (const c of run % 2 ? [...CASES].reverse() : CASES) {
        const page = await browser.newPage();
        const problems = [];
        page.on("console", (m) => ["warning", "error"].includes(m.type()) && problems.push(m.text()));
        page.on("pageerror", (e) => problems.push(e.message));
        await page.goto(`${server.url}/index.html?case=${c}`);
        await page.waitForFunction(() => "loadResult" in window, null, { timeout: 30_000 });
        const result = await page.evaluate(() => window.loadResult);
        await page.close();
        if (result.error || problems.length) throw new Error(`${c}: ${result.error ?? ""} ${problems.join("; ")}`);
        samples[c].push(result);
      }
    }
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    await server.close();
  }
  const loadAfter = loadavg()[0];
  const med = (c, key) => median(samples[c].map((r) => r[key]));
  const ms = (x) => x.toFixed(1);
  const load = {
    "zom: await init() (carried WebAssembly)": {
      total: med("inline-init", "total"),
      text_to_bytes: med("inline-init", "decode"),
      compile: med("inline-init", "compile"),
    },
    "zom: first call, no init (synchronous)": { total: med("inline-sync", "total") },
    "zom/manual: await init({ wasm: url }) (fetch + compileStreaming)": { total: med("manual-url", "total") },
  };
  const module = { compile: med("compile-instantiate", "compile"), instantiate: med("compile-instantiate", "instantiate") };
  const reads = {
    "zom, workers from the carried code (blob: URL)": { first: med("pool-blob", "first"), second: med("pool-blob", "second") },
    "zom, workers from zom/worker (init({ worker: url }))": { first: med("pool-url", "first"), second: med("pool-url", "second") },
    "zarrita.js + numcodecs.js": { first: med("zarrita", "first"), second: med("zarrita", "second") },
  };
  console.log(
    `\n${table(
      ["loading zom's WebAssembly", "ms", "of which the carried text to bytes", "compile"],
      Object.entries(load).map(([k, v]) => [
        k,
        ms(v.total),
        ...["text_to_bytes", "compile"].map((p) => (v[p] === undefined ? "" : ms(v[p]))),
      ]),
    )}\n`,
  );
  console.log(
    `${table(
      ["zom's module in the page", "ms"],
      [
        ["WebAssembly.compile (bytes in memory)", ms(module.compile)],
        ["instantiate (init with the module: new WebAssembly.Instance + start)", ms(module.instantiate)],
      ],
    )}\n`,
  );
  console.log(
    `${table(
      ["reading gradient_circles (64 chunks)", "first read ms", "second read ms", "difference"],
      Object.entries(reads).map(([k, v]) => [k, ms(v.first), ms(v.second), ms(v.first - v.second)]),
    )}\n`,
  );
  const bytes = sizes();
  console.log(
    `${table(
      ["bytes", "raw", "gzip -9", "brotli"],
      Object.entries(bytes).map(([k, v]) => [k, String(v.raw), String(v.gzip), String(v.brotli)]),
    )}\n`,
  );
  let results = {};
  if (existsSync(values.out)) results = JSON.parse(readFileSync(values.out, "utf8"));
  results.load = {
    date: new Date().toISOString(),
    browser: "Debian Chromium, headless (tests/browser/chromium.mjs)",
    runs,
    load_average: [loadBefore, loadAfter],
    method:
      "median over runs of a new tab per case, cases alternated; page bundled by esbuild (bench/load/load-page.js), served from 127.0.0.1 without HTTP cache; reads of tests/fixtures/sample/image/gradient_circles whole, the first including the workers' start (zom) or the codec's WebAssembly (zarrita); module_ms: WebAssembly.compile of the .wasm's bytes (fetched before timing, with an empty custom section unique to the run so that no compiled module is reused) and init of zom/manual with the compiled module (initSync: new WebAssembly.Instance and the start function)",
    load_ms: load,
    module_ms: module,
    read_ms: reads,
    bytes,
  };
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: wrote the "load" section of ${values.out}`);
}

await main();
