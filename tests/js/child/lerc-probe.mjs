// The example LERC codec (examples/codecs/lerc.mjs), marking the thread that imported it, so
// that tests can tell whether the decode workers or the calling thread applied it.
export { decode } from "../../../examples/codecs/lerc.mjs";

if (typeof process !== "undefined") console.trace("imported");
globalThis.zomLercImports = (globalThis.zomLercImports ?? 0) + 1;
