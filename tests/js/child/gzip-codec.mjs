// A registered codec that replaces zom's built-in gzip (Node's zlib), counting its calls, for
// tests/js/codecs.test.mjs.
import { gunzipSync } from "node:zlib";

export function decode(bytes) {
  globalThis.zomGzipCalls = (globalThis.zomGzipCalls ?? 0) + 1;
  return new Uint8Array(gunzipSync(bytes));
}
