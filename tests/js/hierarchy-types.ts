// Compile-time test (tsc --strict --noEmit -p tests/js/tsconfig.json; never run): the hierarchy
// API's declarations type what a TypeScript caller writes.
import {
  type Chunk,
  ChunkCache,
  type ChunkCacheStats,
  FetchStore,
  open,
  openArray,
  openGroup,
  type Readable,
  type Selection,
  slice,
  type ZarrArray,
  type ZarrGroup,
  type ZomError,
} from "zom";
import { type WalkResult, walk } from "zom/validate";

export async function hierarchyUses(bytes: Uint8Array): Promise<number> {
  const http = new FetchStore("https://example.invalid/data.zarr", { concurrency: 8 });
  const map = new Map<string, Uint8Array>([["/zarr.json", bytes]]);
  const custom: Readable = { get: async (key: string) => (key === "/zarr.json" ? bytes : undefined) };

  const node: ZarrArray | ZarrGroup = await open(http);
  if (node.kind === "group") {
    const names: string[] | undefined = node.members;
    void names;
  }
  const group: ZarrGroup = await openGroup(map, "", { format: 3 });
  const arr: ZarrArray = await openArray(custom, "a/b", { signal: new AbortController().signal });
  const shape: number[] = arr.shape;
  const chunks: number[] | null = arr.chunks;
  const selection: Selection = [slice(0, 10), 3, null, slice(10), slice(null), slice(-5, null, 2)];
  const part: Chunk = await arr.get(selection, { onProgress: ({ done, total }) => void (done / total) });
  const whole: Chunk = await arr.get();
  const chunk: Chunk = await arr.getChunk([0, 0], { signal: AbortSignal.timeout(1000) });
  const cache = new ChunkCache({ maxBytes: 256 << 20 });
  const viewer = await open(http, "", { cache });
  const cachedPart: Chunk = await arr.get(selection, { cache, onProgress: ({ cached }) => void cached });
  const uncached: Chunk = await arr.getChunk([0, 0], { cache: null });
  const stats: ChunkCacheStats = cache.stats;
  cache.clear();
  void [viewer, cachedPart, uncached, stats.hits + stats.misses + stats.evictions + stats.bytes + stats.entries];
  const result: WalkResult = await walk(http, { depth: 2, concurrency: 4, onProgress: (p) => void p.nodes });
  const errors: ZomError[] = result.errors;
  const unlisted: string[] = result.unlisted;
  return (
    shape.length +
    (chunks?.length ?? 0) +
    part.shape.length +
    whole.data.length +
    chunk.shape.length +
    errors.length +
    unlisted.length +
    Object.keys(group.attributes).length
  );
}
