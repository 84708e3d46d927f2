/**
 * zom for browsers, their workers and any runtime without a more specific entry: the reader
 * (ARCHITECTURE.md, "Parts"). It carries its WebAssembly inside its JavaScript
 * (pkg/zom_wasm_inline.js, as text), so that every bundler ships it with no
 * configuration: the first call loads it, or `await init()` beforehand compiles it off the
 * main thread. "zom/manual" carries none.
 * @module
 */
import { fromCarried } from "./parts/carried.js";
import { browser } from "./runtime/browser.js";
import { configure } from "./runtime/entry.js";
import { WASM, WASM_BYTES } from "./zom_wasm_inline.js";

configure({ runtime: browser, bundled: () => fromCarried(WASM, WASM_BYTES) });

export * from "./read/api.js";
