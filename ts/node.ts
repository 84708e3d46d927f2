/**
 * zom for Node (ESM; pkg/node.cjs is the same for `require`): the WebAssembly it carries is
 * loaded on first use, decode workers are `worker_threads`. See ts/index.ts.
 * @module
 */
import { fromCarried } from "./parts/carried.js";
import { configure } from "./runtime/entry.js";
import { node } from "./runtime/node.js";
import { WASM, WASM_BYTES } from "./zom_wasm_inline.js";

configure({ runtime: node, bundled: () => fromCarried(WASM, WASM_BYTES) });

export * from "./read/api.js";
