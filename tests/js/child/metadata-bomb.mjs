// One hostile metadata document, served by tests/server on 127.0.0.1 and opened with
// FetchStore + open in this process, so that the caller (tests/js/bombs.test.mjs) can read the
// peak memory it cost. Prints one JSON line: the error, the bytes the store and the server
// counted, the time, the peak RSS, and the memory held after the store is dropped.
//
//   node --expose-gc tests/js/child/metadata-bomb.mjs gzip|chunked|length [--inflated MiB]
import { gzipSync } from "node:zlib";
import { FetchStore, open } from "zom";
import { walk } from "zom/validate";
import { startServer } from "../../server/server.mjs";
import { fixtures } from "../helpers.mjs";

const MiB = 2 ** 20;
const [kind, flag, value] = process.argv.slice(2);
const inflated = (flag === "--inflated" ? Number(value) : 900) * MiB;

/** A `zarr.json` that never ends well: a group whose attribute is `inflated` bytes of "a". */
const HEAD = Buffer.from('{"zarr_format": 3, "node_type": "group", "attributes": {"x": "');
const BLOCK = Buffer.alloc(16 * MiB, "a");

/** The same body in `parts` pieces: gzip members (which concatenated are one gzip body) or raw. */
function* body(encode) {
  yield encode(HEAD);
  const member = encode(BLOCK);
  for (let sent = 0; sent < inflated; sent += BLOCK.length) yield member;
}

const routes = {
  // A few MB of gzip that inflates to `inflated` bytes.
  "/gzip/zarr.json": () => ({
    status: 200,
    headers: { "content-type": "application/json", "content-encoding": "gzip" },
    body: body((b) => gzipSync(b, { level: 9 })),
  }),
  // A plain body with no Content-Length (chunked), as long as `inflated`.
  "/chunked/zarr.json": () => ({ status: 200, headers: { "content-type": "application/json" }, body: body((b) => b) }),
  // A plain body whose Content-Length announces it.
  "/length/zarr.json": () => ({
    status: 200,
    headers: { "content-type": "application/json", "content-length": String(HEAD.length + inflated) },
    body: body((b) => b),
  }),
};

const server = await startServer({ root: fixtures, routes });
const started = performance.now();
let store = new FetchStore(`${server.url}/${kind}`, { retries: 0 });
const out = { kind, inflated };
try {
  await open(store);
  out.error = null;
} catch (e) {
  out.error = { code: e.code, message: e.message, key: e.key, path: e.path };
}
out.ms = Math.round(performance.now() - started);
out.storeBytes = store.stats.bytes;
out.storeRequests = store.stats.requests;
// A refused document is not cached: asking again asks the server again (the format given, the
// walk asks for zarr.json alone).
await walk(store, { format: 3 }).catch(() => undefined);
out.requestsAfterWalk = store.stats.requests;
out.serverBytes = server.stats.bytes;
await server.close();
store = null;
for (let i = 0; i < 3; i++) {
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 20));
}
const mem = process.memoryUsage();
out.peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
out.heldAfterMiB = Math.round((mem.heapUsed + mem.arrayBuffers) / MiB);
console.log(JSON.stringify(out));
