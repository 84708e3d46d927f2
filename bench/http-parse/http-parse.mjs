// What reading HTTP answers costs since the rules moved into WebAssembly (src/store/wire/):
// the TypeScript parsers FetchStore had up to b468fe0 against the wrappers of the http*
// exports it calls now, in this Node process, on the built pkg/ (`node scripts/build.mjs`).
//
//   node bench/http-parse/http-parse.mjs [--runs N] [--base REV]
//
// Cases, each timed as the median of N runs (a warm-up run first):
// - an S3 ListObjectsV2 page of 1000 keys (plus 10 common prefixes, some entities): old =
//   TextDecoder + parseS3Listing(text) (what list.ts did), new = parseS3Listing(bytes, full);
// - an nginx-style HTML index of 1000 entries: old = TextDecoder + looksLikeHtml +
//   parseHtmlIndex(text, url), new = parseHtmlIndex(bytes, url, contentType);
// - parseContentRange on 100,000 header values.
// The old code is taken from git (`git show REV:ts/store/listing.ts`, and parseContentRange out
// of range.ts), transpiled with esbuild into a temporary directory.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transformSync } from "esbuild";
import { median } from "../lib/util.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Number(arg("--runs", "15"));
const BASE = arg("--base", "b468fe0");

/** The old TypeScript parsers, as an imported module. */
async function oldParsers() {
  const show = (path) => execFileSync("git", ["show", `${BASE}:${path}`], { cwd: root, encoding: "utf8" });
  const listing = show("ts/store/listing.ts");
  const range = show("ts/store/range.ts");
  const m = /export type ContentRange[\s\S]*?\nexport function parseContentRange[\s\S]*?\n}\n/.exec(range);
  if (!m) throw new Error(`no parseContentRange in ${BASE}:ts/store/range.ts`);
  const { code } = transformSync(`${listing}\n${m[0]}`, { loader: "ts", format: "esm" });
  const dir = mkdtempSync(join(tmpdir(), "zom-http-parse-"));
  const file = join(dir, "old.mjs");
  writeFileSync(file, code);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function s3Page(n) {
  const contents = Array.from(
    { length: n },
    (_, i) =>
      `<Contents><Key>data/store.zarr/arr&amp;${i % 7}/c/${i}/0</Key><LastModified>2026-11-21T10:05:00.000Z</LastModified>` +
      `<ETag>&quot;${i.toString(16).padStart(32, "0")}&quot;</ETag><Size>${1000 + i}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
  ).join("");
  const prefixes = Array.from({ length: 10 }, (_, i) => `<CommonPrefixes><Prefix>data/store.zarr/g${i}/</Prefix></CommonPrefixes>`).join(
    "",
  );
  return (
    `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
    `<Name>bucket</Name><Prefix>data/store.zarr/</Prefix><KeyCount>${n}</KeyCount><MaxKeys>1000</MaxKeys>` +
    `<Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>${contents}${prefixes}` +
    `<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>`
  );
}

function htmlIndex(n) {
  const rows = Array.from({ length: n }, (_, i) => {
    const name = i % 10 === 0 ? `dir%20${i}/` : `chunk.${i}.0`;
    return `<a href="${name}">${decodeURIComponent(name)}</a>                                      21-Nov-2026 10:05    ${i}`;
  }).join("\n");
  return `<html><head><title>Index of /data/x/</title></head><body><h1>Index of /data/x/</h1><hr><pre><a href="../">../</a>\n${rows}\n</pre><hr></body></html>`;
}

/** Median milliseconds of one call of `f` (batched `inner` times per run), awaited when it gives a promise (the listing parsers do). */
async function time(f, inner = 1) {
  await f();
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < inner; i++) await f();
    runs.push((performance.now() - t0) / inner);
  }
  return median(runs);
}

function same(what, a, b) {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: old and new disagree\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
}

const zom = await import("zom");
await zom.init();
const { parseS3Listing, parseHtmlIndex } = await import(pathToFileURL(join(root, "pkg/store/listing-rules.js")).href);
const { parseContentRange } = await import(pathToFileURL(join(root, "pkg/store/wire.js")).href);
const old = await oldParsers();

const rows = [];
const row = (name, oldMs, newMs, unit = "ms") => rows.push({ name, oldMs, newMs, unit });

// (a) S3 page.
const xml = s3Page(1000);
const xmlBytes = new TextEncoder().encode(xml);
same("S3 page", old.parseS3Listing(xml), await parseS3Listing(xml));
row(
  "S3 page, 1000 keys",
  await time(() => old.parseS3Listing(new TextDecoder().decode(xmlBytes)), 5),
  await time(() => parseS3Listing(xmlBytes, "data/store.zarr/"), 5),
);
row("  (new, from a string, no full)", NaN, await time(() => parseS3Listing(xml), 5));

// (b) HTML index.
const html = htmlIndex(1000);
const htmlBytes = new TextEncoder().encode(html);
const url = "http://localhost:8080/data/x/";
same("HTML index", old.parseHtmlIndex(html, url), await parseHtmlIndex(html, url));
row(
  "HTML index, 1000 entries",
  await time(() => {
    const text = new TextDecoder().decode(htmlBytes);
    if (old.looksLikeHtml("text/html", text)) old.parseHtmlIndex(text, url);
  }, 5),
  await time(() => parseHtmlIndex(htmlBytes, url, "text/html"), 5),
);

// (c) Content-Range ×100k.
const headers = Array.from({ length: 1000 }, (_, i) => `bytes ${i * 4096}-${i * 4096 + 4095}/${1 << 30}`);
for (const h of [...headers.slice(0, 5), "bytes */42", "nonsense", "bytes 0-99999999999999999999/*"])
  same(h, old.parseContentRange(h), parseContentRange(h));
const many = (f) => () => {
  for (let k = 0; k < 100; k++) for (const h of headers) f(h);
};
row("parseContentRange ×100k", await time(many(old.parseContentRange)), await time(many(parseContentRange)));

const fmt = (ms) => (Number.isNaN(ms) ? "-" : ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
console.log(`node ${process.version}, median of ${RUNS} runs; old = TypeScript at ${BASE}, new = WebAssembly exports`);
console.log(`${"case".padEnd(34)}${"old".padStart(12)}${"new".padStart(12)}${"new/old".padStart(10)}`);
for (const r of rows) {
  const ratio = Number.isNaN(r.oldMs) ? "" : (r.newMs / r.oldMs).toFixed(2);
  console.log(`${r.name.padEnd(34)}${fmt(r.oldMs).padStart(12)}${fmt(r.newMs).padStart(12)}${ratio.padStart(10)}`);
}
