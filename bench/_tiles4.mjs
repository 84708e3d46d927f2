import * as zom from "zom";
import * as zarr from "zarrita";
import { startServer } from "../tests/server/server.mjs";
const server = { url: "http://127.0.0.1:18931" };
const coords = []; for (let i = 2; i < 6; i++) for (let j = 2; j < 6; j++) coords.push([i, j]);
async function run(name, arr, f) {
  await f(arr, [[0,0]]);
  const times = [];
  for (let r = 0; r < 21; r++) { const t0 = performance.now(); await f(arr, coords); times.push(Math.round(performance.now() - t0)); }
  times.sort((a, b) => a - b);
  console.log(name, "median", times[10], times.join(" "));
}
const zg = async (arr, cs) => { for await (const x of arr.getChunks(cs)) {} };
for (const workers of [0, 2]) {
  const store = await zom.IcechunkStore.open(`${server.url}/icechunk/repo/`, { branch: "main" });
  await run(`icechunk w${workers}`, await zom.openArray(store, "chunked", { workers }), zg);
  await run(`plain w${workers}`, await zom.openArray(new zom.FetchStore(`${server.url}/icechunk/plain/`), "chunked", { workers }), zg);
}
const za = await zarr.open(zarr.root(new zarr.FetchStore(`${server.url}/icechunk/plain/`)).resolve("chunked"), { kind: "array" });
await run("zarrita plain", za, (a, cs) => Promise.all(cs.map((c) => a.getChunk(c))));
process.exit(0);
