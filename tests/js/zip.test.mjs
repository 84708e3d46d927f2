// ZipStore: the sample hierarchy zipped by zarr-python's ZipStore (stored), with Zip64 records,
// and deflated in a subfolder (tests/fixtures/zip/generate.py), read over the test HTTP server
// (Range requests), from a Blob, from a file path ("zom/fs"), and through zarrita: walks and
// values equal the unzipped folder's; request counts equal the folder's plus the one tail read;
// hostile archives fail with located errors.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ZipFileStore from "@zarrita/storage/zip";
import { zipSync } from "fflate";
import * as zarrita from "zarrita";
import { FetchStore, FileStore, openArray, slice, ZipStore } from "zom";
import { openZip } from "zom/fs";
import { walk } from "zom/validate";
import { logLines, withServer } from "../server/testing.mjs";
import { fixtures, readJson } from "./helpers.mjs";

const ARCHIVES = ["sample.zip", "sample-zip64.zip", "sample-folder.zip"];
const ARRAYS = Object.keys(readJson("expected", "sample.values.json"));

const archiveBytes = (name) => new Uint8Array(readFileSync(join(fixtures, "zip", name)));

/** The walk and every array's values of a store, for comparing with the folder's. */
async function contents(store) {
  const tree = await walk(store);
  const values = {};
  for (const path of ARRAYS) {
    const arr = await openArray(store, path);
    const { data, shape } = await arr.get(null, { workers: 0 });
    values[path] = { shape, data: Array.from(data, String) };
  }
  return { tree, values };
}

test("every archive walks and reads as the unzipped folder, over HTTP, from a Blob and from a path", () =>
  withServer({ s3Listing: true }, async (server) => {
    const want = await contents(new FetchStore(`${server.url}/sample`));
    assert.ok(Object.keys(want.values).length >= 5);
    for (const name of ARCHIVES) {
      const viaHttp = await ZipStore.fromUrl(`${server.url}/zip/${name}`);
      assert.equal(viaHttp.root, name === "sample-folder.zip" ? "data/sample.zarr/" : "");
      assert.deepEqual(await contents(viaHttp), want, `${name} over HTTP`);
      assert.deepEqual(await contents(await ZipStore.fromBlob(new Blob([archiveBytes(name)]))), want, `${name} from a Blob`);
      assert.deepEqual(await contents(await openZip(join(fixtures, "zip", name))), want, `${name} from a path`);
    }
  }));

test("a validator page (zom/validate alone, which loads no codec part) walks a deflated archive: the zip part inflates its members", () => {
  // A process of its own, so that no import of "zom" (the reader, which loads codec parts) is in it.
  const script = `
    import { readFileSync } from "node:fs";
    import { walk, ZipStore } from "zom/validate";
    const store = await ZipStore.fromBlob(new Blob([readFileSync(process.argv[1])]));
    const tree = await walk(store);
    console.log(JSON.stringify({ root: store.root, members: Object.keys(tree.members ?? {}).sort(), image: tree.members.image.members.gradient_circles.shape }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script, join(fixtures, "zip", "sample-folder.zip")], {
    cwd: fixtures,
    encoding: "utf8",
    timeout: 60_000,
  });
  const got = JSON.parse(out);
  assert.equal(got.root, "data/sample.zarr/");
  assert.deepEqual(got.members, ["broken", "image", "measurements"]);
  assert.deepEqual(got.image, readJson("expected", "sample.values.json")["image/gradient_circles"].shape);
});

test("a zipped sharded array reads with the folder's requests plus the tail read", (t) =>
  withServer({}, async (server) => {
    const path = "image/gradient_circles";
    const oneInnerChunk = [slice(0, 32), slice(0, 32)];
    const counts = {};
    for (const [what, selection] of [
      ["one inner chunk", oneInnerChunk],
      ["whole", null],
    ]) {
      server.resetStats();
      const plain = await openArray(new FetchStore(`${server.url}/sample`), path);
      await plain.get(selection, { workers: 0 });
      const plainRequests = server.stats.requests;

      server.resetStats();
      const zip = await ZipStore.fromUrl(`${server.url}/zip/sample.zip`);
      const opened = server.stats.requests;
      const arr = await openArray(zip, path);
      await arr.get(selection, { workers: 0 });
      const zipRequests = server.stats.requests;
      assert.equal(opened, 1, "one suffix read opens the archive");
      assert.equal(zip.source.stats.requests, zipRequests);
      if (what === "one inner chunk") {
        // zarr.json, the shard index, the inner chunk: as unzipped, plus the tail.
        assert.equal(zipRequests, plainRequests + 1, logLines(server).join("\n"));
      } else {
        // Whole shards side by side in the archive may merge into fewer requests.
        assert.ok(zipRequests <= plainRequests + 1, logLines(server).join("\n"));
      }
      counts[what] = { plain: plainRequests, zip: zipRequests };
    }

    // zarrita's ZipFileStore over the same archive, for the record: it reads each member's
    // local header before a range of it.
    server.resetStats();
    const theirs = ZipFileStore.fromUrl(`${server.url}/zip/sample.zip`);
    const arr = await zarrita.open.v3(zarrita.root(theirs).resolve(path), { kind: "array" });
    await zarrita.get(arr, [zarrita.slice(0, 32), zarrita.slice(0, 32)]);
    counts.zarrita = server.stats.requests;
    t.diagnostic(`requests: ${JSON.stringify(counts)}`);
  }));

test("zarrita reads zom's ZipStore, and zom reads zarrita's ZipFileStore", async () => {
  const ours = await ZipStore.fromBlob(new Blob([archiveBytes("sample.zip")]));
  const path = "image/gradient_circles";
  const viaZarrita = await zarrita.get(await zarrita.open.v3(zarrita.root(ours).resolve(path), { kind: "array" }));
  const viaZom = await (await openArray(ZipFileStore.fromBlob(new Blob([archiveBytes("sample.zip")])), path)).get(null, { workers: 0 });
  const mine = await (await openArray(ours, path)).get(null, { workers: 0 });
  assert.deepEqual(Array.from(viaZarrita.data), Array.from(mine.data));
  assert.deepEqual(Array.from(viaZom.data), Array.from(mine.data));
});

test("a store without getRange, an explicit root, listings", async () => {
  const bytes = archiveBytes("sample-folder.zip");
  const getOnly = { get: (key) => (key === "/a.zip" ? bytes : undefined) };
  const store = await ZipStore.open(getOnly, "/a.zip", { root: "data" });
  assert.equal(store.root, "data/");
  assert.deepEqual(await store.list("/"), { keys: [], prefixes: ["/sample.zarr/"] });
  assert.deepEqual(await store.list("/sample.zarr/image"), {
    keys: ["/sample.zarr/image/zarr.json"],
    prefixes: ["/sample.zarr/image/gradient_circles/", "/sample.zarr/image/gradient_circles_blosc/"],
  });
  const doc = await store.get("/sample.zarr/zarr.json");
  assert.deepEqual(doc, new Uint8Array(readFileSync(join(fixtures, "sample", "zarr.json"))));
  assert.deepEqual(await store.getRange("/sample.zarr/zarr.json", { suffixLength: 3 }), doc.slice(-3));
  assert.deepEqual(await store.getRange("/sample.zarr/zarr.json", { offset: 1 << 30, length: 4 }), new Uint8Array(0));
  assert.equal(await store.get("/nothing"), undefined);
});

test("hostile archives fail with located ZomErrors", async () => {
  const notZip = new FileStore([["/x.zip", new Blob(["hello, not a zip"])]]);
  await assert.rejects(ZipStore.open(notZip, "/x.zip"), (e) => e.code === "InvalidMetadata" && e.key === "/x.zip" && /zip/.test(e.message));
  await assert.rejects(ZipStore.open(notZip, "/missing.zip"), (e) => e.code === "NotFound");

  // A flipped byte in a member's data: its CRC-32 no longer matches.
  const bytes = archiveBytes("sample.zip");
  const doc = readFileSync(join(fixtures, "sample", "image", "gradient_circles", "zarr.json"));
  const at = Buffer.from(bytes).indexOf(doc);
  assert.ok(at > 0);
  bytes[at + 10] ^= 0x01;
  const store = await ZipStore.fromBlob(new Blob([bytes]));
  await assert.rejects(
    store.get("/image/gradient_circles/zarr.json"),
    (e) => e.code === "ChecksumMismatch" && e.key === "/image/gradient_circles/zarr.json",
  );
  await assert.rejects(openArray(store, "image/gradient_circles"), (e) => e.code === "ChecksumMismatch");
  // The maxBytes call option refuses a member from the directory, before reading it.
  await assert.rejects(store.get("/zarr.json", { maxBytes: 10 }), (e) => e.code === "LimitExceeded");
});

test("a member longer than its chunk can be is refused before it is inflated", async () => {
  // 8 uint64 (a 64-byte chunk, no compression) whose chunk is a deflated member of 16 MiB of
  // zeros: the read asks the zip store for at most 64 bytes, and the directory's size refuses it.
  const meta = {
    zarr_format: 3,
    node_type: "array",
    shape: [8],
    data_type: "uint64",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [8] } },
    chunk_key_encoding: { name: "default" },
    fill_value: 0,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  };
  const encode = (o) => new TextEncoder().encode(JSON.stringify(o));
  const archive = (chunk, level) => new Blob([zipSync({ "zarr.json": [encode(meta), { level: 0 }], "c/0": [chunk, { level }] })]);
  const store = await ZipStore.fromBlob(archive(new Uint8Array(16 << 20), 1));
  const array = await openArray(store, "");
  await assert.rejects(
    array.get(),
    (e) =>
      e.code === "CodecError" &&
      e.key === "c/0" &&
      /longer than its codecs can produce/.test(e.message) &&
      /16777216 bytes \(at most 64\)/.test(e.message),
  );
  const good = new BigUint64Array(8).fill(7n);
  const fine = await openArray(await ZipStore.fromBlob(archive(new Uint8Array(good.buffer), 0)), "");
  assert.deepEqual((await fine.get()).data, good);
});
