// A real viewer's data loaders on zom: an app on @vitessce/zarr 4.0.8 (Vitessce's zarr loaders,
// pinned in tests/zarrita-suite/vitessce/package-lock.json with the zarrita 0.7.5 they depend
// on) loads an AnnData object that anndata wrote in Zarr format 2 and 3
// (tests/fixtures/anndata/, from generate.py) over HTTP with Vitessce's AnnData loaders: cell
// sets, embedding, locations, polygon segmentations, obs and var labels, and the cell × gene
// matrix stored dense, int64, CSR and CSC (tests/zarrita-suite/vitessce/read.mjs). Three runs:
// the package as published (a bundle with its own copy of zarrita inside, which no alias of
// "zarrita" reaches); its modules (dist-tsc/, see unbundled-hooks.mjs) on zarrita; and the same
// modules with "zarrita" sent to zom/zarrita by Node's resolve hook
// (tests/zarrita-suite/viv/alias.mjs). All three must load the same values, and those must be
// the values anndata wrote (tests/fixtures/anndata/expected.json).
//
//   node scripts/setup.mjs --suites   # installs the app
//   node --test --test-reporter=spec tests/js/vitessce.test.mjs
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../server/server.mjs";
import { fixtures, repoRoot, runNodeScript } from "./helpers.mjs";

const appDir = join(repoRoot, "tests", "zarrita-suite", "vitessce");
const alias = join(repoRoot, "tests", "zarrita-suite", "viv", "alias.mjs");
const STORES = ["v2.adata.zarr/", "v3.adata.zarr/"];
const RUN_TIMEOUT_MS = 120_000;

/** read.mjs's JSON line for `mode` ("published" or "modules"); rejects on failure or timeout. */
async function read(base, mode, nodeArgs = []) {
  if (!existsSync(join(appDir, "node_modules", "@vitessce", "zarr", "package.json"))) {
    throw new Error(`${appDir} is not installed: run \`node scripts/setup.mjs --suites\``);
  }
  return JSON.parse(
    await runNodeScript({ cwd: appDir, nodeArgs, script: "read.mjs", args: [mode, base, ...STORES], timeoutMs: RUN_TIMEOUT_MS }),
  );
}

/** What the loaders must give for the AnnData object generate.py wrote, built from expected.json. */
function expectedLoads() {
  const e = JSON.parse(readFileSync(join(fixtures, "anndata", "expected.json"), "utf8"));
  const n = e.obsIndex.length;
  const typed = (type, values) => ({ type, values });
  /** The columns of a C-order (n × k) matrix. */
  const columns = ({ shape, values }, cols) => cols.map((j) => Array.from({ length: shape[0] }, (_, i) => values[i * shape[1] + j]));
  const sets = (column, name) => ({
    name,
    children: e.obsCategories[column].map((category) => ({
      name: category,
      set: e.obsIndex.filter((_, i) => e.obs[column][i] === category).map((id) => [id, null]),
    })),
  });
  const codes = (column, name) => ({
    name,
    path: [name],
    codes: typed(
      "Int8Array",
      e.obs[column].map((v) => e.obsCategories[column].indexOf(v)),
    ),
    categories: e.obsCategories[column],
  });
  const [umap, spatial, polygons] = [e.obsm.X_umap, e.obsm.spatial, e.obsm.X_segmentations];
  const genes = [e.featureIndex.indexOf("gene_1"), e.featureIndex.indexOf("gene_5")];
  const matrix = (type, values) => ({
    obsIndex: e.obsIndex,
    featureIndex: e.featureIndex,
    obsFeatureMatrix: { data: typed(type, values) },
    geneSelection: columns({ shape: e.X.shape, values }, genes).map((c) => typed(type, c)),
  });
  const [, vertices, xy] = polygons.shape;
  return {
    obsSets: {
      obsIndex: e.obsIndex,
      tree: [sets("leiden", "Leiden"), sets("cell_type", "Cell type")],
      columns: [codes("leiden", "Leiden"), codes("cell_type", "Cell type")],
      obsSetSelection: e.obsCategories.leiden.map((c) => ["Leiden", c]),
    },
    obsEmbedding: {
      obsIndex: e.obsIndex,
      obsEmbedding: { data: columns(umap, [0, 1]).map((c) => typed("Float32Array", c)), shape: [2, n] },
    },
    obsLocations: {
      obsIndex: e.obsIndex,
      obsLocations: { data: columns(spatial, [0, 1]).map((c) => typed("Float64Array", c)), shape: [2, n] },
    },
    obsSegmentations: {
      obsIndex: e.obsIndex,
      type: "polygon",
      shape: polygons.shape,
      polygons: e.obsIndex.map((_, i) =>
        Array.from({ length: vertices }, (_, v) => polygons.values.slice((i * vertices + v) * xy, (i * vertices + v + 1) * xy)),
      ),
    },
    obsLabels: { obsIndex: e.obsIndex, obsLabels: e.obs.label },
    featureLabels: { featureIndex: e.featureIndex, featureLabels: e.var.symbol },
    matrices: {
      // int64 counts come back as Int32Array: Vitessce downcasts them.
      X: matrix("Float32Array", e.X.values),
      "layers/counts": matrix("Int32Array", e.layers.counts.values),
      "layers/csr": matrix("Float32Array", e.X.values),
      "layers/csc": matrix("Float32Array", e.X.values),
    },
  };
}

let server;
before(async () => {
  server = await startServer({ root: join(fixtures, "anndata") });
});
after(() => server?.close());

test("@vitessce/zarr's AnnData loaders load what anndata wrote, the same through zom/zarrita", async () => {
  const base = `${server.url}/`;
  const published = await read(base, "published");
  const theirs = await read(base, "modules");
  const ours = await read(base, "modules", ["--import", alias]);
  assert.match(published.vitessce, /@vitessce\/zarr\/dist\/index\.js$/, "the first run loads the published bundle");
  assert.match(theirs.vitessce, /@vitessce\/zarr\/dist-tsc\/index\.js$/, "the second run loads the package's modules");
  assert.match(theirs.zarrita, /node_modules\/zarrita\//, "the second run reads through zarrita");
  assert.match(ours.zarrita, /pkg\/zarrita\/node\.js$/, "the third run reads through zom/zarrita");
  const expected = expectedLoads();
  for (const store of STORES) {
    const { zarritaArrays: bundled, ...asPublished } = published.stores[store];
    const { zarritaArrays: real, ...onZarrita } = theirs.stores[store];
    const { zarritaArrays: zom, ...onZom } = ours.stores[store];
    assert.equal(bundled, false, `${store}: the published bundle opens arrays with its own zarrita`);
    assert.equal(real, true, `${store}: the modules open arrays with "zarrita"`);
    assert.equal(zom, true, `${store}: the modules open arrays with "zarrita", zom/zarrita here`);
    assert.deepEqual(onZarrita, asPublished, `${store}: the modules load what the published bundle loads`);
    assert.deepEqual(onZom, onZarrita, `${store}: zom/zarrita gives the loaders what zarrita gives`);
    assert.deepEqual(onZarrita, expected, `${store}: the loaders give what anndata wrote`);
  }
});
