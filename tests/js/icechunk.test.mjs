// Icechunk repositories written by icechunk-python 2.3.0 (tests/fixtures/icechunk: the same
// history in spec version 2 and 1; native, inline, sharded, missing, split-manifest and
// virtual chunks), served over HTTP by the test server (Range requests, no listing), read
// with IcechunkStore at every ref icechunk lists: the snapshot id, the history, the refs,
// every node's zarr.json as icechunk serves it, and every array's values as zarr-python reads
// them through icechunk (expected.json) — on the calling thread and in 2 decode workers, and
// through zom/zarrita. The virtual chunks' server is the test server: `virtualChunks` maps the
// URL the repository recorded to it.
//
//   node --test tests/js/icechunk.test.mjs
import assert from "node:assert/strict";
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FetchStore, IcechunkStore, open, openArray } from "zom";
import * as zarr from "zom/zarrita";
import { fixtures, withServer } from "../server/testing.mjs";
import { readJson } from "./helpers.mjs";
import { elements, sameValues } from "./hierarchy-common.mjs";

const expected = readJson("icechunk", "expected.json");
const REPOS = Object.keys(expected.repositories);

/** `{branch}`, `{tag}` or `{snapshot}` of a ref of expected.json ("branch:main"). */
function refOption(ref) {
  const [kind, name] = [ref.slice(0, ref.indexOf(":")), ref.slice(ref.indexOf(":") + 1)];
  return { [kind]: name };
}

/** Opens `repo` at `ref` from `server`, virtual chunks from the same server. */
function openRepo(server, repo, ref, options = {}) {
  return IcechunkStore.open(`${server.url}/icechunk/${repo}/`, {
    ...refOption(ref),
    virtualChunks: (url) =>
      url.startsWith(expected.virtual_prefix) ? `${server.url}/icechunk/raw/${url.slice(expected.virtual_prefix.length)}` : null,
    ...options,
  });
}

const decoder = new TextDecoder();

test("the fixtures cover both spec versions, several refs and every kind of chunk reference", () => {
  assert.deepEqual(REPOS.sort(), ["v1", "v2"]);
  for (const repo of REPOS) {
    const refs = Object.keys(expected.repositories[repo].refs);
    for (const kind of ["branch:", "tag:", "snapshot:"])
      assert.ok(
        refs.some((r) => r.startsWith(kind)),
        `${repo}: a ${kind} ref`,
      );
  }
});

for (const repo of REPOS) {
  const want = expected.repositories[repo];
  test(`${repo}: every ref's snapshot, history and refs`, { timeout: 60_000 }, () =>
    withServer({}, async (server) => {
      for (const [ref, at] of Object.entries(want.refs)) {
        const store = await openRepo(server, repo, ref);
        try {
          assert.equal(store.specVersion, Number(repo.slice(1)), `${repo} ${ref}`);
          assert.equal(store.snapshot, at.snapshot, `${repo} ${ref}`);
          const history = await store.ancestry();
          assert.deepEqual(
            history.map((h) => h.id),
            at.ancestry,
            `${repo} ${ref} ancestry`,
          );
          if (repo === "v2")
            assert.deepEqual(
              history.map((h) => h.message),
              at.messages,
              `${repo} ${ref} messages`,
            );
        } finally {
          store.free();
        }
      }
      if (repo === "v2") {
        // Spec version 1 lists refs/ (a store that can list); the test server lists nothing.
        const store = await openRepo(server, repo, "branch:main");
        const refs = await store.refs();
        assert.deepEqual(Object.fromEntries(refs.branches.map((b) => [b.name, b.snapshot])), want.branches);
        assert.deepEqual(Object.fromEntries(refs.tags.map((t) => [t.name, t.snapshot])), want.tags);
        store.free();
      }
    }),
  );

  test(
    `${repo}: every node and array of every ref equals what icechunk and zarr-python read, in 0 and 2 workers`,
    { timeout: 120_000 },
    () =>
      withServer({ validators: true }, async (server) => {
        let arrays = 0;
        for (const [ref, at] of Object.entries(want.refs)) {
          const store = await openRepo(server, repo, ref);
          try {
            for (const [path, node] of Object.entries(at.nodes)) {
              const key = path === "/" ? "/zarr.json" : `${path}/zarr.json`;
              const doc = JSON.parse(decoder.decode(await store.get(key)));
              assert.deepEqual(doc, node.zarr_json, `${repo} ${ref} ${key}`);
              const opened = await open(store, path.slice(1));
              assert.equal(opened.kind ?? (opened.shape ? "array" : "group"), node.kind, `${repo} ${ref} ${path}`);
              if (node.kind !== "array") continue;
              for (const workers of [0, 2]) {
                const arr = await openArray(store, path.slice(1), { workers });
                try {
                  const { data, shape } = await arr.get(undefined, { workers });
                  assert.deepEqual(shape, node.shape, `${repo} ${ref} ${path}`);
                  sameValues(elements(data, arr.dtype), node.values, `${repo} ${ref} ${path} (workers ${workers})`);
                } finally {
                  arr.free();
                }
              }
              arrays += 1;
            }
          } finally {
            store.free();
          }
        }
        assert.ok(arrays > 20, `${arrays} arrays read`);
      }),
  );
}

test("zom/zarrita reads an Icechunk snapshot as zarrita reads any store", { timeout: 60_000 }, () =>
  withServer({}, async (server) => {
    const at = expected.repositories.v2.refs["tag:v1.0"];
    const store = await openRepo(server, "v2", "tag:v1.0");
    for (const [path, node] of Object.entries(at.nodes)) {
      if (node.kind !== "array") continue;
      const arr = await zarr.open(zarr.root(store).resolve(path), { kind: "array" });
      const chunk = await zarr.get(arr);
      assert.deepEqual(chunk.shape, node.shape, path);
      // zarrita's BoolArray gives booleans.
      const values = arr.dtype === "bool" ? Array.from(chunk.data, Boolean) : elements(chunk.data, node.zarr_json.data_type);
      sameValues(values, node.values, `zarrita ${path}`);
    }
    store.free();
  }),
);

test("checksums: a virtual chunk whose object changed since the reference was written is refused, by its last modification or its ETag", {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-icechunk-"));
  const moved = join(dir, "data.bin");
  copyFileSync(join(fixtures, "icechunk", "raw", "data.bin"), moved);
  const raw = new Uint8Array(readFileSync(moved));
  const open = (server, repo) =>
    IcechunkStore.open(`${server.url}/icechunk/${repo}/`, {
      virtualChunks: (url) =>
        url.startsWith(expected.virtual_prefix) ? `${server.url}/moved/${url.slice(expected.virtual_prefix.length)}` : null,
    });
  const chunk = async (store, path, i) => {
    const arr = await openArray(store, path, { workers: 0 });
    try {
      return await arr.getChunk([i]);
    } finally {
      arr.free();
    }
  };
  // Errors name the chunk's key and the object as the reference records it.
  const recorded = `${expected.virtual_prefix}data.bin`;
  const mismatch = (path, i, why) => (e) =>
    e.code === "ChecksumMismatch" && e.key === `${path}/c/${i}` && e.message.includes(recorded) && why.test(e.message);
  try {
    // v2's `virtual` chunk 1 records "not modified after 2100-01-01"; containers/v2's `rel` chunk 1 the ETag "abc".
    await withServer({ validators: true, mounts: { "/moved/": dir } }, async (server) => {
      const v2 = await open(server, "v2");
      const containers = await open(server, "containers/v2");
      try {
        assert.equal((await chunk(v2, "virtual", 1)).data.byteLength, 16, "modified before 2100: read");
        await assert.rejects(chunk(containers, "rel", 1), mismatch("rel", 1, /ETag is now "[0-9a-f]+-[0-9a-f]+", not "abc"/));
        assert.ok(await chunk(containers, "rel", 0), "a chunk without a checksum is read");
        utimesSync(moved, new Date("2101-01-02T00:00:00Z"), new Date("2101-01-02T00:00:00Z"));
        await assert.rejects(chunk(v2, "virtual", 1), mismatch("virtual", 1, /modified at Sun, 02 Jan 2101 00:00:00 GMT/));
        assert.ok(await chunk(v2, "virtual", 0), "a chunk without a checksum is read");
      } finally {
        v2.free();
        containers.free();
      }
    });
    // A host that sends neither header: nothing to check, the chunks are read.
    await withServer({ mounts: { "/moved/": dir } }, async (server) => {
      const containers = await open(server, "containers/v2");
      try {
        const got = await chunk(containers, "rel", 1);
        assert.deepEqual(new Uint8Array(got.data.buffer, got.data.byteOffset, got.data.byteLength), raw.subarray(16, 32));
      } finally {
        containers.free();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an S3-compatible container's chunks are fetched at its endpoint, path style, as icechunk reads them", { timeout: 60_000 }, () =>
  withServer({}, async (server) => {
    const containers = readJson("icechunk", "containers", "expected.json");
    for (const repo of ["v2", "v1"]) {
      const store = await openRepo(server, `containers/${repo}`, "branch:main");
      const arr = await openArray(store, "s3", { workers: 0 });
      try {
        server.resetStats();
        const { data } = await arr.get();
        assert.deepEqual(Array.from(data), containers.repositories[repo].s3, repo);
        // s3://pathstyle/data.bin at http://127.0.0.1:18738 (path style), mapped to the test server.
        assert.ok(
          server.stats.log.some((l) => l.url === "/icechunk/raw/pathstyle/data.bin"),
          JSON.stringify(server.stats.log),
        );
      } finally {
        arr.free();
        store.free();
      }
    }
  }),
);

test("native chunks are fetched straight from the repository's files: the read's signal reaches the request; a short chunk file is an error naming it", {
  timeout: 60_000,
}, async () => {
  await withServer({}, async (server) => {
    const store = await openRepo(server, "v2", "branch:main");
    const arr = await openArray(store, "group/float64", { workers: 0 });
    try {
      await arr.getChunk([0, 0]); // the manifest, once
      server.resetStats();
      server.setLatency(2000);
      const controller = new AbortController();
      const started = performance.now();
      const read = arr.getChunk([1, 1], { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(read, (e) => e.code === "Aborted");
      assert.ok(performance.now() - started < 2000, `aborted before the chunk's answer (${Math.round(performance.now() - started)} ms)`);
      // The request itself was cancelled: the server, answering after its latency, sends nothing.
      await new Promise((done) => setTimeout(done, 2200));
      assert.equal(server.stats.requests, 1);
      assert.equal(server.stats.bytes, 0, "no chunk bytes sent");
    } finally {
      arr.free();
      store.free();
    }
  });
  const dir = mkdtempSync(join(tmpdir(), "zom-icechunk-"));
  try {
    cpSync(join(fixtures, "icechunk", "v2"), join(dir, "v2"), { recursive: true });
    for (const name of readdirSync(join(dir, "v2", "chunks"))) {
      const file = join(dir, "v2", "chunks", name);
      writeFileSync(file, readFileSync(file).subarray(0, 8));
    }
    await withServer({ root: dir }, async (server) => {
      const store = await IcechunkStore.open(`${server.url}/v2/`);
      const arr = await openArray(store, "group/float64", { workers: 0 });
      try {
        await assert.rejects(
          arr.getChunk([0, 0]),
          (e) => e.code === "InvalidMetadata" && e.path === "group/float64" && /chunks\/[0-9A-Z]+' holds 8 of the 96 bytes/.test(e.message),
        );
      } finally {
        arr.free();
        store.free();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  "refused: no ref of that name, two refs at once, a virtual URL the caller refuses, a folder that is no repository",
  { timeout: 60_000 },
  () =>
    withServer({}, async (server) => {
      await assert.rejects(openRepo(server, "v2", "branch:nope"), (e) => e.code === "NotFound" && /nope/.test(e.message));
      await assert.rejects(openRepo(server, "v2", "tag:gone"), (e) => e.code === "NotFound");
      await assert.rejects(
        IcechunkStore.open(`${server.url}/icechunk/v2/`, { branch: "main", tag: "v1.0" }),
        (e) => e.code === "InvalidArgument",
      );
      await assert.rejects(
        openRepo(server, "v2", "snapshot:not-an-id"),
        (e) => e.code === "InvalidArgument" || e.code === "InvalidMetadata",
      );
      const refusing = await openRepo(server, "v2", "branch:main", { virtualChunks: () => null });
      const virtual = Object.entries(expected.repositories.v2.refs["branch:main"].nodes).find(([p]) => p.includes("virtual"));
      assert.ok(virtual, "the fixture has a virtual array");
      const arr = await openArray(refusing, virtual[0].slice(1));
      await assert.rejects(arr.get(), (e) => /virtualChunks refused it|not read/.test(e.message));
      arr.free();
      refusing.free();
      await assert.rejects(IcechunkStore.open(new FetchStore(`${server.url}/v3`)), (e) => e.code === "NotFound");
    }),
);
