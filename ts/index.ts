/**
 * zom, ready to use: importing this module loads the WebAssembly (top-level await), from
 * `zom_wasm_bg.wasm` next to it. Use "zom/manual" to choose where it comes from.
 * @module
 */
import { init } from "./load.js";

await init();

export * from "./public.js";
