// The CommonJS declarations (pkg/*.d.cts), as a TypeScript user of `require("zom")` sees them:
// type-checked by `tsc -p tests/js/tsconfig.json` (npm test), never run.
import zom = require("zom");
import zomFs = require("zom/fs");
import manual = require("zom/manual");

async function readOne(dir: string): Promise<number[]> {
  const version: string = zom.version();
  const stats: zom.WorkerStats = zom.workerStats();
  await manual.init({ workers: stats.workers > 0 ? 2 : 0 });
  const store = new zomFs.FsStore(dir);
  const arr = await zom.openArray(store, "image/gradient_circles");
  const { shape } = await arr.get([zom.slice(0, 10), null], { workers: 0 });
  const chunk: zom.Chunk = await arr.getChunk([0, 0]);
  return [...shape, chunk.shape.length, version.length];
}

export = readOne;
