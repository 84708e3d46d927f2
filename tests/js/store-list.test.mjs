// FetchStore.list: S3 ListObjectsV2 (with paging, at the bucket root or below it) and HTML
// directory indexes, chosen automatically and remembered; undefined when neither answers. Plus
// the parsers on index pages other servers write (nginx, Apache, absolute links).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FetchStore, FileStore } from "zom";
import { parseHtmlIndex, parseS3Listing, s3Candidates } from "../../pkg/store/listing-rules.js";
import { expectedListing, logLines, withServer } from "../server/testing.mjs";

test("S3 listing with paging: every child of a prefix, across continuation tokens", () =>
  withServer({ s3Listing: true, maxKeys: 4 }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    assert.deepEqual(await store.list("/"), expectedListing("v3", "/"));
    const pages = Math.ceil((expectedListing("v3", "").keys.length + expectedListing("v3", "").prefixes.length) / 4);
    assert.ok(pages > 5, `${pages} pages`);
    assert.equal(server.stats.requests, pages, logLines(server).join("\n"));
    assert.ok(server.stats.log.slice(1).every((e) => e.url.includes("continuation-token=")));
    assert.ok(server.stats.log.every((e) => e.url.startsWith("/?list-type=2&prefix=v3%2F")));
    // Deeper prefixes, with or without the trailing "/"; the root is remembered (no probing).
    server.resetStats();
    assert.deepEqual(await store.list("/group1/"), expectedListing("v3/group1", "/group1/"));
    assert.deepEqual(await store.list("group1/sub"), expectedListing("v3/group1/sub", "/group1/sub/"));
    assert.equal(server.stats.requests, 2);
    // A prefix with nothing below it: empty.
    assert.deepEqual(await store.list("/nope/"), { keys: [], prefixes: [] });
  }));

test("S3 listing of a store at the bucket root, and with retries (failEveryOther)", () =>
  withServer({ s3Listing: true, maxKeys: 3, failEveryOther: true }, async (server) => {
    const store = new FetchStore(server.url, { retryDelay: 1 });
    assert.deepEqual(await store.list("/"), expectedListing("", "/"));
    assert.deepEqual(await store.list("/v2/group1/"), expectedListing("v2/group1", "/v2/group1/"));
    assert.ok(server.stats.log.some((e) => e.status === 503));
  }));

test("HTML index: found after the S3 probe fails, then remembered", () =>
  withServer({ htmlIndex: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v2/`);
    assert.deepEqual(await store.list("/"), expectedListing("v2", "/"));
    // Probed: S3 at the origin and at /v2/ (both answer HTML, not XML), then the index.
    assert.deepEqual(logLines(server), [
      "GET /?list-type=2&prefix=v2%2F&delimiter=%2F 200",
      "GET /v2/?list-type=2&prefix=&delimiter=%2F 200",
      "GET /v2/ 200",
    ]);
    server.resetStats();
    const v2 = expectedListing("v2/dtype_int32", "/dtype_int32/");
    assert.ok(v2.keys.includes("/dtype_int32/.zarray"), "dot files are listed");
    assert.deepEqual(await store.list("/dtype_int32"), v2);
    assert.deepEqual(logLines(server), ["GET /v2/dtype_int32/ 200"]);
    // A missing directory, once the index is known to work: empty.
    assert.deepEqual(await store.list("/nope/"), { keys: [], prefixes: [] });
    // listing: "html" goes straight to the index.
    server.resetStats();
    const html = new FetchStore(`${server.url}/v3`, { listing: "html" });
    assert.deepEqual(await html.list("/group1/"), expectedListing("v3/group1", "/group1/"));
    assert.equal(server.stats.requests, 1);
    // listing: "s3" on a server without it: undefined.
    assert.equal(await new FetchStore(`${server.url}/v3`, { listing: "s3" }).list("/"), undefined);
  }));

test("no listing at all: undefined (and listing: 'none' asks nothing)", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    assert.equal(await store.list("/"), undefined);
    const none = new FetchStore(`${server.url}/v3`, { listing: "none" });
    server.resetStats();
    assert.equal(await none.list("/"), undefined);
    assert.equal(server.stats.requests, 0);
  }));

test("S3 listing wins over an HTML index when both exist; 403-for-missing servers still list", () =>
  withServer({ s3Listing: true, htmlIndex: true, forbiddenForMissing: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v3/`);
    assert.deepEqual(await store.list("/group2/"), expectedListing("v3/group2", "/group2/"));
    assert.equal(server.stats.requests, 1);
  }));

test("parseHtmlIndex: python http.server, nginx autoindex, Apache, absolute and foreign links", async () => {
  const python = `<ul><li><a href="a%20b/">a b/</a></li><li><a href=".zarray">.zarray</a></li><li><a href="zarr.json">zarr.json</a></li></ul>`;
  assert.deepEqual(await parseHtmlIndex(python, "http://h/data/x/"), { files: [".zarray", "zarr.json"], dirs: ["a b/"] });
  const nginx = `<html><head><title>Index of /x/</title></head><body><h1>Index of /x/</h1><hr><pre><a href="../">../</a>
<a href="c/">c/</a>                                                 21-Nov-2026 10:05       -
<a href="zarr.json">zarr.json</a>                                          21-Nov-2026 10:05     851
</pre><hr></body></html>`;
  assert.deepEqual(await parseHtmlIndex(nginx, "http://h/x/"), { files: ["zarr.json"], dirs: ["c/"] });
  const apache = `<table><tr><th><a href="?C=N;O=D">Name</a></th></tr>
<tr><td><a href="/x/">Parent Directory</a></td></tr><tr><td><a href='0.0'>0.0</a></td></tr>
<tr><td><a HREF=sub/>sub/</a></td></tr><tr><td><a href="#top">top</a></td></tr></table>`;
  assert.deepEqual(await parseHtmlIndex(apache, "http://h/x/y/"), { files: ["0.0"], dirs: ["sub/"] });
  const links = `<a href="/x/abs.json">abs</a><a href="http://other/x/evil">evil</a><a href="deep/er/file">deep</a>
<a href="http://h/x/full">full</a><a href="q?x=1">q</a><a href="a&amp;b">amp</a><a href="./dot">dot</a><a href="%zz">bad</a>`;
  assert.deepEqual(await parseHtmlIndex(links, "http://h/x/"), { files: ["a&b", "abs.json", "dot", "full"], dirs: [] });
  // The directory URL without its trailing "/" (before a redirect) lists the same.
  assert.deepEqual(await parseHtmlIndex(python, "http://h/data/x"), await parseHtmlIndex(python, "http://h/data/x/"));
});

test("parseS3Listing: entities, missing parts, not a listing", async () => {
  const xml = `<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>true</IsTruncated>
<Contents><Key>a/b&amp;c.json</Key><Size>3</Size></Contents><CommonPrefixes><Prefix>a/&lt;d&gt;/</Prefix></CommonPrefixes>
<NextContinuationToken>t&#x2B;1</NextContinuationToken></ListBucketResult>`;
  assert.deepEqual(await parseS3Listing(xml), { keys: ["a/b&c.json"], prefixes: ["a/<d>/"], truncated: true, next: "t+1" });
  assert.deepEqual(await parseS3Listing("<ListBucketResult></ListBucketResult>"), { keys: [], prefixes: [], truncated: false, next: null });
  assert.equal(await parseS3Listing("<Error><Code>AccessDenied</Code></Error>"), null);
  assert.equal(await parseS3Listing("<html>index</html>"), null);
});

test("s3Candidates: the origin first, then each path prefix", async () => {
  assert.deepEqual(await s3Candidates(new URL("https://s3.example.com/bucket/my%20data.zarr/")), [
    { root: "https://s3.example.com/", storePrefix: "bucket/my data.zarr/" },
    { root: "https://s3.example.com/bucket/", storePrefix: "my data.zarr/" },
    { root: "https://s3.example.com/bucket/my%20data.zarr/", storePrefix: "" },
  ]);
});

test('FileStore lists by the core\'s one rule: a key ending in "/" names no child, code point order', async () => {
  const blob = new Blob(["x"]);
  // "\u{ff61}" sorts before "\u{1f600}" by code point (and UTF-8 bytes), after it by UTF-16 units.
  const store = new FileStore([
    ["/a/", blob],
    ["/a/\u{1f600}", blob],
    ["/a/\u{ff61}", blob],
    ["/a/b/c", blob],
    ["/a//d", blob],
    ["/z", blob],
    ["/a/B", blob],
    ["/a-b/c", blob],
  ]);
  // "/a-b/" before "/a/": prefixes sort with their "/", as S3 lists them.
  assert.deepEqual(await store.list("/"), { keys: ["/z"], prefixes: ["/a-b/", "/a/"] });
  for (const prefix of ["/a/", "a", "/a//"]) {
    assert.deepEqual(await store.list(prefix), { keys: ["/a/B", "/a/\u{ff61}", "/a/\u{1f600}"], prefixes: ["/a/b/"] }, prefix);
  }
});
