// The WebAssembly the entries carry in their JavaScript (pkg/<out>_inline.js, pkg/zom_part_<name>.js,
// written by scripts/build.mjs carriedText): each text reads back (ts/parts/carried.ts fromCarried)
// into exactly the .wasm file beside it, is made of characters every bundler keeps as they are,
// and costs a page about what the .wasm file would, by gzip and by brotli; the decoder module
// (kernels/carried.wat) is what ts/generated/carried-decoder.ts holds. Builds nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { carriedText } from "../../scripts/build.mjs";
import { CODEC_PARTS, carriedDecoderModule, PARTS } from "../../scripts/lib.mjs";
import { repoRoot } from "./helpers.mjs";

const { fromCarried } = await import(join(repoRoot, "pkg", "parts", "carried.js"));

const CARRIED = [
  ...PARTS.map((p) => ({ name: p.name, js: `${p.out}_inline.js`, wasm: `${p.out}_bg.wasm` })),
  ...CODEC_PARTS.map((p) => ({ name: `codec part ${p.name}`, js: `${p.out}.js`, wasm: `${p.out}.wasm` })),
];

/** The carried module's text and size, as its generated module exports them. */
async function carriedOf(entry) {
  const { WASM, WASM_BYTES } = await import(join(repoRoot, "pkg", entry.js));
  return { text: WASM, size: WASM_BYTES, wasm: readFileSync(join(repoRoot, "pkg", entry.wasm)) };
}

test("ts/generated/carried-decoder.ts is kernels/carried.wat as wasm-as assembles it", () => {
  const file = join(repoRoot, "ts", "generated", "carried-decoder.ts");
  assert.equal(readFileSync(file, "utf8"), carriedDecoderModule(), "stale: `npm run build` writes it from kernels/carried.wat");
});

for (const entry of CARRIED) {
  test(`${entry.name}: pkg/${entry.js} reads back into pkg/${entry.wasm}, byte for byte`, async () => {
    const { text, size, wasm } = await carriedOf(entry);
    assert.equal(size, wasm.length);
    assert.ok(Buffer.from(fromCarried(text, size)).equals(wasm));
  });
}

test("a carried text is printable ASCII with no quote, backslash, backtick or '<' past its code", async () => {
  for (const entry of CARRIED) {
    const { text } = await carriedOf(entry);
    const bad = text.slice(512).match(/[^\x21-\x7e]|["'\\`<]/);
    assert.equal(bad, null, `${entry.name}: ${JSON.stringify(bad?.[0])} at ${bad?.index}`);
  }
});

test("the reader's carried text costs about what its .wasm does by gzip -9, and by brotli", async () => {
  const { text, wasm } = await carriedOf(CARRIED[0]);
  const gzip = (b) => gzipSync(b, { level: 9 }).length;
  const brotli = (b) => brotliCompressSync(b).length;
  const body = Buffer.from(text);
  assert.ok(gzip(body) <= gzip(wasm) * 1.01, `gzip: ${gzip(body)} against the .wasm's ${gzip(wasm)}`);
  assert.ok(brotli(body) <= brotli(wasm) * 1.04, `brotli: ${brotli(body)} against the .wasm's ${brotli(wasm)}`);
});

test("carriedText and fromCarried agree on every byte value, one-character and two-character tokens alike", () => {
  const bytes = new Uint8Array(4096);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256 < 128 ? i % 256 : 0;
  const text = carriedText(bytes);
  assert.ok(Buffer.from(fromCarried(text, bytes.length)).equals(Buffer.from(bytes)));
  assert.equal(fromCarried(carriedText(new Uint8Array(0)), 0).length, 0);
});

test("a damaged or cut carried text is refused with what and where, never read as other bytes", () => {
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31) % 256);
  const text = carriedText(bytes);
  assert.throws(() => fromCarried(text.slice(0, -1), bytes.length), /carried WebAssembly module is damaged \(at character/);
  assert.throws(() => fromCarried(`${text}!`, bytes.length), /damaged/);
  assert.throws(() => fromCarried(`${text.slice(0, 600)}\u00e9${text.slice(601)}`, bytes.length), /damaged/);
  assert.throws(() => fromCarried(text, bytes.length + 1), /damaged/);
});
