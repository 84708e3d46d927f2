/**
 * zom for browsers, their workers and any runtime without a more specific entry. It carries
 * its WebAssembly inside its JavaScript (pkg/zom_wasm_inline.js: deflated, base64), so that
 * every bundler ships it with no configuration: the first call loads it, or `await init()`
 * beforehand compiles it off the main thread. "zom/manual" carries none.
 * @module
 */
import { inflateSync } from "./inflate.js";
import { configure } from "./runtime.js";
import { browser, fromBase64 } from "./runtime/browser.js";
import { WASM, WASM_BYTES } from "./zom_wasm_inline.js";

const bundled = (): Uint8Array => inflateSync(fromBase64(WASM), { out: new Uint8Array(WASM_BYTES) });

/** The bytes through the engine's own inflater (DecompressionStream), else fflate's. */
async function bundledAsync(): Promise<Uint8Array> {
  if (typeof DecompressionStream !== "function") return bundled();
  try {
    const stream = new Blob([fromBase64(WASM) as BlobPart]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    if (bytes.length === WASM_BYTES) return bytes;
  } catch {
    // An engine without "deflate-raw" (Safari before 16.4): fflate below.
  }
  return bundled();
}

configure({ runtime: browser, bundled, bundledAsync });

export * from "./public.js";
