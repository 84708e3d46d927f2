// The size budgets of the WebAssembly parts (scripts/lib.mjs PARTS: the reader "zom" and the
// validator "zom/validate"): each pkg/<out>_bg.wasm compressed by `gzip -9`, as the build
// prints it, must stay within its part's budget; and what each entry's page loads is only its
// own part (a validator page loads no decoder, a viewer no validator). Builds nothing: it reads
// what the build left in pkg/. docs/size.md says where the bytes go.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { CODEC_PARTS, codecPartsModule, gzipSize, PARTS } from "../../scripts/lib.mjs";
import { repoRoot } from "./helpers.mjs";

test("the codec parts are declared once: ts/generated/codec-parts.ts is what scripts/lib.mjs CODEC_PARTS gives", () => {
  const file = join(repoRoot, "ts", "generated", "codec-parts.ts");
  assert.equal(readFileSync(file, "utf8"), codecPartsModule(), "stale: `npm run build` writes it from CODEC_PARTS");
});

for (const part of PARTS) {
  const wasm = join(repoRoot, "pkg", `${part.out}_bg.wasm`);
  test(`${part.name} part (${part.entry}): pkg/${part.out}_bg.wasm compressed by gzip -9 is at most ${part.budget} bytes`, () => {
    const name = relative(repoRoot, wasm);
    if (!existsSync(wasm)) assert.fail(`${name} is missing: build it first with \`npm run build\` (node scripts/build.mjs)`);
    const bytes = readFileSync(wasm);
    assert.ok(WebAssembly.validate(bytes), `${name} is not a valid WebAssembly module: build it again with \`npm run build\``);
    const gzipped = gzipSize(wasm);
    assert.ok(gzipped > bytes.length / 4, `gzip -9 gave ${gzipped} bytes for ${bytes.length}: not a measure of this module`);
    assert.ok(
      gzipped <= part.budget,
      `${name} is ${gzipped} bytes gzipped (${bytes.length} raw), ${gzipped - part.budget} over the ${part.budget}-byte budget (docs/size.md: where the bytes go)`,
    );
  });
}

for (const part of CODEC_PARTS) {
  const wasm = join(repoRoot, "pkg", `${part.out}.wasm`);
  test(`codec part ${part.name} (${part.codecs.join(", ")}): pkg/${part.out}.wasm compressed by gzip -9 is at most ${part.budget} bytes`, () => {
    const name = relative(repoRoot, wasm);
    if (!existsSync(wasm)) assert.fail(`${name} is missing: build it first with \`npm run build\` (node scripts/build.mjs)`);
    const bytes = readFileSync(wasm);
    assert.ok(WebAssembly.validate(bytes), `${name} is not a valid WebAssembly module`);
    const gzipped = gzipSize(wasm);
    assert.ok(
      gzipped <= part.budget,
      `${name} is ${gzipped} bytes gzipped (${bytes.length} raw), ${gzipped - part.budget} over the ${part.budget}-byte budget`,
    );
    // What ts/parts/codec-calls.ts calls, and nothing it must supply.
    const module = new WebAssembly.Module(bytes);
    assert.deepEqual(WebAssembly.Module.imports(module), [], `${name} imports something`);
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    for (const name of ["memory", "zom_text", "zom_input", "zom_decode", "zom_output", "zom_output_len"])
      assert.ok(exports.includes(name), `${part.out} lacks ${name}`);
  });
}

test("the reader holds no decoder that a codec part holds, and each part only its own", () => {
  // A message of each decoder, in the data of the module it is linked into.
  const markers = {
    deflate: "deflate decompression error",
    lzma: "the lzma data is truncated",
    bzip2: "the bzip2 data is truncated",
    pcodec: "magic header does not match",
    zfp: "invalid ZFP header magic",
  };
  const read = readFileSync(join(repoRoot, "pkg", `${PARTS[0].out}_bg.wasm`));
  for (const part of CODEC_PARTS) {
    const marker = markers[part.name];
    assert.ok(marker !== undefined, `no marker for the codec part ${part.name}`);
    assert.ok(!read.includes(marker), `the reader holds the ${part.name} decoder`);
    for (const other of CODEC_PARTS) {
      const bytes = readFileSync(join(repoRoot, "pkg", `${other.out}.wasm`));
      assert.equal(bytes.includes(marker), other === part, `${other.out} and the ${part.name} decoder`);
    }
  }
});

/** The functions and classes a part's glue exports: the JS API the part has. */
function glueExports(part) {
  const glue = readFileSync(join(repoRoot, "pkg", `${part.out}.js`), "utf8");
  return new Set([...glue.matchAll(/^export (?:function|class) (\w+)/gm)].map((m) => m[1]));
}

/** The S3 and HTML listing rules' exports (src/wasm/listing.rs). */
const LISTING_RULES = ["httpS3Page", "httpS3PageUrl", "httpHtmlIndex", "httpS3Candidates"];

test("each part has the bindings of its job and not the other's", () => {
  const [read, tools] = PARTS;
  const r = glueExports(read);
  const t = glueExports(tools);
  for (const name of ["openNode", "ArrayHandle", "ChunkDecoder", "PoolDecoder", "newChunkCache", "nodeKinds"]) {
    assert.ok(r.has(name), `the reader lacks ${name}`);
    assert.ok(!t.has(name), `the validator has the reader's ${name}`);
  }
  // The node summaries are for user interfaces, the validator's job (zom/zarrita's consolidated
  // store asks the reader for the nodes' kinds alone); the listing rules are the validator's,
  // which walks stores by listing them, and a reader's page loads them as the listing part.
  for (const name of [
    "walkHierarchy",
    "validateHierarchy",
    "detectConventions",
    "diff",
    "fromDocuments",
    "summarizeTree",
    ...LISTING_RULES,
  ]) {
    assert.ok(t.has(name), `the validator lacks ${name}`);
    assert.ok(!r.has(name), `the reader has the validator's ${name}`);
  }
  for (const name of ["httpContentRange", "defaultLimits", "version", "toDocuments"]) {
    assert.ok(r.has(name) && t.has(name), `${name} is not in both parts`);
  }
  for (const name of ["ZipArchive", "ReferenceIndex", "checkReferences"]) {
    assert.ok(
      !r.has(name) && !t.has(name),
      `${name} is in the reader or the validator: zip archives and references are parts of their own`,
    );
  }
});

test("the validator's part links no decoder (only the reader decodes chunks)", () => {
  // zstd's match-length base table (3, 4, …, 34 as 32-bit integers; RFC 8878 3.1.1.3.2.1.1):
  // data of the C zstd decoder, in the module it is linked into.
  const zstdTable = Buffer.alloc(128);
  for (let i = 0; i < 32; i++) zstdTable.writeUInt32LE(3 + i, i * 4);
  const module = (part) => readFileSync(join(repoRoot, "pkg", `${part.out}_bg.wasm`));
  const [read, tools] = PARTS;
  assert.ok(module(read).includes(zstdTable), "the reader's module has no zstd table: the marker is stale");
  assert.ok(!module(tools).includes(zstdTable), "the validator's module holds zstd's decoder tables");
});

/**
 * What a page loads for its job, bundled by esbuild (ESM, minified, one file) from the built
 * package: the JS with the WebAssembly part it carries. Budgets by `gzip -9` (Node's zlib).
 */
const PAGES = [
  {
    job: "a viewer (open an array, read a region)",
    source: 'import { FetchStore, openArray } from "zom"; export const f = async (u) => (await openArray(new FetchStore(u))).get();',
    part: "read",
    budget: 322_000,
  },
  {
    job: "a validator (walk, validate)",
    source:
      'import { FetchStore, walk, validateHierarchy } from "zom/validate"; export const f = async (u) => validateHierarchy(await walk(new FetchStore(u)));',
    part: "tools",
    budget: 288_000,
  },
];

/**
 * The page's first file (what it loads before it reads anything) and the files split off it:
 * the codec parts are dynamic imports, which esbuild splits into files of their own.
 */
function bundle(source) {
  const { buildSync } = createRequire(import.meta.url)("esbuild");
  const out = buildSync({
    stdin: { contents: source, resolveDir: repoRoot, loader: "js" },
    bundle: true,
    splitting: true,
    outdir: "out",
    format: "esm",
    platform: "browser",
    minify: true,
    write: false,
    logLevel: "error",
  });
  const first = out.outputFiles.find((f) => f.path.endsWith("stdin.js"));
  return { first: first.contents, split: out.outputFiles.filter((f) => f !== first).map((f) => f.contents) };
}

/** The start of the module pkg/`file` carries (its text past the code): in a bundle when the module is. */
const carriedStart = (file) => readFileSync(join(repoRoot, "pkg", file), "utf8").match(/WASM = "[^"]{512}([^"]{64})/)[1];
/** The start of a part's carried module (pkg/<out>_inline.js). */
const carriedPart = (part) => carriedStart(`${part.out}_inline.js`);

for (const page of PAGES) {
  test(`${page.job}: its page's JS, with the part it carries, is at most ${page.budget} bytes by gzip -9, and carries no other part`, () => {
    const { first: js, split } = bundle(page.source);
    const gz = gzipSync(js, { level: 9 }).length;
    assert.ok(
      gz <= page.budget,
      `${page.job}: ${gz} bytes gzipped (${js.length} raw), ${gz - page.budget} over the ${page.budget}-byte budget`,
    );
    const text = Buffer.from(js).toString("latin1");
    for (const part of PARTS) {
      assert.equal(
        text.includes(carriedPart(part)),
        part.name === page.part,
        `${page.job}: the ${part.name} part is ${part.name === page.part ? "missing" : "in the bundle"}`,
      );
    }
    // The codec parts are split off a reader's page (loaded when an array needs one), and
    // not reachable from a validator's.
    const splitText = split.map((f) => Buffer.from(f).toString("latin1")).join("\n");
    for (const part of CODEC_PARTS) {
      const carried = carriedStart(`${part.out}.js`);
      assert.ok(!text.includes(carried), `${page.job}: the codec part ${part.name} is in the page's first file`);
      assert.equal(
        splitText.includes(carried),
        page.part === "read",
        `${page.job}: the codec part ${part.name} ${page.part === "read" ? "is not split off" : "is reachable"}`,
      );
    }
  });
}

test("an Icechunk page: the Icechunk part is split off the page's first file (loaded when a repository is opened), and holds only its job", () => {
  const icechunk = PARTS.find((p) => p.name === "icechunk");
  const { first, split } = bundle(
    'import { IcechunkStore, openArray } from "zom"; export const f = async (u) => (await openArray(await IcechunkStore.open(u), "a")).get();',
  );
  const carried = carriedPart(icechunk);
  assert.ok(!Buffer.from(first).toString("latin1").includes(carried), "the Icechunk part is in the page's first file");
  assert.ok(
    split.some((f) => Buffer.from(f).toString("latin1").includes(carried)),
    "the Icechunk part is not split off",
  );
  const exports = glueExports(icechunk);
  for (const name of ["IcechunkRepo", "IcechunkCheckout"]) assert.ok(exports.has(name), `the Icechunk part lacks ${name}`);
  for (const name of ["openNode", "ArrayHandle", "ChunkDecoder", "walkHierarchy", "validateHierarchy", "ZipArchive", "toDocuments"]) {
    assert.ok(!exports.has(name), `the Icechunk part has ${name}`);
  }
});

/** The store parts loaded on first use: what a page of each entry does with one, and the bindings it must hold. */
const STORE_PAGES = [
  {
    part: "references",
    when: "a store is made",
    use: 'import { ReferenceStore } from "ENTRY"; export const f = async (u) => (await ReferenceStore.fromUrl(u)).get("/.zgroup");',
    holds: ["ReferenceIndex", "checkReferences", "defaultLimits"],
  },
  {
    part: "zip",
    when: "an archive is opened",
    use: 'import { ZipStore } from "ENTRY"; export const f = async (u) => (await ZipStore.fromUrl(u)).get("/zarr.json");',
    holds: ["ZipArchive"],
  },
  {
    part: "listing",
    when: "an HTTP store is first listed",
    use: 'import { FetchStore } from "ENTRY"; export const f = (u) => new FetchStore(u).list("/");',
    holds: LISTING_RULES,
  },
];

for (const entry of ["zom", "zom/validate"]) {
  for (const page of STORE_PAGES) {
    test(`a ${page.part} page (${entry}): the ${page.part} part is split off the page's first file (loaded when ${page.when}), and holds only its job`, () => {
      const part = PARTS.find((p) => p.name === page.part);
      const { first, split } = bundle(page.use.replace("ENTRY", entry));
      const carried = carriedPart(part);
      assert.ok(!Buffer.from(first).toString("latin1").includes(carried), `the ${page.part} part is in the page's first file`);
      assert.ok(
        split.some((f) => Buffer.from(f).toString("latin1").includes(carried)),
        `the ${page.part} part is not split off`,
      );
      const exports = glueExports(part);
      for (const name of page.holds) assert.ok(exports.has(name), `the ${page.part} part lacks ${name}`);
      for (const name of [
        "openNode",
        "ArrayHandle",
        "ChunkDecoder",
        "walkHierarchy",
        "validateHierarchy",
        "ZipArchive",
        "ReferenceIndex",
        "IcechunkRepo",
        "setPartCaller",
      ]) {
        if (!page.holds.includes(name)) assert.ok(!exports.has(name), `the ${page.part} part has ${name}`);
      }
    });
  }
}

test("a viewer's page: the views part is split off its first file (loaded when the page first describes or draws), and holds only its job", () => {
  const views = PARTS.find((p) => p.name === "views");
  const { first, split } = bundle('import { loadViews } from "zom"; export const f = async (zom) => (await loadViews()).describe(zom);');
  const carried = carriedPart(views);
  assert.ok(!Buffer.from(first).toString("latin1").includes(carried), "the views part is in the page's first file");
  assert.ok(
    split.some((f) => Buffer.from(f).toString("latin1").includes(carried)),
    "the views part is not split off",
  );
  const exports = glueExports(views);
  for (const name of ["describe", "levelFor", "decodeTimes", "unpack", "composite", "overlayLabels"])
    assert.ok(exports.has(name), `the views part lacks ${name}`);
  for (const name of ["openNode", "ArrayHandle", "ChunkDecoder", "walkHierarchy", "validateHierarchy", "ZipArchive", "IcechunkRepo"]) {
    assert.ok(!exports.has(name), `the views part has ${name}`);
  }
});

test("the decode worker's code (started from a blob: URL, or served as zom/worker) is at most 7,000 bytes by gzip -9", () => {
  const code = readFileSync(join(repoRoot, "pkg", "zom_worker.js"));
  const gz = gzipSync(code, { level: 9 }).length;
  assert.ok(gz <= 7_000, `pkg/zom_worker.js: ${gz} bytes gzipped (${code.length} raw)`);
});
