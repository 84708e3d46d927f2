// What a page downloads: zom's .wasm raw and gzipped, its JS (pkg/**/*.js, the worker
// included) gzipped, and the peer's: zarrita's JS (dist/src/**/*.js, without tests and maps)
// and numcodecs.js (dist/*.js, its codecs' WebAssembly inlined as base64 in the JS). Each
// file is gzipped on its own at level 9 (as a server would send it) and the sizes summed.
// scripts/bench.mjs runs it; alone: node bench/size.mjs [--out results.json]
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { table } from "./util.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const { values: args } = parseArgs({ options: { out: { type: "string", default: join(here, "results.json") } } });

/** Every file under `dir` whose name passes `keep`, recursively. */
function files(dir, keep) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && keep(join(e.parentPath ?? e.path, e.name)))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

function measure(list) {
  let raw = 0;
  let gz = 0;
  for (const f of list) {
    const bytes = readFileSync(f);
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: list.length, raw, gz };
}

const js = (f) => f.endsWith(".js");
const rows = {
  "zom .wasm": measure([join(root, "pkg", "zom_wasm_bg.wasm")]),
  "zom JS (pkg/**/*.js)": measure(files(join(root, "pkg"), js)),
  "zarrita JS": measure(files(join(root, "node_modules", "zarrita", "dist", "src"), (f) => js(f) && !f.includes("__tests__"))),
  "numcodecs.js (JS + inlined wasm)": measure(files(join(root, "node_modules", "numcodecs", "dist"), js)),
};
const zomTotal = rows["zom .wasm"].gz + rows["zom JS (pkg/**/*.js)"].gz;
const peerTotal = rows["zarrita JS"].gz + rows["numcodecs.js (JS + inlined wasm)"].gz;

let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.size = {
  date: new Date().toISOString(),
  method: "each file gzipped on its own at level 9, sizes summed; zarrita: dist/src/**/*.js without tests; numcodecs: dist/*.js",
  results: rows,
  zom_total_gz: zomTotal,
  peer_total_gz: peerTotal,
};
writeFileSync(args.out, JSON.stringify(results, null, 2) + "\n");
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `\n${table(
    ["download", "files", "raw", "gzipped"],
    [...Object.entries(rows).map(([k, v]) => [k, String(v.files), kb(v.raw), kb(v.gz)]), ["zom total", "", "", kb(zomTotal)], ["zarrita + numcodecs total", "", "", kb(peerTotal)]],
  )}\n`,
);
console.log(`bench: wrote the "size" section of ${args.out}`);
