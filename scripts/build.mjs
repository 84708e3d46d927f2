// Builds the npm package into pkg/: the Rust crate to WebAssembly (+simd128, from
// .cargo/config.toml) with Cargo's `wasm-release` profile (zom compiled for size, the codec
// hot paths for speed: see Cargo.toml), the wasm-bindgen JS glue, wasm-opt -Os, then the
// TypeScript wrapper (and pkg/zom_schemas.js, the JSON Schemas as data).
// Run scripts/setup.mjs first (npm start / npm test / npm run build do).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { buildWww } from "../www/build.mjs";
import {
  CODEC_PARTS,
  capture,
  carriedDecoderModule,
  codecPartsModule,
  gzipSize,
  isMain,
  PARTS,
  root,
  run,
  runMain,
  StepError,
  seconds,
  targetDir,
} from "./lib.mjs";

const pkgDir = join(root, "pkg");
/** A part's optimised module in pkg/. */
const wasmOf = (part) => join(pkgDir, `${part.out}_bg.wasm`);
/** A part's module as cargo wrote it, kept per part (cargo's own output is the last build's). */
const cargoWasmOf = (part) => join(targetDir, "wasm32-unknown-unknown", PROFILE, `zom-${part.name}.wasm`);
const bin = (name) => join(root, "node_modules", ".bin", name);
/** The Cargo profile of the WebAssembly build (Cargo.toml). */
const PROFILE = "wasm-release";

// What the wasm-bindgen output uses (rustc's default wasm32 features plus +simd128). wasm-opt
// must be told, or it rejects the module; every engine zom supports has them all.
const WASM_FEATURES = [
  "--enable-simd",
  "--enable-bulk-memory",
  "--enable-sign-ext",
  "--enable-nontrapping-float-to-int",
  "--enable-mutable-globals",
  "--enable-reference-types",
  "--enable-multivalue",
];
// zstd-sys exports its C runtime shims (malloc, memcpy, qsort, …) from the cdylib; nothing in
// JS calls them, and the export keeps their unused code alive: drop them before optimising so
// that wasm-opt removes what the C decoder does not use.
const DROP_EXPORTS = ["--remove-exports", "--pass-arg=remove-exports@rust_zstd_wasm_shim_*"];
// -Os: the speed-critical code arrives already optimised for speed by LLVM, and decodes as fast
// after -Os as after -O3; --converge repeats the passes while they still shrink the module.
// --flatten --rereloop first rebuild the control flow, which -Os then shrinks further at the
// same decoding speed. -Os rather than -Oz: smaller gzipped, at the same decoding speed.
// --low-memory-unused lets wasm-opt fold a constant added to a pointer into the load's or
// store's offset. That is exact unless the pointer lies in the last KiB below 2^32 or the low
// 1 KiB is used; rust-lld puts the shadow stack first (below 1 MiB, growing down) and all static
// data and the heap above it, so the low 1 KiB is never addressed by a program whose stack has
// not overflowed (and an overflowed one then traps rather than writing there).
export const WASM_OPT_ARGS = [
  ...DROP_EXPORTS,
  "--low-memory-unused",
  "--flatten",
  "--rereloop",
  "-Os",
  "-Os",
  "--converge",
  ...WASM_FEATURES,
  "--strip-debug",
  "--strip-producers",
];

const MINIFY_ARGS = ["--minify-imports-and-exports-and-modules", ...WASM_FEATURES];

/**
 * Shortens the module's import and export names (wasm-bindgen's carry a 16-hex-digit hash each)
 * and rewrites the part's JS glue (pkg/<out>.js) to match: wasm-opt prints the renaming as JSON. The
 * glue reaches exports only as `wasm.NAME` and gives imports as the keys of one object; any name
 * not found exactly so fails the build rather than the page.
 */
function minifyNames(part) {
  const glue = join(pkgDir, `${part.out}.js`);
  const wasmOut = wasmOf(part);
  const out = capture(bin("wasm-opt"), [...MINIFY_ARGS, wasmOut, "-o", wasmOut]);
  if (out === null) throw new StepError("wasm-opt --minify-imports-and-exports-and-modules failed");
  const map = JSON.parse(out);
  let js = readFileSync(glue, "utf8");
  const modules = new Set(map.imports.map(([module]) => module));
  if (modules.size !== 1) throw new StepError(`expected one import module, found ${[...modules].join(", ")}`);
  const swap = (pattern, by, what) => {
    const found = js.match(pattern)?.length ?? 0;
    if (found !== 1) throw new StepError(`minifying names: ${what} occurs ${found} times in the glue`);
    js = js.replace(pattern, by);
  };
  const esc = (name) => name.replace(/[$]/g, "\\$&");
  swap(new RegExp(`"${esc([...modules][0]).replace(/\./g, "\\.")}": import0`, "g"), '"a": import0', "the module");
  for (const [, name, short] of map.imports) {
    swap(new RegExp(`^(\\s+)${esc(name)}: `, "gm"), (_, indent) => `${indent}${JSON.stringify(short)}: `, name);
  }
  for (const [name, short] of map.exports) {
    const uses = new RegExp(`\\bwasm\\.${esc(name)}\\b`, "g");
    js = js.replace(uses, () => `wasm[${JSON.stringify(short)}]`);
  }
  writeFileSync(glue, js);
}

/**
 * Leaves only `initSync` as the glue's way in: zom compiles the module itself (ts/parts/reader.ts), and
 * wasm-bindgen's async loader holds `new URL("<out>_bg.wasm", import.meta.url)`, which
 * makes Vite, webpack and Parcel copy the .wasm into every app, used or not, and has no
 * meaning in the CommonJS build. Also makes the glue find the global object as `globalThis`
 * (see below).
 */
function trimGlue(part) {
  const glue = join(pkgDir, `${part.out}.js`);
  let js = readFileSync(glue, "utf8");
  const cut = (from, to, what) => {
    const a = js.indexOf(from);
    const b = js.indexOf(to, a);
    if (a < 0 || b < 0 || js.indexOf(from, a + 1) >= 0) throw new StepError(`trimming the glue: ${what} not found once`);
    js = js.slice(0, a) + js.slice(b);
  };
  cut("async function __wbg_load(", "function initSync(", "__wbg_load");
  cut("let __wbg_init_promise;", "export { initSync, __wbg_init as default };", "__wbg_init");
  js = js.replace("export { initSync, __wbg_init as default };", "export { initSync };");
  // js-sys's global() (which wasm-bindgen's futures queue calls on the first async call) asks
  // for `self`, then `window`, then `globalThis`: in Node's main thread that reads `window`,
  // which a server-side framework may define as a trap. `globalThis` is the same object where
  // `self` exists, and every engine zom runs in has it. A part with no async export (the
  // views) has no such accessor.
  const self = "const ret = typeof self === 'undefined' ? undefined : self;";
  if (js.split(self).length > 2) throw new StepError("trimming the glue: the `self` accessor is there more than once");
  js = js.replace(self, "const ret = globalThis;");
  if (/import\.meta|__wbg_init\b|__wbg_load/.test(js)) throw new StepError("trimming the glue: the async loader is still there");
  writeFileSync(glue, js);
  const types = join(pkgDir, `${part.out}.d.ts`);
  let dts = readFileSync(types, "utf8");
  const decl = dts.indexOf("export default function __wbg_init");
  if (decl < 0) throw new StepError("trimming the glue: no __wbg_init declaration");
  // Its doc comment goes with it.
  const doc = dts.lastIndexOf("/**", decl);
  const own = doc >= 0 && dts.slice(dts.indexOf("*/", doc) + 2, decl).trim() === "";
  dts = dts.slice(0, own ? doc : decl) + dts.slice(dts.indexOf(";", decl) + 1);
  // `[Symbol.dispose]` needs lib "esnext" in the user's tsconfig, and the store modules' declarations
  // reach these ones (ts/parts/shared.ts): the classes keep `free()`.
  dts = dts.replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, "");
  writeFileSync(types, dts);
}

function timed(label, fn) {
  const t0 = performance.now();
  fn();
  console.log(`build: ${label} (${seconds(performance.now() - t0)})`);
}

/** Identifies one cargo output and the post-processing applied to it. */
function stampOf(file) {
  const s = statSync(file);
  return JSON.stringify({
    size: s.size,
    mtime: s.mtimeMs,
    wasmOpt: WASM_OPT_ARGS,
    minify: true,
    glue: "initSync, globalThis, no Symbol.dispose",
  });
}

/** Writes `text` to pkg/`name` (with `types` as its declarations, when given). */
function writePkg(name, text, types) {
  mkdirSync(pkgDir, { recursive: true });
  writeFileSync(join(pkgDir, name), text);
  if (types !== undefined) writeFileSync(join(pkgDir, name.replace(/\.js$/, ".d.ts")), types);
}

/**
 * Writes pkg/zom_schemas.js: the ZOM JSON Schemas (src/model/schema/*.json, which the Rust
 * crate embeds for native callers) and the spec format's (src/spec/spec.schema.json) as
 * minified JSON text, for ts/validator/api.ts's `jsonSchema` and `specSchema`, and the built-in
 * hierarchy specs, which ts/parts/reader.ts gives the module once it is instantiated. Data shipped
 * beside the module costs the .wasm nothing.
 */
function writeSchemas() {
  const minified = (...path) => JSON.stringify(JSON.parse(readFileSync(join(root, "src", ...path), "utf8")));
  const text = (v) => minified("model", "schema", `zom-v${v}.schema.json`);
  writePkg(
    "zom_schemas.js",
    `// Generated by scripts/build.mjs from src/model/schema/ and src/spec/spec.schema.json.\n` +
      `export const V2 = ${JSON.stringify(text(2))};\nexport const V3 = ${JSON.stringify(text(3))};\n` +
      `export const SPEC = ${JSON.stringify(minified("spec", "spec.schema.json"))};\n` +
      `export const BUILTIN_SPECS = ${JSON.stringify(Object.fromEntries(builtinSpecNames().map((n) => [n, minified("spec", "builtin", `${n}.json`)])))};\n`,
    "/** The ZOM JSON Schemas of Zarr v2 and v3, and that of hierarchy specs, as JSON text. */\n" +
      "export declare const V2: string;\nexport declare const V3: string;\nexport declare const SPEC: string;\n" +
      "/** The built-in hierarchy specs (src/spec/builtin/<name>.json) as JSON text by name: the module gets them at load. */\n" +
      "export declare const BUILTIN_SPECS: Record<string, string>;\n" +
      "/** The built-in hierarchy specs, by name (src/spec/builtin.rs `TABLE`; `specNames()` lists them at run time). */\n" +
      `export type BuiltinSpecName = ${builtinSpecNames()
        .map((n) => JSON.stringify(n))
        .join(" | ")};\n`,
  );
}

/**
 * The built-in specs' names, from their one list: src/spec/builtin.rs's `builtins!` TABLE
 * (`"ome-zarr-0.5" in "ome-zarr"`), each spec's file being src/spec/builtin/<name>.json.
 */
function builtinSpecNames() {
  const source = readFileSync(join(root, "src", "spec", "builtin.rs"), "utf8");
  const table = /\nbuiltins! \{([^}]*)\}/.exec(source)?.[1] ?? "";
  const names = [...table.matchAll(/"([^"]+)" in "[^"]+"/g)].map((m) => m[1]);
  if (names.length === 0) throw new StepError("no built-in specs found in src/spec/builtin.rs (builtins! { … })");
  return names;
}

/**
 * Writes ts/generated/boundary.ts: what the TypeScript side and the bindings must agree on
 * (error codes, limits, the options and results the bindings exchange), printed by
 * examples/gen_boundary.rs from the Rust definitions, for tsc to check ts/ against. The file is
 * committed too (readers and editors see it without a build); tests/boundary_ts.rs fails when
 * it is not what Rust prints. Rewritten only when it differs.
 */
function writeBoundary() {
  const text = capture("cargo", ["run", "--quiet", "--example", "gen_boundary"]);
  if (text === null) throw new StepError("cargo run --example gen_boundary failed");
  writeGenerated("boundary.ts", text, "Rust");
}

/**
 * Writes ts/generated/codec-parts.ts from scripts/lib.mjs CODEC_PARTS and
 * ts/generated/carried-decoder.ts from kernels/carried.wat (committed, as boundary.ts is;
 * tests/js/size.test.mjs and tests/js/carried.test.mjs fail when they are stale). Rewritten only
 * when they differ.
 */
function writeCodecParts() {
  writeGenerated("codec-parts.ts", codecPartsModule(), "scripts/lib.mjs");
  writeGenerated("carried-decoder.ts", carriedDecoderModule(), "kernels/carried.wat");
}

/** Writes `text` to ts/generated/`name` unless the file holds it already, saying what it was made from. */
function writeGenerated(name, text, from) {
  const file = join(root, "ts", "generated", name);
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  mkdirSync(join(root, "ts", "generated"), { recursive: true });
  writeFileSync(file, text);
  console.log(`build: ts/generated/${name} rewritten from ${from}`);
}

/** esbuild, loaded when needed: the scripts import this file before setup has installed the npm packages. */
const esbuild = () => createRequire(import.meta.url)("esbuild");

/**
 * A module's bytes as the text its JavaScript carries: printable ASCII that every bundler and
 * minifier keeps as it is (no quote, backslash or backtick, and no `<`, so that no `</script>`
 * appears in a page that inlines it), one token per byte, where the commonest byte values have
 * one character and the others two. A byte's token does not depend on its neighbours, so that
 * what repeats in the module repeats in the text, and HTTP's gzip and brotli compress the text
 * about as well as the `.wasm` file itself (compressed bytes in base64 would leave brotli
 * nothing to find). The text opens with its code: for each byte value in order, its
 * token in two characters (a one-character token followed by a space); ts/parts/carried.ts
 * `fromCarried` reads it.
 */
export function carriedText(bytes) {
  const alphabet = [];
  for (let c = 0x21; c < 0x7f; c++) if (!"\"'\\`<".includes(String.fromCharCode(c))) alphabet.push(String.fromCharCode(c));
  // The fewest two-character lead characters that give every byte value a token.
  let leads = 1;
  while (alphabet.length - leads + leads * alphabet.length < 256) leads++;
  const singles = alphabet.length - leads;
  const counts = new Array(256).fill(0);
  for (const b of bytes) counts[b]++;
  const byUse = [...counts.keys()].sort((a, b) => counts[b] - counts[a] || a - b);
  const tokens = new Array(256);
  byUse.forEach((byte, rank) => {
    const pair = rank - singles;
    tokens[byte] = pair < 0 ? alphabet[rank] : alphabet[singles + Math.floor(pair / alphabet.length)] + alphabet[pair % alphabet.length];
  });
  const code = tokens.map((t) => t.padEnd(2, " ")).join("");
  const body = new Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) body[i] = tokens[bytes[i]];
  return code + body.join("");
}

/** The text of a generated module that carries a `.wasm` (`what` names it in the comments). */
function carriedModule(bytes, what) {
  return (
    `// Generated by scripts/build.mjs: ${what}, carried as text (scripts/build.mjs carriedText).\n` +
    `export const WASM_BYTES = ${bytes.length};\nexport const WASM = "${carriedText(bytes)}";\n`
  );
}

/** The declarations of {@link carriedModule}'s module. */
const carriedTypes = (what) =>
  `/** The size of ${what}, in bytes. */\nexport declare const WASM_BYTES: number;\n` +
  `/** ${what}, carried as text (ts/parts/carried.ts fromCarried reads it). */\nexport declare const WASM: string;\n`;

/**
 * Writes pkg/<out>_inline.js: a part's module as text ({@link carriedText}), which its entry
 * carries so that no bundler has to copy an asset (ts/index.ts, ts/node.ts, ts/validate.ts).
 */
function writeInlineWasm(part) {
  const what = `zom's ${part.name} module (${part.out}_bg.wasm)`;
  writePkg(`${part.out}_inline.js`, carriedModule(readFileSync(wasmOf(part)), what), carriedTypes(what));
}

const WORKER_SOURCE_TYPES =
  "/** The decode worker's code (one script, no imports): `zomWorker.serve(side)` starts it. */\n" +
  "export declare const WORKER_SOURCE: string;\n";

/**
 * Bundles the decode worker (pkg/pool/worker.js and the glue) into one script with no
 * imports: pkg/zom_worker_source.js holds it as a string, from which the runtimes start
 * workers (a blob: URL, a Node eval), and pkg/zom_worker.js is the same script started for a
 * Web Worker, for pages that must serve it from their own origin (`init({ worker: url })`).
 */
function writeWorker() {
  const out = esbuild().buildSync({
    entryPoints: [join(pkgDir, "pool", "worker.js")],
    bundle: true,
    format: "iife",
    globalName: "zomWorker",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
  });
  const code = out.outputFiles[0].text.trim();
  // The one dynamic import allowed: of a registered codec module, by a variable holding its
  // URL (ts/pool/worker.ts importCodec); minified, `import(e)`.
  const dynamic = code.match(/\bimport\([A-Za-z_$][\w$]*\)/g) ?? [];
  const rest = code.replace(/\bimport\([A-Za-z_$][\w$]*\)/g, "");
  if (dynamic.length > 1 || /\bimport\b\s*\(|import\.meta/.test(rest)) throw new StepError("the worker bundle still imports something");
  writePkg(
    "zom_worker_source.js",
    `// Generated by scripts/build.mjs from ts/pool/worker.ts.\nexport const WORKER_SOURCE = ${JSON.stringify(code)};\n`,
  );
  writePkg(
    "zom_worker.js",
    `// zom's decode worker (scripts/build.mjs): serve this file and pass its URL as init({ worker }).\n${code}\nzomWorker.serve(self);\n`,
  );
}

/** Every file under `dir` (relative paths with "/"), for which `keep` holds. */
function filesUnder(dir, keep) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      relative(dir, join(e.parentPath ?? e.path, e.name))
        .split(sep)
        .join("/"),
    )
    .filter(keep)
    .sort();
}

/** Files only the browser entries use (zom/zarrita's too), and the CLI (ESM only): no CommonJS copy. */
const ESM_ONLY = /^(cli\/|index\.|manual\.|runtime\/browser\.|pool\/worker\.|zom_worker\.|zarrita\/index\.)/;

/**
 * Writes the CommonJS build beside the ES modules: each module of the Node entries as
 * `.cjs` (esbuild, one file at a time, so that "zom" and "zom/fs" share one instance of
 * every module) and each declaration file as `.d.cts`, with relative specifiers ending in
 * `.cjs`. `import.meta.url` (the .wasm beside "zom/manual") becomes the file's URL.
 */
function writeCommonJs() {
  const { transformSync } = esbuild();
  const toCjs = (text) => text.replace(/((?:require\(|from |import\()")(\.\.?\/[^"]+)\.js"/g, '$1$2.cjs"');
  for (const file of filesUnder(pkgDir, (f) => f.endsWith(".js") && !ESM_ONLY.test(f))) {
    const source = readFileSync(join(pkgDir, file), "utf8");
    const usesMeta = source.includes("import.meta.url");
    const { code } = transformSync(source, {
      format: "cjs",
      platform: "node",
      target: "node20",
      define: usesMeta ? { "import.meta.url": "__zomFileUrl" } : undefined,
      banner: usesMeta ? 'const __zomFileUrl = require("node:url").pathToFileURL(__filename).href;' : undefined,
      logLevel: "error",
    });
    writeFileSync(join(pkgDir, file.replace(/\.js$/, ".cjs")), toCjs(code));
  }
  for (const file of filesUnder(pkgDir, (f) => f.endsWith(".d.ts") && !ESM_ONLY.test(f))) {
    writeFileSync(join(pkgDir, file.replace(/\.d\.ts$/, ".d.cts")), toCjs(readFileSync(join(pkgDir, file), "utf8")));
  }
}

/**
 * A shipped part with its function names kept, for bench/size/size.mjs's byte attribution: cargo's
 * output through the same wasm-bindgen, wasm-opt and renaming steps as build(), with wasm-opt's
 * `-g` (keep the name section) in place of `--strip-debug`. Without its name section it is the
 * part's pkg/<out>_bg.wasm byte for byte (the size bench checks). Kept in the target directory,
 * remade when cargo's output or the steps change. Run build() first.
 * @param {string} [name] the part (scripts/lib.mjs PARTS), "read" by default
 * @returns {string} the path of the module
 */
export function namedWasm(name = "read") {
  const part = PARTS.find((p) => p.name === name);
  if (part === undefined) throw new StepError(`no part named ${name}`);
  const cargoWasm = cargoWasmOf(part);
  if (!existsSync(cargoWasm)) throw new StepError(`${cargoWasm} is missing: npm run build`);
  const suffix = name === "read" ? "" : `-${name}`;
  const out = join(targetDir, `zom-named${suffix}.wasm`);
  const stampFile = join(targetDir, `zom-named${suffix}.stamp`);
  const args = [...WASM_OPT_ARGS.filter((a) => a !== "--strip-debug"), "-g"];
  const stamp = JSON.stringify({ cargo: stampOf(cargoWasm), args, minify: MINIFY_ARGS });
  if (existsSync(out) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return out;
  const dir = join(targetDir, `zom-named${suffix}`);
  mkdirSync(dir, { recursive: true });
  timed(`wasm-bindgen + wasm-opt, names kept (size attribution of ${name})`, () => {
    run("wasm-bindgen", ["--target", "web", "--out-dir", dir, "--out-name", part.out, cargoWasm]);
    run(bin("wasm-opt"), [...args, join(dir, `${part.out}_bg.wasm`), "-o", out]);
    if (capture(bin("wasm-opt"), [...MINIFY_ARGS, "-g", out, "-o", out]) === null)
      throw new StepError("wasm-opt --minify-imports-and-exports-and-modules -g failed");
  });
  writeFileSync(stampFile, stamp);
  return out;
}

/**
 * Builds one part's module with cargo (no default features: the built-in specs ship in
 * pkg/zom_schemas.js, see writeSchemas) and keeps cargo's output under the part's name, rewritten
 * only when it changed (its time stamps what the later steps made of it).
 */
function cargoPart(part) {
  timed(`cargo build (wasm32, ${PROFILE}, ${part.name}: ${part.features.join(", ")})`, () =>
    run("cargo", [
      "build",
      "--profile",
      PROFILE,
      "--target",
      "wasm32-unknown-unknown",
      "--lib",
      "--no-default-features",
      "--features",
      part.features.join(","),
      ...Object.entries(part.optLevels ?? {}).flatMap(([crate, level]) => [
        "--config",
        `profile.${PROFILE}.package.${crate}.opt-level=${JSON.stringify(level)}`,
      ]),
    ]),
  );
  const produced = join(targetDir, "wasm32-unknown-unknown", PROFILE, "zom.wasm");
  if (!existsSync(produced)) throw new StepError(`cargo produced no ${produced}`);
  const kept = cargoWasmOf(part);
  const bytes = readFileSync(produced);
  if (!existsSync(kept) || !bytes.equals(readFileSync(kept))) writeFileSync(kept, bytes);
  return kept;
}

/** wasm-bindgen, wasm-opt and the renaming of one part, skipped when cargo's output is what they last saw. */
function bindPart(part, cargoWasm) {
  const wasmOut = wasmOf(part);
  // Kept out of pkg/, which is what npm publishes.
  const stampFile = join(targetDir, `zom-pkg-${part.name}.stamp`);
  const stamp = stampOf(cargoWasm);
  const upToDate =
    existsSync(wasmOut) && existsSync(join(pkgDir, `${part.out}.js`)) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp;
  if (upToDate) {
    console.log(`build: wasm-bindgen + wasm-opt of ${part.name} skipped (unchanged)`);
    return;
  }
  mkdirSync(pkgDir, { recursive: true });
  timed(`wasm-bindgen (${part.name})`, () =>
    run("wasm-bindgen", ["--target", "web", "--out-dir", pkgDir, "--out-name", part.out, cargoWasm]),
  );
  timed(`wasm-opt (${part.name})`, () => run(bin("wasm-opt"), [...WASM_OPT_ARGS, wasmOut, "-o", wasmOut]));
  timed(`minify import/export names (${part.name})`, () => minifyNames(part));
  trimGlue(part);
  if (!WebAssembly.validate(readFileSync(wasmOut))) {
    throw new StepError(`${wasmOut} does not validate in this Node (${process.version})`);
  }
  writeFileSync(stampFile, stamp);
}

/** A codec part's optimised module in pkg/. */
const codecWasmOf = (part) => join(pkgDir, `${part.out}.wasm`);

// A codec part has no wasm-bindgen glue (ts/parts/codec-calls.ts calls its C-ABI exports): the same
// -Os passes as the parts with glue, without the renaming and the C shims' removal.
const CODEC_PART_OPT_ARGS = ["--low-memory-unused", "-Os", "--converge", ...WASM_FEATURES, "--strip-debug", "--strip-producers"];

/**
 * Builds one codec part (scripts/lib.mjs CODEC_PARTS): kernels/parts as a cdylib with the
 * part's features and `export`, through wasm-opt into pkg/<out>.wasm (skipped when cargo's
 * output is unchanged), and pkg/<out>.js, the module carrying it as raw DEFLATE in base64.
 */
function buildCodecPart(part) {
  const features = ["export", ...part.features].join(",");
  timed(`cargo rustc (wasm32, ${PROFILE}, codec part ${part.name}: ${features})`, () =>
    run("cargo", [
      "rustc",
      "-p",
      "zom-parts",
      "--profile",
      PROFILE,
      "--target",
      "wasm32-unknown-unknown",
      "--lib",
      "--crate-type",
      "cdylib",
      "--no-default-features",
      "--features",
      features,
    ]),
  );
  const produced = join(targetDir, "wasm32-unknown-unknown", PROFILE, "zom_parts.wasm");
  if (!existsSync(produced)) throw new StepError(`cargo produced no ${produced}`);
  const kept = join(targetDir, "wasm32-unknown-unknown", PROFILE, `zom-part-${part.name}.wasm`);
  const bytes = readFileSync(produced);
  if (!existsSync(kept) || !bytes.equals(readFileSync(kept))) writeFileSync(kept, bytes);
  const wasmOut = codecWasmOf(part);
  const stampFile = join(targetDir, `zom-pkg-part-${part.name}.stamp`);
  const stamp = JSON.stringify({ cargo: stampOf(kept), args: CODEC_PART_OPT_ARGS });
  if (!(existsSync(wasmOut) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp)) {
    mkdirSync(pkgDir, { recursive: true });
    timed(`wasm-opt (codec part ${part.name})`, () => run(bin("wasm-opt"), [...CODEC_PART_OPT_ARGS, kept, "-o", wasmOut]));
    if (!WebAssembly.validate(readFileSync(wasmOut))) throw new StepError(`${wasmOut} does not validate in this Node (${process.version})`);
    writeFileSync(stampFile, stamp);
  }
  const wasm = readFileSync(wasmOut);
  const what = `zom's codec part "${part.name}" (${part.out}.wasm)`;
  writePkg(`${part.out}.js`, carriedModule(wasm, what), carriedTypes(what));
}

/** Builds pkg/ from the sources. */
export function build() {
  for (const part of PARTS) bindPart(part, cargoPart(part));
  for (const part of CODEC_PARTS) buildCodecPart(part);

  writeSchemas();
  for (const part of PARTS) writeInlineWasm(part);
  // Declared before tsc (ts/runtime/ imports it), written after (it bundles tsc's output).
  writePkg("zom_worker_source.d.ts", WORKER_SOURCE_TYPES);
  timed("ts/generated/boundary.ts (cargo run --example gen_boundary)", writeBoundary);
  writeCodecParts();
  timed("tsc", () => run(bin("tsc"), ["-p", join(root, "tsconfig.json")]));
  timed("tsc (Node-only: the Node entries, zom/fs, CLI)", () => run(bin("tsc"), ["-p", join(root, "tsconfig.node.json")]));
  timed("worker bundle", writeWorker);
  timed("CommonJS build", writeCommonJs);

  for (const part of PARTS) {
    const file = wasmOf(part);
    const raw = statSync(file).size;
    const gz = gzipSize(file);
    console.log(
      `build: pkg/${part.out}_bg.wasm (${part.name}, "${part.entry}") ${raw} bytes (${(raw / 1024).toFixed(1)} KiB), ` +
        `gzip -9 ${gz} bytes (${(gz / 1024).toFixed(1)} KiB; budget ${part.budget})`,
    );
  }
  for (const part of CODEC_PARTS) {
    const file = codecWasmOf(part);
    const raw = statSync(file).size;
    const gz = gzipSize(file);
    console.log(
      `build: pkg/${part.out}.wasm (codec part ${part.name}) ${raw} bytes (${(raw / 1024).toFixed(1)} KiB), ` +
        `gzip -9 ${gz} bytes (${(gz / 1024).toFixed(1)} KiB; budget ${part.budget})`,
    );
  }
  timed("explorer (www/dist)", () => buildWww(run));
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const { setup } = await import("./setup.mjs");
    setup();
    build();
  });
}
