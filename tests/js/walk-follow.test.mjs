// Following what metadata names, where users meet OME-Zarr: hierarchies written by ome-zarr-py
// (0.18, 0.21) and ngff-zarr (0.50), served by a plain HTTP server that answers only the paths
// it is asked for (no listing, no consolidated metadata), walk to the same ZOM and the same
// verdict as from their folder, from an HTML-indexed server, a zip and kerchunk references; the tree is
// every node the writer wrote (tests/fixtures/walk/manifest.json), in as many round trips as
// it is deep; and "names no node" comes only with a 404 behind it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { zipSync } from "fflate";
import { FetchStore, ReferenceStore, ZipStore } from "zom";
import { FsStore } from "zom/fs";
import { validateHierarchy, walk } from "zom/validate";
import { roundTrips, startServer } from "../server/server.mjs";
import { assertJsonEqual, fixtures, zomPaths } from "./helpers.mjs";

const manifest = JSON.parse(readFileSync(join(fixtures, "walk", "manifest.json"), "utf8"));

/** Every hierarchy: today's writers (walk/) and ome-zarr-py 0.18's (conventions*). */
const CASES = [
  ...manifest.map((m) => ({ dir: `walk/${m.dir}`, nodes: m.nodes })),
  ...["ome-0.4-image", "ome-0.5-image", "ome-0.4-plate", "ome-0.5-plate", "ome-0.4-bioformats2raw", "ome-0.5-bioformats2raw"].map((d) => ({
    dir: `conventions/${d}`,
    nodes: null,
  })),
  ...["ome-0.6-image", "ome-0.6-plate", "ome-0.6-scene"].map((d) => ({ dir: `conventions-0.6/${d}`, nodes: null })),
];

/** Every node of a ZOM. */
function nodesOf(zom) {
  return [zom, ...Object.values(zom.members ?? {}).flatMap(nodesOf)];
}

/** A verdict to compare: the problems as path, spec, rule and message. */
function verdict(tree) {
  const report = validateHierarchy(tree, { specs: "auto" });
  return report.problems.map((p) => `${p.severity} /${p.path} ${p.spec ?? ""} ${p.rule ?? ""}: ${p.message}`).sort();
}

/** Every file below the folder `dir`: [its path below `dir` with "/", its path]. */
function filesOf(dir, d = dir) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    return statSync(p).isDirectory() ? filesOf(dir, p) : [[relative(dir, p).split("\\").join("/"), p]];
  });
}

/** Kerchunk references (version 1) holding every file of the folder `dir` inline. */
function referencesOf(dir) {
  return { version: 1, refs: Object.fromEntries(filesOf(dir).map(([key, p]) => [key, readFileSync(p, "utf8")])) };
}

/** A zip of the folder `dir`, stored (no compression) with its paths below the folder. */
function zipOf(dir) {
  return zipSync(Object.fromEntries(filesOf(dir).map(([key, p]) => [key, [new Uint8Array(readFileSync(p)), { level: 0 }]])));
}

test("every OME-Zarr hierarchy walks to its folder's ZOM and verdict over plain HTTP, an HTML index, a zip and references", async () => {
  const plain = await startServer({ root: fixtures, latencyMs: 5 });
  const indexed = await startServer({ root: fixtures, htmlIndex: true });
  const zips = Object.fromEntries(CASES.map(({ dir }) => [`/${dir.replace("/", "-")}.zip`, zipOf(join(fixtures, dir))]));
  const zipped = await startServer({
    root: fixtures,
    routes: Object.fromEntries(
      Object.entries(zips).map(([path, bytes]) => [
        path,
        () => ({ status: 200, headers: { "content-type": "application/zip" }, body: Buffer.from(bytes) }),
      ]),
    ),
  });
  try {
    for (const { dir, nodes } of CASES) {
      const folder = await walk(new FsStore(join(fixtures, dir)));
      if (nodes !== null) assert.deepEqual(zomPaths(folder), nodes, `${dir}: the folder's nodes are the manifest's`);
      const expected = verdict(folder);

      plain.resetStats();
      const http = await walk(new FetchStore(`${plain.url}/${dir}`));
      assertJsonEqual(http, folder, `${dir} over plain HTTP`);
      assert.deepEqual([http.errors, http.consolidated], [[], folder.consolidated], dir);
      assert.deepEqual(verdict(http), expected, `${dir}: the verdict over plain HTTP`);
      // Requests: each node's documents (v3 its zarr.json; v2 up to four candidates), the
      // root's probes of the other format, where each image's labels group may be, and the
      // listing's discovery, once for the walk (three S3 roots, one HTML index).
      const perNode = folder.zarr_format === 3 ? 1 : 4;
      const images = nodesOf(folder).filter((n) => n.attributes?.ome?.multiscales ?? n.attributes?.multiscales).length;
      const bound = folder.consolidated ? 5 : (zomPaths(folder).length + images) * perNode + 4 + 4;
      assert.ok(
        plain.stats.requests <= bound,
        `${dir}: ${plain.stats.requests} requests for ${zomPaths(folder).length} nodes (at most ${bound})`,
      );

      const listed = await walk(new FetchStore(`${indexed.url}/${dir}/`));
      assertJsonEqual(listed, folder, `${dir} over an HTML index`);
      assert.deepEqual([listed.errors, listed.unlisted], [[], []], `${dir} over an HTML index`);

      const zip = await ZipStore.fromUrl(`${zipped.url}/${dir.replace("/", "-")}.zip`);
      const fromZip = await walk(zip);
      assertJsonEqual(fromZip, folder, `${dir} from a zip`);
      assert.deepEqual(verdict(fromZip), expected, `${dir}: the verdict from a zip`);

      const referenced = await walk(await ReferenceStore.fromJson(referencesOf(join(fixtures, dir)), { baseUrl: plain.url }));
      assertJsonEqual(referenced, folder, `${dir} from references`);
      assert.deepEqual(verdict(referenced), expected, `${dir}: the verdict from references`);
    }
  } finally {
    await Promise.all([plain.close(), indexed.close(), zipped.close()]);
  }
});

test("a plate's levels are asked for a level at a time: as many round trips as it is deep", async () => {
  const server = await startServer({ root: fixtures, latencyMs: 40 });
  try {
    const dir = "walk/ozp-0.21-v0.5-plate";
    const tree = await walk(new FetchStore(`${server.url}/${dir}`));
    const depth = Math.max(...zomPaths(tree).map((p) => (p === "" ? 0 : p.split("/").length)));
    // root, then rows and wells together, fields, levels and labels, labels' images, their
    // levels: one round trip a level.
    assert.equal(depth, 6);
    assert.ok(server.stats.maxInFlight >= 12, `${server.stats.maxInFlight} requests in flight at most`);
    assert.equal(roundTrips(server.stats.log), depth, `round trips for ${depth} levels`);
  } finally {
    await server.close();
  }
});

test("a path the metadata names is called missing only after a request for it found nothing", async () => {
  const server = await startServer({
    root: fixtures,
    // The plate's second well fails (a 500), its first answers; B/2 is then unknown, not absent.
    routes: { "/walk/ozp-0.21-v0.5-plate/B/2/zarr.json": () => ({ status: 500, body: "broken" }) },
  });
  try {
    const tree = await walk(new FetchStore(`${server.url}/walk/ozp-0.21-v0.5-plate`, { retries: 0 }));
    assert.deepEqual(
      tree.errors.map((e) => e.path),
      ["B/2"],
    );
    const problems = validateHierarchy(tree, { specs: "ome-zarr" }).problems.filter((p) => /names no node/.test(p.message));
    assert.deepEqual(problems, [], "no 'names no node' for a well whose request failed");
    // Given as plain JSON (no walk beside it), the same tree lacks B/2: that is a finding.
    const plainTree = JSON.parse(JSON.stringify(tree));
    const named = validateHierarchy(plainTree, { specs: "ome-zarr" }).problems.filter((p) => /names no node/.test(p.message));
    assert.deepEqual(
      named.map((p) => p.message),
      ["'B/2' names no node below this one"],
    );
  } finally {
    await server.close();
  }
});

test("follow: false walks only what listings and consolidated metadata give", async () => {
  const server = await startServer({ root: fixtures });
  try {
    const tree = await walk(new FetchStore(`${server.url}/walk/ozp-0.21-v0.4-image`), { follow: false });
    assert.deepEqual(zomPaths(tree), [""]);
    assert.deepEqual(tree.unlisted, [""]);
  } finally {
    await server.close();
  }
});
