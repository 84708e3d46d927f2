// Type-checks zarrita-style viewer code against "zom/zarrita"'s declarations (tests/js/tsconfig.json): what
// aliasing zarrita to zom/zarrita asks of a TypeScript viewer.
import * as zarr from "zom/zarrita";
export async function f(url: string, signal: AbortSignal) {
  const store = new zarr.FetchStore(url, { overrides: { credentials: "include" } });
  const grp = await zarr.open(store, { kind: "group" });
  const attrs: Record<string, unknown> = grp.attrs;
  const arr = await zarr.open(grp.resolve("0"), { kind: "array" });
  if (arr.is("number")) {
    const r = await zarr.get(arr, [0, null, zarr.slice(0, 10)], { opts: { signal } });
    const d = r.data;
    const s: number[] = r.stride;
    void d;
    void s;
  }
  const c = await arr.getChunk([0, 0], { signal });
  const a2 = new zarr.Array(store, "/x", {
    zarr_format: 3,
    node_type: "array",
    shape: [1],
    data_type: "uint16",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
    chunk_key_encoding: { name: "default" },
    codecs: [],
    fill_value: 0,
    attributes: {},
  });
  zarr.registry.set("foo", async () => ({ fromConfig: () => ({ decode: (b: Uint8Array) => b }) }));
  try {
    await zarr.open.v3(store);
  } catch (e) {
    if (zarr.isZarritaError(e, "NotFoundError")) console.log(e.path);
  }
  return [attrs, c.shape, a2.dtype, await zarr.withConsolidatedMetadata(store)];
}
