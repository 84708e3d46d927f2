/**
 * zom without the WebAssembly inside: `await init()` loads `zom_wasm_bg.wasm` from next to
 * this file (bundlers that handle `new URL(…, import.meta.url)` copy it: Vite, webpack,
 * Parcel), or `await init({ wasm })` from where you serve it. The API throws
 * ZomError("InvalidArgument") until then.
 * @module
 */

import { browser } from "./runtime/browser.js";
import { configure } from "./runtime/entry.js";

configure({ runtime: browser, beside: () => new URL("./zom_wasm_bg.wasm", import.meta.url) });

export * from "./read/api.js";
