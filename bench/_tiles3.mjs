import * as zom from "zom";
import { startServer } from "../tests/server/server.mjs";
const server = await startServer({ root: "/work/main/bench/data", latencyMs: 20 });
const url = `${server.url}/icechunk/repo/`;
const coords = []; for (let i = 2; i < 6; i++) for (let j = 2; j < 6; j++) coords.push([i, j]);
for (const workers of [0, 2]) {
const store = await zom.IcechunkStore.open(url, { branch: "main" });
const arr = await zom.openArray(store, "chunked", { workers });
await arr.getChunk([0, 0]);
const times = [];
for (let r = 0; r < 21; r++) {
  const t0 = performance.now();
  for await (const x of arr.getChunks(coords)) {}
  times.push(Math.round(performance.now() - t0));
}
times.sort((a, b) => a - b);
console.log("workers", workers, "median", times[10], times.join(" "));
}
process.exit(0);
