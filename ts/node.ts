/**
 * zom for Node (ESM; pkg/node.cjs is the same for `require`): the WebAssembly it carries is
 * loaded on first use, decode workers are `worker_threads`. See ts/index.ts.
 * @module
 */
import { inflateRawSync } from "node:zlib";
import { configure } from "./runtime/entry.js";
import { node } from "./runtime/node.js";
import { WASM } from "./zom_wasm_inline.js";

configure({ runtime: node, bundled: () => inflateRawSync(Buffer.from(WASM, "base64")) });

export * from "./read/api.js";
