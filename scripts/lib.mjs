// Shared helpers of the repository scripts (Node built-ins only: they run before npm install).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (the scripts live in <root>/scripts). */
export const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Cargo's target directory: $CARGO_TARGET_DIR when set, else ./target. */
export const targetDir = process.env.CARGO_TARGET_DIR || join(root, "target");

/** An error that ends a script with a message and no stack trace. */
export class StepError extends Error {}

// A fresh shell may not have sourced rustup's profile: put cargo's bin directory on PATH so
// cargo, rustup and the tools cargo installs (wasm-bindgen) are found by the children.
const cargoBin = join(process.env.CARGO_HOME || join(homedir(), ".cargo"), "bin");
const pathParts = (process.env.PATH || "").split(delimiter);
if (existsSync(cargoBin) && !pathParts.includes(cargoBin)) {
  process.env.PATH = [cargoBin, ...pathParts].join(delimiter);
}

/**
 * Runs a command with inherited stdio; throws StepError when it fails.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, cwd?: string }} [opts]
 */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd ?? root,
    stdio: "inherit",
    env: { ...process.env, ...opts.env },
  });
  if (r.error) throw new StepError(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const how = r.signal ? `signal ${r.signal}` : `exit code ${r.status}`;
    throw new StepError(`\`${[cmd, ...args].join(" ")}\` failed (${how})`);
  }
}

/**
 * Runs a command and returns its stdout, or null when it cannot run or fails.
 * @param {string} cmd
 * @param {string[]} args
 */
export function capture(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error || r.status !== 0) return null;
  return r.stdout;
}

/**
 * The WebAssembly parts of the package (ARCHITECTURE.md, "Parts"): each is the crate built with
 * the cargo features of its job, written as pkg/<out>_bg.wasm with its glue pkg/<out>.js and
 * carried deflated in pkg/<out>_inline.js. `budget` is the most the .wasm may weigh compressed
 * by `gzip -9`, in bytes: the build prints the figure and tests/js/size.test.mjs holds each
 * part to it (docs/size.md).
 */
export const PARTS = [
  { name: "read", entry: "zom", out: "zom_wasm", features: ["decode", "bind-read", "lazy-parts"], budget: 291_000 },
  { name: "tools", entry: "zom/validate", out: "zom_tools", features: ["bind-tools"], budget: 259_000 },
  { name: "icechunk", entry: "IcechunkStore.open", out: "zom_icechunk", features: ["bind-icechunk"], budget: 121_000 },
  { name: "views", entry: "loadViews", out: "zom_views", features: ["bind-views"], budget: 112_000 },
  { name: "zip", entry: "ZipStore.open", out: "zom_zip", features: ["bind-zip"], budget: 61_000 },
  { name: "references", entry: "ReferenceStore", out: "zom_references", features: ["bind-references"], budget: 65_000 },
  { name: "listing", entry: "FetchStore.list", out: "zom_listing", features: ["bind-listing"], budget: 36_000 },
];

/**
 * The codec parts (ARCHITECTURE.md, "Parts"): the decoders of codecs little data uses, which
 * the reader calls but does not hold. Each is the crate kernels/parts built alone with the
 * cargo features of its codecs (and `export`), written as pkg/<out>.wasm and carried deflated
 * by pkg/<out>.js, the module ts/generated/codec-parts.ts (written from this list by
 * scripts/build.mjs) imports the first time an array needs the part. `codecs` are the codecs
 * whose decoders it holds, `describes` names them in messages, and `budget` is the most the
 * .wasm may weigh compressed by `gzip -9`, in bytes (tests/js/size.test.mjs). The part names
 * are the ones the Rust codecs give (src/codec/lazy.rs).
 */
export const CODEC_PARTS = [
  {
    name: "deflate",
    out: "zom_part_deflate",
    features: ["deflate"],
    codecs: ["gzip", "zlib", "numcodecs.gzip", "numcodecs.zlib"],
    describes: "gzip and zlib",
    budget: 31_000,
  },
  { name: "lzma", out: "zom_part_lzma", features: ["lzma"], codecs: ["numcodecs.lzma"], describes: "numcodecs lzma", budget: 14_000 },
  { name: "bzip2", out: "zom_part_bzip2", features: ["bzip2"], codecs: ["numcodecs.bz2"], describes: "numcodecs bz2", budget: 11_000 },
  { name: "pcodec", out: "zom_part_pcodec", features: ["pcodec"], codecs: ["numcodecs.pcodec"], describes: "pcodec", budget: 45_000 },
  { name: "zfp", out: "zom_part_zfp", features: ["zfp"], codecs: ["numcodecs.zfpy", "zfp"], describes: "zfp and zfpy", budget: 33_000 },
];

/**
 * The text of ts/generated/codec-parts.ts: each codec part's module by a literal dynamic
 * `import()` (what lets every bundler split it into a file of its own) and what it decodes,
 * from {@link CODEC_PARTS}.
 */
export function codecPartsModule() {
  const imports = CODEC_PARTS.map((p) => `  ${p.name}: () => import("../${p.out}.js"),`).join("\n");
  const describes = CODEC_PARTS.map((p) => `  ${p.name}: ${JSON.stringify(p.describes)},`).join("\n");
  return `// Generated by scripts/build.mjs from scripts/lib.mjs CODEC_PARTS: edit that list, not this file.

/** A codec part's module (pkg/zom_part_<name>.js): its .wasm as raw DEFLATE in base64, and its size. */
export interface PartModule {
  WASM: string;
  WASM_BYTES: number;
}

/** Each codec part's module, by name: literal specifiers, for the bundlers. */
export const PART_IMPORTS: Record<string, () => Promise<PartModule>> = {
${imports}
};

/** The codecs whose decoders each part holds, for messages. */
export const PART_DESCRIBES: Record<string, string> = {
${describes}
};
`;
}

/**
 * The size of the file at `path` compressed by GNU gzip at level 9, the budget's measure (gzip
 * is on every Debian system). Node's zlib at level 9 finds other matches and comes out larger.
 * @param {string} path
 */
export function gzipSize(path) {
  const r = spawnSync("gzip", ["-9", "-c", path], { maxBuffer: 1 << 30 });
  if (r.error || r.status !== 0) throw new StepError(`\`gzip -9 -c ${path}\` failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout.length;
}

/** Formats milliseconds as seconds with one decimal. */
export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * Runs main() and exits: 0 when it resolves, 1 with the message when it throws.
 * @param {() => Promise<void> | void} main
 */
export async function runMain(main) {
  try {
    await main();
  } catch (e) {
    if (e instanceof StepError) console.error(`error: ${e.message}`);
    else console.error(e);
    process.exit(1);
  }
}

/** True when the module with this import.meta.url is the script node was started with. */
export function isMain(url) {
  return process.argv[1] !== undefined && fileURLToPath(url) === process.argv[1];
}

const METADATA_NAMES = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"]);

/**
 * Every Zarr metadata document under a hierarchy's directory, by store key ("a/b/zarr.json"),
 * as bytes, keys sorted. Chunks are left out.
 * @param {string} dir
 * @returns {Map<string, Uint8Array>}
 */
export function readMetadataDocuments(dir) {
  const docs = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !METADATA_NAMES.has(entry.name)) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    docs.push([relative(dir, file).split(sep).join("/"), readFileSync(file)]);
  }
  return new Map(docs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
