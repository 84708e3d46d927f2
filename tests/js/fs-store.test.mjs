// FsStore (zom/fs) on the fixture directories: whole and ranged reads equal the files' bytes,
// listings equal the directories, keys cannot leave the root, neither can symbolic links (reads
// refused, listings and walks leave them out), cycles of links end quickly, maxBytes refuses
// before reading, FIFOs and dangling links do not hang or throw, and open/walk/get through it
// equal zarr-python's ZOMs and values.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import * as zom from "zom";
import { openArray, slice } from "zom";
import { FsStore } from "zom/fs";
import { walk } from "zom/validate";
import { expectedListing, timed } from "../server/testing.mjs";
import { assertJsonEqual, fixtures, HIERARCHIES, readJson } from "./helpers.mjs";
import { elements, reference, sameValues, zomError } from "./hierarchy-common.mjs";

const bytesOf = (path) => new Uint8Array(readFileSync(join(fixtures, path)));
// A shard of the sample: big enough for ranges anywhere in it.
const SHARD = "sample/image/gradient_circles/c/0/0";

test("FsStore comes from zom/fs only: the main entry stays free of node:fs", () => {
  assert.equal("FsStore" in zom, false);
  assert.equal(typeof FsStore, "function");
});

test("get gives a file's bytes, undefined for what is not a file", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  const got = await store.get("/zarr.json");
  assert.equal(got.constructor, Uint8Array);
  assert.deepEqual(got, bytesOf("v3/zarr.json"));
  assert.deepEqual(await store.get("group1/zarr.json"), bytesOf("v3/group1/zarr.json"), "keys without a leading /");
  assert.equal(await store.get("/nope.json"), undefined);
  assert.equal(await store.get("/group1"), undefined, "a directory");
  assert.equal(await store.get("/zarr.json/x"), undefined, "below a file");
});

test("getRange reads exactly the bytes asked for, clamped as HTTP servers do", async () => {
  const store = new FsStore(fixtures);
  const whole = bytesOf(SHARD);
  const n = whole.length;
  assert.ok(n > 1000, `the shard has ${n} bytes`);
  const cases = [
    [{ offset: 0, length: 10 }, whole.subarray(0, 10)],
    [{ offset: 100, length: 333 }, whole.subarray(100, 433)],
    [{ offset: n - 5, length: 100 }, whole.subarray(n - 5)],
    [{ offset: n, length: 10 }, new Uint8Array(0)],
    [{ offset: n + 100, length: 10 }, new Uint8Array(0)],
    [{ offset: 7, length: 0 }, new Uint8Array(0)],
    [{ suffixLength: 68 }, whole.subarray(n - 68)],
    [{ suffixLength: n + 1000 }, whole],
    [{ suffixLength: 0 }, new Uint8Array(0)],
  ];
  for (const [range, want] of cases) {
    assert.deepEqual(await store.getRange(`/${SHARD}`, range), new Uint8Array(want), JSON.stringify(range));
  }
  assert.equal(await store.getRange("/sample/nope", { offset: 0, length: 4 }), undefined);
  assert.equal(await store.getRange("/sample/nope", { suffixLength: 4 }), undefined);
  for (const bad of [{ offset: -1, length: 4 }, { offset: 0, length: 1.5 }, { suffixLength: -2 }, {}]) {
    await assert.rejects(store.getRange(`/${SHARD}`, bad), zomError("InvalidArgument"), JSON.stringify(bad));
  }
});

test("list gives the files and directories below a prefix, absolute", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  assert.deepEqual(await store.list("/"), expectedListing("v3", "/"));
  assert.deepEqual(await store.list(""), expectedListing("v3", "/"));
  for (const prefix of ["/group1/", "group1", "/group1"]) {
    assert.deepEqual(await store.list(prefix), expectedListing("v3/group1", "/group1/"), prefix);
  }
  assert.deepEqual(await store.list("/nope/"), { keys: [], prefixes: [] });
  assert.deepEqual(await store.list("/zarr.json/"), { keys: [], prefixes: [] }, "a file is no directory");
});

test("keys cannot leave the root", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-fs-"));
  try {
    mkdirSync(join(dir, "root"));
    writeFileSync(join(dir, "secret"), "outside");
    writeFileSync(join(dir, "root", "inside"), "inside");
    const store = new FsStore(join(dir, "root"));
    assert.deepEqual(await store.get("/inside"), new TextEncoder().encode("inside"));
    for (const key of ["../secret", "/../secret", "/a/../../secret", "./inside", "/inside/.", "a//b", "/inside/", "", "/", "x/\0/y"]) {
      await assert.rejects(store.get(key), zomError("InvalidArgument"), `get ${JSON.stringify(key)}`);
      await assert.rejects(store.getRange(key, { suffixLength: 3 }), zomError("InvalidArgument"), `getRange ${JSON.stringify(key)}`);
      assert.throws(() => store.pathOf(key === "/" || key === "" || key === "/inside/" ? "../" : key), zomError("InvalidArgument"));
    }
    for (const prefix of ["../", "/../", "/a/../../", "a//"]) {
      await assert.rejects(store.list(prefix), zomError("InvalidArgument"), `list ${prefix}`);
    }
    // An absolute key is a path below the root, never the file system's root.
    assert.equal(await store.get("/etc/passwd"), undefined);
    assert.equal(store.pathOf("/etc/passwd"), join(dir, "root", "etc", "passwd"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("FIFOs and dangling links read as missing; links to directories list as prefixes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-fs-"));
  try {
    execFileSync("mkfifo", [join(dir, "fifo")]);
    symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "linked"));
    writeFileSync(join(dir, "file"), "x");
    const store = new FsStore(pathToFileURL(dir));
    assert.equal(await store.get("/fifo"), undefined, "no reader hangs on a FIFO");
    assert.equal(await store.getRange("/fifo", { suffixLength: 4 }), undefined);
    assert.equal(await store.get("/dangling"), undefined);
    assert.deepEqual(await store.list("/"), { keys: ["/file"], prefixes: ["/linked/", "/real/"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A temporary directory for `fn`, removed after it. */
async function inTemp(fn) {
  const dir = mkdtempSync(join(tmpdir(), "zom-fs-"));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The members of a ZOM tree as paths ("a", "a/b"), sorted. */
function memberPaths(node, prefix = "") {
  return Object.entries(node.members ?? {})
    .flatMap(([name, child]) => [`${prefix}${name}`, ...memberPaths(child, `${prefix}${name}/`)])
    .sort();
}

const GROUP = '{"zarr_format":3,"node_type":"group","attributes":{}}';

test("links out of the root: a chunk is refused (not read, not fill values), a directory is neither listed nor walked", () =>
  inTemp(async (tmp) => {
    const root = join(tmp, "root");
    cpSync(join(fixtures, "v3"), root, { recursive: true });
    mkdirSync(join(tmp, "outside"));
    // A chunk of the right size (4 × 3 int32) whose every value would be 0x5A5A5A5A.
    const secret = new Uint8Array(48).fill(0x5a);
    writeFileSync(join(tmp, "outside", "chunk"), secret);
    cpSync(join(fixtures, "v3", "group1"), join(tmp, "outside", "group"), { recursive: true });
    rmSync(join(root, "codec_bytes_only", "c", "0", "0"));
    symlinkSync(join(tmp, "outside", "chunk"), join(root, "codec_bytes_only", "c", "0", "0"));
    symlinkSync("../outside/group", join(root, "escape"));
    symlinkSync(join(tmp, "outside"), join(root, "group1", "out"));
    const store = new FsStore(root);

    const key = "/codec_bytes_only/c/0/0";
    const refused = zomError("InvalidArgument", { key, message: /leads outside the store's directory through a symbolic link/ });
    await assert.rejects(store.get(key), refused);
    await assert.rejects(store.getRange(key, { offset: 0, length: 4 }), refused);
    await assert.rejects(store.getRange(key, { suffixLength: 4 }), refused);
    assert.deepEqual((await store.list("/codec_bytes_only/c/0/")).keys, ["/codec_bytes_only/c/0/1"], "not listed");
    // Through the reader: the read fails, located, instead of showing the outside bytes or the
    // fill value.
    const arr = await openArray(store, "codec_bytes_only");
    const failure = await arr.get(null).then(
      (r) => assert.fail(`read ${Array.from(r.data).join(",")}`),
      (e) => e,
    );
    zomError("InvalidArgument", { path: "codec_bytes_only", key: "codec_bytes_only/c/0/0" })(failure);
    assert.ok(!failure.message.includes(tmp), "the message does not name the link's target");
    assert.deepEqual(
      Array.from((await arr.get([slice(4, 6)])).data.slice(0, 3)),
      readJson("expected", "v3.values.json").codec_bytes_only.values.slice(20, 23),
      "other chunks read",
    );

    // The linked directories: neither listed nor walked, and refused when asked for directly.
    assert.deepEqual(await store.list("/"), expectedListing("v3", "/"));
    assert.deepEqual(await store.list("/group1/"), expectedListing("v3/group1", "/group1/"));
    await assert.rejects(store.get("/escape/zarr.json"), zomError("InvalidArgument", { key: "/escape/zarr.json" }));
    await assert.rejects(store.get("/group1/out/chunk"), zomError("InvalidArgument"));
    await assert.rejects(store.list("/escape/"), zomError("InvalidArgument", { key: "/escape/" }));
    await assert.rejects(store.list("/group1/out/"), zomError("InvalidArgument"));
    const tree = await walk(store);
    assertJsonEqual(tree, readJson("expected", "v3.zom.json"), "the walk equals the fixture's, without the links");
    assert.deepEqual([tree.errors, tree.unlisted], [[], []]);
    assert.ok(!memberPaths(tree).some((m) => m === "escape" || m.endsWith("/out")), "no linked member");
  }));

test("links that stay inside the root keep working: files, directories, and a root that is itself a link", () =>
  inTemp(async (tmp) => {
    const root = join(tmp, "root");
    cpSync(join(fixtures, "v3"), root, { recursive: true });
    symlinkSync("group1", join(root, "alias"));
    symlinkSync("../../dtype_int8", join(root, "group1", "sub", "int8"));
    symlinkSync(join(root, "dtype_int32", "c", "1"), join(root, "dtype_int32", "c", "linked"));
    symlinkSync(root, join(tmp, "via-link"));
    for (const store of [new FsStore(root), new FsStore(join(tmp, "via-link"))]) {
      assert.deepEqual(await store.get("/alias/zarr.json"), bytesOf("v3/group1/zarr.json"));
      assert.deepEqual(await store.get("/dtype_int32/c/linked"), bytesOf("v3/dtype_int32/c/1"));
      assert.deepEqual(await store.getRange("/dtype_int32/c/linked", { suffixLength: 3 }), bytesOf("v3/dtype_int32/c/1").subarray(-3));
      assert.ok((await store.list("/")).prefixes.includes("/alias/"));
      assert.deepEqual(await store.list("/alias/"), expectedListing("v3/group1", "/alias/"));
      // A link below a link is read by key but not listed there: only at the first link's target.
      assert.ok((await store.list("/group1/sub/")).prefixes.includes("/group1/sub/int8/"));
      assert.deepEqual((await store.list("/alias/sub/")).prefixes, ["/alias/sub/leaf/"]);
      assert.deepEqual(await store.get("/alias/sub/int8/zarr.json"), bytesOf("v3/dtype_int8/zarr.json"));
      const tree = await walk(store);
      assertJsonEqual(tree.members.group1.members.sub.members.int8, tree.members.dtype_int8);
      assert.deepEqual(
        memberPaths(tree.members.alias),
        memberPaths(tree.members.group1).filter((m) => m !== "sub/int8"),
        "the alias is group1 but for the link in it",
      );
    }
  }));

test("cycles and chains of links end quickly: self-references, links to an ancestor, two directories linked to each other, 40 links in a chain", (t) =>
  inTemp(async (tmp) => {
    const root = join(tmp, "root");
    cpSync(join(fixtures, "v3"), root, { recursive: true });
    symlinkSync(".", join(root, "self1"));
    symlinkSync("./", join(root, "self2"));
    symlinkSync(root, join(root, "self3"));
    symlinkSync("loop", join(root, "loop")); // resolves to itself: ELOOP
    symlinkSync("..", join(root, "group1", "up"));
    symlinkSync("../..", join(root, "group1", "sub", "top"));
    symlinkSync("../../group1", join(root, "group1", "sub", "parent"));
    const store = new FsStore(root);
    const listed = await timed(() => store.list("/"));
    assert.deepEqual(listed.value, expectedListing("v3", "/"));
    assert.deepEqual(await store.list("/group1/sub/"), expectedListing("v3/group1/sub", "/group1/sub/"));
    assert.equal(await store.get("/loop"), undefined, "a looping link holds no value");
    assert.deepEqual(await store.get("/self1/self2/group1/up/zarr.json"), bytesOf("v3/zarr.json"), "a key through the links reads");
    // A low maxNodes, so that a walk that goes round fails at once rather than after minutes.
    const walked = await timed(() => walk(store, { limits: { maxNodes: 1000 } }));
    assertJsonEqual(walked.value, readJson("expected", "v3.zom.json"), "the fixture's tree, the links left out");

    // a/l → b and b/m → a: each is listed once below the other, never again below itself.
    const pair = join(tmp, "pair");
    for (const d of ["", "a", "b"]) {
      mkdirSync(join(pair, d), { recursive: true });
      writeFileSync(join(pair, d, "zarr.json"), GROUP);
    }
    symlinkSync("../b", join(pair, "a", "l"));
    symlinkSync("../a", join(pair, "b", "m"));
    const two = new FsStore(pair);
    assert.deepEqual((await two.list("/a/")).prefixes, ["/a/l/"]);
    assert.deepEqual((await two.list("/a/l/")).prefixes, [], "b's link back to a is on the way down");
    const both = await timed(() => walk(two, { limits: { maxNodes: 1000 } }));
    assert.deepEqual(memberPaths(both.value), ["a", "a/l", "b", "b/m"]);

    // d0/x → d1, d0/y → d1, d1/x → d2, …: followed below one another, 2^20 paths to d20.
    const chain = join(tmp, "chain");
    mkdirSync(chain);
    writeFileSync(join(chain, "zarr.json"), GROUP);
    for (let i = 0; i <= 20; i++) {
      mkdirSync(join(chain, `d${i}`));
      writeFileSync(join(chain, `d${i}`, "zarr.json"), GROUP);
      if (i > 0) for (const name of ["x", "y"]) symlinkSync(`../d${i}`, join(chain, `d${i - 1}`, name));
    }
    const chained = await timed(() => walk(new FsStore(chain), { limits: { maxNodes: 1000 } }));
    const want = Array.from({ length: 21 }, (_, i) => [`d${i}`, ...(i < 20 ? [`d${i}/x`, `d${i}/y`] : [])])
      .flat()
      .sort();
    assert.deepEqual(memberPaths(chained.value), want, "each directory at its place, each link once");
    t.diagnostic(
      `list ${listed.ms.toFixed(1)} ms, walk ${walked.ms.toFixed(1)} ms (v3 + 7 links), pair walk ${both.ms.toFixed(1)} ms, chain of 40 links walk ${chained.ms.toFixed(1)} ms`,
    );
  }));

test("maxBytes: a longer file or range is LimitExceeded from its size, before it is read", () =>
  inTemp(async (tmp) => {
    const store = new FsStore(fixtures);
    const n = bytesOf(SHARD).length;
    const over = (max) =>
      zomError("LimitExceeded", { key: `/${SHARD}`, message: new RegExp(`${n} bytes, over the limit maxBytes = ${max}$`) });
    await assert.rejects(store.get(`/${SHARD}`, { maxBytes: n - 1 }), over(n - 1));
    assert.deepEqual(await store.get(`/${SHARD}`, { maxBytes: n }), bytesOf(SHARD));
    // A range is measured by what it returns, not by the file.
    assert.deepEqual(await store.getRange(`/${SHARD}`, { offset: 10, length: 20 }, { maxBytes: 20 }), bytesOf(SHARD).subarray(10, 30));
    await assert.rejects(
      store.getRange(`/${SHARD}`, { offset: 10, length: 21 }, { maxBytes: 20 }),
      zomError("LimitExceeded", { message: /21 bytes, over the limit maxBytes = 20$/ }),
    );
    await assert.rejects(store.getRange(`/${SHARD}`, { suffixLength: n }, { maxBytes: 100 }), zomError("LimitExceeded"));
    assert.equal(await store.get("/nope", { maxBytes: 0 }), undefined, "a missing value is still missing");
    for (const bad of [-1, NaN, "10"]) {
      await assert.rejects(store.get(`/${SHARD}`, { maxBytes: bad }), zomError("InvalidArgument", { message: /maxBytes/ }), String(bad));
    }
    // A 64 GiB sparse file: reading it would fail to allocate, so the refusal comes first.
    const big = join(tmp, "big");
    writeFileSync(big, "");
    truncateSync(big, 2 ** 36);
    const huge = new FsStore(tmp);
    const refused = await timed(() => huge.get("/big", { maxBytes: 2 ** 20 }));
    zomError("LimitExceeded", { key: "/big", message: /68719476736 bytes/ })(refused.error);
  }));

test("an aborted signal stops reads", async () => {
  const store = new FsStore(fixtures);
  const signal = AbortSignal.abort();
  await assert.rejects(store.get("/v3/zarr.json", { signal }), zomError("Aborted"));
  await assert.rejects(store.getRange(`/${SHARD}`, { offset: 0, length: 4 }, { signal }), zomError("Aborted"));
  await assert.rejects(store.list("/", { signal }), zomError("Aborted"));
});

test("walk through FsStore equals pydantic-zarr's ZOM for every fixture hierarchy", async () => {
  for (const name of HIERARCHIES) {
    const result = await walk(new FsStore(join(fixtures, name)));
    assertJsonEqual(result, readJson("expected", `${name}.zom.json`), name);
    assert.deepEqual([result.errors, result.unlisted], [[], []], name);
    assert.equal(result.consolidated, name.endsWith("consolidated"), name);
  }
});

test("reads through FsStore equal zarr-python's values (sharded, partial, strided)", async () => {
  const cases = [
    ["sample", "image/gradient_circles", [slice(30, 170), slice(null, null, 7)]],
    ["sample", "measurements/temperature", null],
    ["v3", "shard_nested", [slice(1, 11, 3), -1]],
    ["v2", "order_f_3d", [1, slice(null), slice(null, null, -2)]],
  ];
  for (const [name, path, selection] of cases) {
    const arr = await openArray(new FsStore(join(fixtures, name)), path);
    const expected = readJson("expected", `${name}.values.json`)[path];
    const { data, shape } = await arr.get(selection);
    const want = reference(expected.values, expected.shape, selection);
    assert.deepEqual(shape, want.shape, path);
    sameValues(elements(data, arr.dtype), want.values, path);
  }
});
