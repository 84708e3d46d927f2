// What a Vitessce view loads from an AnnData store (AnnData's Zarr encoding), through
// @vitessce/zarr's loaders over HTTP: cell sets (ObsSetsAnndataLoader), an embedding
// (ObsEmbeddingAnndataLoader), spatial locations (ObsLocationsAnndataLoader), polygon
// segmentations (ObsSegmentationsAnndataLoader), obs and var labels (ObsLabelsAnndataLoader,
// FeatureLabelsAnndataLoader), and the cell × gene matrix, dense, int64, CSR and CSC, whole and
// two genes' columns (ObsFeatureMatrixAnndataLoader). Prints one JSON line: every value the
// loaders returned (typed arrays as their class and values), per store.
//
// MODE "published" imports @vitessce/zarr as published: a bundle with zarrita 0.7.5 inside it.
// MODE "modules" loads @vitessce/zarr and @vitessce/zarr-utils from their own modules
// (unbundled-hooks.mjs), whose `import … from "zarrita"` is resolved like any other, so that
// "zarrita" sent to zom/zarrita (`--import ../viv/alias.mjs`) is what the loaders read with.
// `zarritaArrays` says whether the arrays the loaders opened are "zarrita"'s `Array`.
//
//   node [--import ../viv/alias.mjs] read.mjs published|modules BASE_URL store-path…
import { register } from "node:module";

const [mode, base, ...stores] = process.argv.slice(2);
if (mode === "modules") register("./unbundled-hooks.mjs", import.meta.url);
else if (mode !== "published") throw new Error(`MODE is "published" or "modules", not ${JSON.stringify(mode)}`);

const vitessce = await import("@vitessce/zarr");
const zarrita = await import("zarrita");
const { AnnDataSource } = vitessce;

/** A loader's answer as plain JSON: typed arrays as {type, values}, Maps as entry lists. */
function plain(value) {
  if (ArrayBuffer.isView(value))
    return { type: value.constructor.name, values: Array.from(value, (v) => (typeof v === "bigint" ? Number(v) : v)) };
  if (value instanceof Map) return [...value].map(([k, v]) => [plain(k), plain(v)]);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return typeof value === "function" ? undefined : value;
}

/** A loader of class `name` on a fresh AnnData data source for `url`, as Vitessce builds them. */
function loader(name, url, fileType, options, coordinationValues) {
  const config = { url, fileType, options, coordinationValues };
  return new vitessce[name](new AnnDataSource(config), config);
}

/** Everything the loaders give for the AnnData store at `url`. */
async function readStore(url) {
  const out = {};
  const obsSets = await loader("ObsSetsAnndataLoader", url, "obsSets.anndata.zarr", {
    obsSets: [
      { name: "Leiden", path: "obs/leiden" },
      { name: "Cell type", path: "obs/cell_type" },
    ],
  }).load();
  out.obsSets = {
    obsIndex: obsSets.data.obsIndex,
    tree: obsSets.data.obsSets.tree.map(({ name, children }) => ({ name, children: children.map((c) => ({ name: c.name, set: c.set })) })),
    columns: plain(obsSets.data.obsSetsColumns?.columns),
    obsSetSelection: obsSets.coordinationValues.obsSetSelection,
  };
  const embedding = await loader(
    "ObsEmbeddingAnndataLoader",
    url,
    "obsEmbedding.anndata.zarr",
    { path: "obsm/X_umap" },
    { embeddingType: "UMAP" },
  ).load();
  out.obsEmbedding = plain(embedding.data);
  const locations = await loader("ObsLocationsAnndataLoader", url, "obsLocations.anndata.zarr", { path: "obsm/spatial" }).load();
  out.obsLocations = plain(locations.data);
  const segmentations = await loader("ObsSegmentationsAnndataLoader", url, "obsSegmentations.anndata.zarr", {
    path: "obsm/X_segmentations",
  }).load();
  const { obsSegmentations } = segmentations.data;
  out.obsSegmentations = {
    obsIndex: segmentations.data.obsIndex,
    type: segmentations.data.obsSegmentationsType,
    shape: obsSegmentations.shape,
    polygons: obsSegmentations.data,
  };
  out.obsLabels = plain((await loader("ObsLabelsAnndataLoader", url, "obsLabels.anndata.zarr", { path: "obs/label" }).load()).data);
  const featureLabels = (await loader("FeatureLabelsAnndataLoader", url, "featureLabels.anndata.zarr", { path: "var/symbol" }).load()).data;
  out.featureLabels = { featureIndex: featureLabels.featureIndex, featureLabels: featureLabels.featureLabels };
  out.matrices = {};
  for (const path of ["X", "layers/counts", "layers/csr", "layers/csc"]) {
    const matrix = loader("ObsFeatureMatrixAnndataLoader", url, "obsFeatureMatrix.anndata.zarr", { path });
    const { data } = await matrix.load();
    const genes = await matrix.loadGeneSelection({ selection: ["gene_1", "gene_5"] });
    out.matrices[path] = { ...plain(data), geneSelection: plain(genes.data) };
  }
  const source = new AnnDataSource({ url, fileType: "obsFeatureMatrix.anndata.zarr" });
  out.zarritaArrays = (await source.openArray("X")) instanceof zarrita.Array;
  return out;
}

const out = { zarrita: import.meta.resolve("zarrita"), vitessce: import.meta.resolve("@vitessce/zarr"), stores: {} };
for (const store of stores) out.stores[store] = await readStore(new URL(store, base).href);
console.log(JSON.stringify(out));
process.exit(0);
