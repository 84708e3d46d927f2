// What a page downloads to open an array over HTTP and read it: the same small app bundled by
// esbuild (ESM, minified, code splitting, every chunk counted) with zom ("zom", which carries
// its WebAssembly; "zom/manual" with the .wasm served beside it) and with zarrita.js +
// numcodecs.js (zarrita's codecs load numcodecs' chunks, its WebAssembly inlined in its JS;
// all of them counted, as a page that meets every codec loads them), and zarrita's app again with
// zarrita aliased to "zom/zarrita". Each file gzipped on its
// own at level 9 (as a server would send it), sizes summed; the package's own files too.
// Then where the .wasm's bytes go (bench/size/attribution.mjs): twiggy top on the module built with
// its function names kept (scripts/build.mjs namedWasm, the shipped bytes plus a name section),
// rolled up per crate and listed per function, in "size.attribution"; the same for the other
// parts built with wasm-bindgen (validator, Icechunk, views, zip, references) in "size.parts_attribution".
// scripts/bench.mjs runs it (after setup's twiggy()); alone, after `node scripts/setup.mjs
// --twiggy` and `npm run build`: node bench/size/size.mjs [--out results.json] [--top N]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { namedWasm } from "../../scripts/build.mjs";
import { PARTS } from "../../scripts/lib.mjs";
import { TWIGGY_VERSION } from "../../scripts/setup.mjs";
import { benchDir, bundlePage, table } from "../lib/util.mjs";
import { attribute, twiggyVersion } from "./attribution.mjs";

const root = join(benchDir, "..");
const { values: args } = parseArgs({
  options: { out: { type: "string", default: join(benchDir, "results.json") }, top: { type: "string", default: "25" } },
});

/** The apps: what each imports and does (the same read with both libraries). */
const APPS = {
  zom: `import { FetchStore, openArray } from "zom";
    const arr = await openArray(new FetchStore(location.href), "a");
    console.log(await arr.get());`,
  "zom/manual": `import { FetchStore, init, openArray } from "zom/manual";
    await init({ wasm: new URL("zom_wasm_bg.wasm", location.href) });
    const arr = await openArray(new FetchStore(location.href), "a");
    console.log(await arr.get());`,
  zarrita: `import * as zarr from "zarrita";
    const arr = await zarr.open.v3(zarr.root(new zarr.FetchStore(location.href)).resolve("a"), { kind: "array" });
    console.log(await zarr.get(arr));`,
};
/** The zarrita app moved onto zom with the alias a viewer would use (zarrita → zom/zarrita). */
APPS["zom/zarrita"] = APPS.zarrita.replace('from "zarrita"', 'from "zom/zarrita"');

function measure(files) {
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(f);
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: files.length, raw, gz };
}

/**
 * The files of a bundle that reading the apps' array (zstd) loads: the page's first file, the
 * chunks it imports statically, and the codec module a zstd read imports (zarrita's `zstd`
 * chunk). Split files no such read loads (zarrita's other codecs, zom's codec parts, views and
 * Icechunk parts) are left out: a page downloads them only when it needs them.
 */
const LOADED = /^(stdin|chunk-[A-Z0-9]+|zstd-[A-Z0-9]+)\.js$/;

/** Bundles `source` and measures what the page loads (plus `extra` files the page serves beside it), and every file emitted. */
function bundle(source, extra = []) {
  const dir = mkdtempSync(join(tmpdir(), "zom-size-"));
  try {
    bundlePage({ source, outdir: dir, logLevel: "error" });
    const names = readdirSync(dir);
    const out = names.map((f) => join(dir, f));
    const loaded = names.filter((f) => LOADED.test(f)).map((f) => join(dir, f));
    return { js: measure(loaded), extra: measure(extra), emitted: measure(out) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const wasm = join(root, "pkg", "zom_wasm_bg.wasm");
if (!existsSync(wasm)) throw new Error("pkg/ is not built: npm run build");
const apps = {
  zom: bundle(APPS.zom),
  "zom/manual + .wasm": bundle(APPS["zom/manual"], [wasm]),
  "zarrita + numcodecs": bundle(APPS.zarrita),
  "the zarrita app on zom/zarrita": bundle(APPS["zom/zarrita"]),
};
const total = (a) => a.js.gz + a.extra.gz;

const twiggy = twiggyVersion();
if (twiggy !== TWIGGY_VERSION)
  throw new Error(`bench/size/size.mjs needs twiggy ${TWIGGY_VERSION} (found ${twiggy ?? "none"}): node scripts/setup.mjs --twiggy`);
const attribution = attribute({ namedFile: namedWasm(), shippedFile: wasm, top: Number(args.top) });
// The other WebAssembly parts with wasm-bindgen glue (validator, Icechunk, views, zip, references), the same way,
// their 10 largest items each.
const parts = Object.fromEntries(
  PARTS.filter((p) => p.name !== "read").map((p) => {
    const at = attribute({ namedFile: namedWasm(p.name), shippedFile: join(root, "pkg", `${p.out}_bg.wasm`), top: 10 });
    return [
      p.name,
      {
        entry: p.entry,
        file: `pkg/${p.out}_bg.wasm`,
        shipped_bytes: at.shipped_bytes,
        groups: at.groups,
        zom_modules: at.zom_modules.slice(0, 10),
        top: at.top,
      },
    ];
  }),
);

let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.size = {
  date: new Date().toISOString(),
  method:
    "one app per library opening and reading an array over HTTP, bundled by esbuild (esm, minify, splitting); each file gzipped on its own at level 9, sizes summed, of the files a read of the array (zstd) loads: the first file, its static chunks and the lazily imported zstd module (zarrita's zstd chunk); split files such a read does not load (other codecs, zom's codec, views and Icechunk parts) are in 'emitted'; zom/manual adds the .wasm served beside",
  apps,
  zom_total_gz: total(apps.zom),
  zom_manual_total_gz: total(apps["zom/manual + .wasm"]),
  peer_total_gz: total(apps["zarrita + numcodecs"]),
  zom_zarrita_total_gz: total(apps["the zarrita app on zom/zarrita"]),
  attribution: {
    method:
      `twiggy ${twiggy} top (shallow sizes) of the module built with function names kept (scripts/build.mjs namedWasm: the same wasm-bindgen, wasm-opt and renaming steps with -g instead of --strip-debug; without its name section it equals pkg/zom_wasm_bg.wasm byte for byte, checked), ` +
      "the name section left out so that the items add up to the shipped size; groups by the crate of each demangled name (bench/size/attribution.mjs: <T as Trait>::f counts for T's crate, drop_in_place<T> for T's, #[wasm_bindgen] functions under their export names for zom), " +
      "C zstd by its function prefixes (with its Rust bindings), wasm-bindgen's generated shims with its runtime crates, core/alloc/std/compiler_builtins as 'Rust std'; code LLVM inlined counts where it was inlined (lz4_flex's decoder inlined into zom counts for zom)",
    twiggy,
    ...attribution,
  },
  parts_attribution: parts,
};
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `\n${table(
    ["app bundled by esbuild", "JS files", "JS raw", "JS gzipped", ".wasm gzipped", "total gzipped"],
    Object.entries(apps).map(([k, a]) => [
      k,
      String(a.js.files),
      kb(a.js.raw),
      kb(a.js.gz),
      a.extra.files ? kb(a.extra.gz) : "—",
      kb(total(a)),
    ]),
  )}\n`,
);
const pct = (p) => `${p.toFixed(1)}%`;
console.log(
  `${table(
    [`zom_wasm_bg.wasm by crate (${attribution.shipped_bytes} bytes, twiggy ${twiggy})`, "bytes", "share", "items"],
    attribution.groups.map((g) => [g.group, String(g.bytes), pct(g.percent), String(g.items)]),
  )}\n`,
);
console.log(
  `${table(
    ["zom by module", "bytes", "share"],
    attribution.zom_modules.map((m) => [m.module, String(m.bytes), pct(m.percent)]),
  )}\n`,
);
console.log(
  `${table(
    [`largest ${attribution.top.length} items`, "bytes", "share", "group"],
    attribution.top.map((t) => [t.name.length > 110 ? `${t.name.slice(0, 109)}…` : t.name, String(t.bytes), pct(t.percent), t.group]),
  )}\n`,
);
console.log(`bench: wrote the "size" section of ${args.out}`);
