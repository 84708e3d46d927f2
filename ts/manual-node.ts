/**
 * "zom/manual" for Node: `await init()` reads `zom_wasm_bg.wasm` from next to this file.
 * See ts/manual.ts.
 * @module
 */
import { configure } from "./runtime/entry.js";
import { node } from "./runtime/node.js";

configure({ runtime: node, beside: () => new URL("./zom_wasm_bg.wasm", import.meta.url) });

export * from "./read/api.js";
