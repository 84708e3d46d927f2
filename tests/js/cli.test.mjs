// The `zom` command line (bin/zom.mjs), run as a child process on the fixture hierarchies, from
// their directories and over HTTP from tests/server: output and exit codes of tree, validate
// (--spec, --strict, --json), info, schema, the errors (exit 2, "zom: <code>: …"), progress and
// help; symbolic links out of a directory and cycles of links. `get` is cli-get.test.mjs's, hostile
// names and values cli-escapes.test.mjs's.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openArray } from "zom";
import { FsStore } from "zom/fs";
import { jsonSchema, stringify, summarize, walk } from "zom/validate";
import { withServer } from "../server/testing.mjs";
import {
  assertJsonEqual,
  fixtureDir as dir,
  cliExits as exits,
  fixtures,
  HIERARCHIES,
  parseJsonExact,
  readJson,
  repoRoot,
  zom,
  zomWithin,
} from "./helpers.mjs";

test("tree lists every node of the sample, with kinds, shapes, data types and codecs", async () => {
  const r = await zom("tree", dir("sample"));
  exits(r, 0, "tree sample");
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 13, r.stdout);
  assert.match(lines[0], /^\/ \(group, v3, 4 attributes\)$/);
  for (const [name, rest] of [
    ["broken", /\(group, v3, 1 attribute\)/],
    ["bad_chunk_rank", /\(array, v3\) shape \[16, 16\] float32 chunks \[8\] codecs: bytes → zstd/],
    ["gradient_circles", /shape \[256, 256\] uint16 chunks \[32, 32\] in shards \[128, 128\] codecs: sharding_indexed\(bytes → zstd\)/],
    ["run1", /\(group, v3, 2 attributes\)/],
    ["records", /shape \[6\] structured\{id, temp, ok\}/],
    ["timestamps", /shape \[10\] datetime64\[s\]/],
  ]) {
    assert.ok(
      lines.some((l) => l.includes(` ${name} `) && rest.test(l)),
      `${name} in\n${r.stdout}`,
    );
  }
  assert.ok(lines.includes("    │   └── run1 (group, v3, 2 attributes)"), r.stdout);
  assert.equal(r.stderr, "", "no progress when stderr is not a terminal");
});

test("tree --json prints pydantic-zarr's ZOM, from directories and over HTTP", async () => {
  for (const name of HIERARCHIES) {
    const r = await zom("tree", dir(name), "--json");
    exits(r, 0, name);
    assertJsonEqual(parseJsonExact(r.stdout), readJson("expected", `${name}.zom.json`), `tree --json ${name}`);
  }
  await withServer({ s3Listing: true }, async (server) => {
    for (const name of ["v3", "v2-consolidated"]) {
      const r = await zom("tree", `${server.url}/${name}`, "--json");
      exits(r, 0, `HTTP ${name}`);
      assertJsonEqual(parseJsonExact(r.stdout), readJson("expected", `${name}.zom.json`), `tree --json over HTTP ${name}`);
    }
    const text = await zom("tree", `${server.url}/sample/`);
    const local = await zom("tree", dir("sample"));
    assert.equal(text.stdout, local.stdout, "the same tree over HTTP");
  });
});

test("tree --depth stops below the root", async () => {
  const r = await zom("tree", dir("sample"), "--depth", "1");
  exits(r, 0, "depth 1");
  assert.deepEqual(
    r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.replace(/ \(.*$/, "")),
    ["/", "├── broken", "├── image", "└── measurements"],
  );
});

test("validate: the sample's broken array exits 1 and is named; v3 exits 0", async () => {
  const bad = await zom("validate", dir("sample"));
  exits(bad, 1, "validate sample");
  assert.match(
    bad.stdout,
    /^error invalid_value at \/broken\/bad_chunk_rank chunk_grid\.configuration\.chunk_shape: chunk_shape \[8\] has 1 dimensions; shape \[16, 16\] has 2$/m,
  );
  assert.match(bad.stdout, /^INVALID: 13 nodes checked, 1 error, 0 warnings, 0 unreadable$/m);

  const json = await zom("validate", dir("sample"), "--json");
  exits(json, 1, "validate sample --json");
  const report = parseJsonExact(json.stdout);
  assert.equal(report.valid, false);
  assert.equal(report.nodes, 13);
  assert.deepEqual(
    report.problems.map((p) => [p.path, p.loc.join("."), p.kind, p.severity]),
    [["broken/bad_chunk_rank", "chunk_grid.configuration.chunk_shape", "invalid_value", "error"]],
  );
  assert.deepEqual([report.unreadable, report.unlisted, report.differences], [[], [], null]);

  await Promise.all(
    HIERARCHIES.map(async (name) => {
      const good = await zom("validate", dir(name));
      exits(good, 0, `validate ${name}`);
      assert.match(good.stdout, /^valid: \d+ nodes checked, 0 errors, 0 warnings, 0 unreadable$/m);
    }),
  );
  const strict = await zom("validate", dir("v3"), "--strict", "--json");
  exits(strict, 0, "validate v3 --strict");
  assert.equal(parseJsonExact(strict.stdout).valid, true);
});

test("a node that cannot be read: tree and validate list it with its key and exit 1", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "zom-cli-"));
  try {
    cpSync(join(fixtures, "sample"), join(tmp, "sample"), { recursive: true });
    writeFileSync(join(tmp, "sample", "measurements", "labels", "zarr.json"), "{broken");
    const where = "(path /measurements/labels, key measurements/labels/zarr.json)";
    const tree = await zom("tree", join(tmp, "sample"));
    exits(tree, 1, "tree");
    assert.equal(tree.stdout.trimEnd().split("\n").length, 12, "the other nodes are listed");
    assert.match(
      tree.stderr,
      /^zom: unreadable node: InvalidMetadata: invalid JSON .*\(path \/measurements\/labels, key measurements\/labels\/zarr\.json\)$/m,
    );
    const text = await zom("validate", join(tmp, "sample"));
    exits(text, 1, "validate");
    assert.ok(
      text.stdout.split("\n").some((l) => l.startsWith("unreadable InvalidMetadata: invalid JSON") && l.endsWith(where)),
      text.stdout,
    );
    assert.match(text.stdout, /^INVALID: 12 nodes checked, 1 error, 0 warnings, 1 unreadable$/m);
    const json = parseJsonExact((await zom("validate", join(tmp, "sample"), "--json")).stdout);
    assert.deepEqual(
      json.unreadable.map((e) => [e.code, e.path, e.key]),
      [["InvalidMetadata", "measurements/labels", "measurements/labels/zarr.json"]],
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("tree stays in the directory: links out of it are left out, cycles of links end quickly", async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), "zom-cli-"));
  try {
    const root = join(tmp, "sample");
    cpSync(join(fixtures, "sample"), root, { recursive: true });
    mkdirSync(join(tmp, "outside"));
    cpSync(join(fixtures, "sample", "measurements"), join(tmp, "outside", "secret_group"), { recursive: true });
    symlinkSync("../outside/secret_group", join(root, "escape"));
    for (const name of ["self1", "self2", "self3"]) symlinkSync(".", join(root, name));
    symlinkSync("../..", join(root, "image", "gradient_circles", "up"));
    const t0 = performance.now();
    const r = await zomWithin(30_000, "tree", root);
    const ms = performance.now() - t0;
    assert.equal(r.signal, null, `zom tree was killed after ${ms} ms`);
    exits(r, 0, "tree");
    assert.equal(r.stdout, (await zom("tree", dir("sample"))).stdout, "the fixture's tree");
    assert.ok(!/\b(escape|secret_group|self\d|up)\b/.test(r.stdout), r.stdout);
    t.diagnostic(`zom tree with 4 cyclic links and one out of the root: ${ms.toFixed(0)} ms`);
    // Reading through the link out of the root is refused, not read.
    const get = await zom("get", root, "escape/temperature", "0");
    exits(get, 2, "get through a link out of the root");
    assert.match(
      get.stderr,
      /^zom: InvalidArgument: .*leads outside the store's directory.*\(path \/escape\/temperature, key escape\/temperature\/zarr\.json\)/,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("validate over HTTP: consolidated, listed, and unlisted (a note; a failure with --strict)", async () => {
  await withServer({ s3Listing: true }, async (server) => {
    exits(await zom("validate", `${server.url}/v3-consolidated`), 0, "v3-consolidated");
    const bad = await zom("validate", `${server.url}/sample`);
    exits(bad, 1, "sample over HTTP");
    assert.match(bad.stdout, /at \/broken\/bad_chunk_rank /);
  });
  await withServer({}, async (server) => {
    // No listing and no consolidated metadata: only the root can be checked.
    const r = await zom("validate", `${server.url}/v3`);
    exits(r, 0, "unlisted, lenient");
    assert.match(r.stdout, /^note unlisted at \/: /m);
    assert.match(r.stdout, /^valid: 1 node checked/m);
    exits(await zom("validate", `${server.url}/v3`, "--strict"), 1, "unlisted, strict");
  });
});

test("validate --spec: equal to the expected ZOM exits 0, a changed spec exits 1 and lists each difference", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "zom-cli-"));
  try {
    exits(await zom("validate", dir("v3"), "--spec", join(fixtures, "expected", "v3.zom.json")), 0, "spec = actual");
    const spec = readJson("expected", "v3.zom.json");
    spec.members.group1.attributes.owner = "someone";
    delete spec.members.dtype_bool;
    spec.members.dtype_int8.shape = [6];
    const file = join(tmp, "expected.json");
    writeFileSync(file, stringify(spec, 2));

    const r = await zom("validate", dir("v3"), `--spec=${file}`);
    exits(r, 1, "changed spec");
    const diffs = r.stdout.split("\n").filter((l) => l.startsWith("difference "));
    assert.deepEqual(diffs, [
      "difference added at /dtype_bool: array member only in actual",
      "difference changed at /dtype_int8: shape.0: expected 6, found 5",
      'difference removed at /group1: attributes.owner: only in expected ("someone")',
    ]);
    assert.match(r.stdout, /^INVALID: 54 nodes checked, 0 errors, 0 warnings, 0 unreadable, 3 differences from /m);

    // Field selectors: the member structure is compared whatever they select.
    for (const selector of [
      ["--exclude", "attributes,shape"],
      ["--include", "attributes.title"],
    ]) {
      const some = await zom("validate", dir("v3"), "--spec", file, ...selector);
      exits(some, 1, selector.join(" "));
      assert.deepEqual(
        some.stdout.split("\n").filter((l) => l.startsWith("difference ")),
        ["difference added at /dtype_bool: array member only in actual"],
      );
    }
    exits(await zom("validate", dir("v3"), "--exclude", "attributes"), 2, "--exclude without --spec");

    const json = await zom("validate", dir("v3"), "--spec", file, "--json");
    exits(json, 1, "changed spec --json");
    const report = parseJsonExact(json.stdout);
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.differences.map((d) => [d.kind, d.path, d.loc]),
      [
        ["added", "dtype_bool", []],
        ["changed", "dtype_int8", ["shape", 0]],
        ["removed", "group1", ["attributes", "owner"]],
      ],
    );

    writeFileSync(file, "{not json");
    const broken = await zom("validate", dir("v3"), "--spec", file);
    exits(broken, 2, "spec file with bad JSON");
    assert.match(broken.stderr, /^zom: InvalidMetadata: invalid JSON/);
    const missing = await zom("validate", dir("v3"), "--spec", join(tmp, "nope.json"));
    exits(missing, 2, "missing spec file");
    assert.match(missing.stderr, /^zom: NotFound: cannot read the spec file /);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("info describes an array (shape, chunks, shards, grid, codecs, fill value, files stored) and a group", async () => {
  const zomOf = readJson("sample", "image", "gradient_circles", "zarr.json");
  const r = await zom("info", dir("sample"), "image/gradient_circles", "--json");
  exits(r, 0, "info --json");
  const info = parseJsonExact(r.stdout);
  const shardFiles = readdirSync(join(fixtures, "sample/image/gradient_circles/c"), { recursive: true, withFileTypes: true }).filter((e) =>
    e.isFile(),
  );
  const bytes = shardFiles.reduce((n, e) => n + readFileSync(join(e.parentPath ?? e.path, e.name)).length, 0);
  assertJsonEqual(
    info,
    {
      path: "image/gradient_circles",
      kind: "array",
      zarr_format: 3,
      shape: zomOf.shape,
      dtype: zomOf.data_type,
      chunks: zomOf.codecs[0].configuration.chunk_shape,
      shards: zomOf.chunk_grid.configuration.chunk_shape,
      chunk_sizes: null,
      grid: [2, 2],
      nchunks: 4,
      codecs: zomOf.codecs,
      fill_value: zomOf.fill_value,
      order: null,
      dimension_names: zomOf.dimension_names,
      attributes: zomOf.attributes,
      stored: { objects: shardFiles.length, bytes },
      read_error: null,
    },
    "info --json",
  );

  const text = await zom("info", dir("sample"), "image/gradient_circles");
  exits(text, 0, "info");
  for (const line of [
    "shape:        [256, 256]",
    "chunks:       [32, 32]",
    "shards:       [128, 128]",
    "grid:         [2, 2] = 4 shards",
    "codecs:       sharding_indexed(bytes → zstd)",
    'dimensions:   ["y","x"]',
    `stored:       4 files, `,
  ]) {
    assert.ok(text.stdout.includes(line), `${line}\n${text.stdout}`);
  }

  const v2 = parseJsonExact((await zom("info", dir("v2"), "dtype_int64", "--json")).stdout);
  assert.deepEqual(
    [v2.dtype, v2.order, v2.fill_value, v2.grid, v2.nchunks, v2.shards],
    ["int64", "C", -9223372036854775808n, [3], 3, null],
  );
  assert.deepEqual(v2.codecs, { filters: null, compressor: readJson("expected", "v2.zom.json").members.dtype_int64.compressor });

  // A rectilinear grid: no one chunk shape, the lengths along each dimension; get reads it.
  const edges = parseJsonExact((await zom("info", dir("current/v3-rectilinear"), "edges_3d", "--json")).stdout);
  assert.deepEqual([edges.chunks, edges.chunk_sizes, edges.grid, edges.nchunks], [null, [[2, 3, 4], [3, 5], [5]], [3, 2, 1], 6]);
  const edgesText = await zom("info", dir("current/v3-rectilinear"), "edges_3d");
  assert.ok(edgesText.stdout.includes("chunks:       rectilinear [[2,3,4],[3,5],[5]]"), edgesText.stdout);
  const got = parseJsonExact((await zom("get", dir("current/v3-rectilinear"), "edges_1d", "3:20:4", "--json")).stdout);
  assert.deepEqual([got.shape, got.values], [[5], [3, 7, 11, 15, 19]]);
  const tree = await zom("tree", dir("current/v3-rectilinear"));
  assert.match(tree.stdout, /edges_3d \(array, v3\) shape \[9, 8, 5\] uint8 \(rectilinear grid\) codecs/);

  const group = await zom("info", dir("sample"), "measurements");
  exits(group, 0, "info of a group");
  assert.match(group.stdout, /^node: +group \(Zarr v3\)$/m);
  assert.match(group.stdout, /^ {2}temperature \(array, v3\) shape \[64, 48\] float32/m);

  await withServer({}, async (server) => {
    const remote = parseJsonExact((await zom("info", `${server.url}/sample`, "image/gradient_circles", "--json")).stdout);
    assert.equal(remote.stored, null, "not counted over HTTP");
    assert.deepEqual(remote.grid, [2, 2]);
  });
});

test("schema 2|3 prints the package's JSON Schemas", async () => {
  for (const v of [2, 3]) {
    const r = await zom("schema", String(v));
    exits(r, 0, `schema ${v}`);
    const schema = JSON.parse(r.stdout);
    assert.match(schema.$schema, /json-schema\.org/);
    assert.deepEqual(schema, JSON.parse(stringify(jsonSchema(v))));
  }
  exits(await zom("schema", "4"), 2, "schema 4");
});

test("errors: a ZomError prints its code, path and key and exits 2", async () => {
  await withServer({}, async (server) => {
    const r = await zom("tree", `${server.url}/no-such-hierarchy`);
    exits(r, 2, "404");
    assert.match(r.stderr, /^zom: NotFound: .* \(path \/, key zarr\.json\)\n$/);
  });
  const missing = await zom("tree", join(tmpdir(), "zom-no-such-dir"));
  exits(missing, 2, "no directory");
  assert.match(missing.stderr, /^zom: NotFound: no directory /);
  const outside = await zom("get", dir("v3"), "../v2/dtype_int8");
  exits(outside, 2, "path leaving the hierarchy");
  assert.match(outside.stderr, /^zom: InvalidArgument: /);
  const scheme = await zom("tree", "s3://bucket/data.zarr");
  exits(scheme, 2, "unsupported scheme");
});

test("a refused connection is an HttpError (exit 2)", async () => {
  // A port nothing listens on: the server is started and closed first.
  let url;
  await withServer({}, async (server) => {
    url = server.url;
  });
  const r = await zom("tree", url);
  exits(r, 2, "connection refused");
  assert.match(r.stderr, /^zom: HttpError: .*\(path \/, key zarr\.json\)/);
});

test("usage errors exit 2; help and --version exit 0", async () => {
  const usage = [
    [],
    ["frobnicate"],
    ["tree"],
    ["tree", "a", "b"],
    ["tree", dir("v3"), "--bogus"],
    ["info", dir("v3"), "--spec", "x"],
    ["validate", dir("v3"), "--spec"],
    ["tree", dir("v3"), "--depth", "x"],
    ["get", dir("v3"), "dtype_int8", "-x"],
  ];
  await Promise.all(
    usage.map(async (args) => {
      const r = await zom(...args);
      exits(r, 2, args.join(" "));
      assert.match(r.stderr, /^zom: /, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    }),
  );
  await Promise.all(
    [["help"], ["--help"], ["-h"], ["help", "get"], ["get", "--help"]].map(async (args) => {
      const r = await zom(...args);
      exits(r, 0, args.join(" "));
      assert.match(r.stdout, /Usage/);
    }),
  );
  const version = await zom("--version");
  exits(version, 0, "--version");
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  assert.equal(version.stdout, `zom ${pkg.version} (core ${pkg.version})\n`);
});

test("--progress writes progress and a summary to stderr, stdout unchanged", async () => {
  const quiet = await zom("tree", dir("sample"));
  const r = await zom("tree", dir("sample"), "--progress");
  exits(r, 0, "--progress");
  assert.equal(r.stdout, quiet.stdout);
  assert.match(r.stderr, /^walking: \d+ nodes?, /m);
  assert.match(r.stderr, /^walked 13 nodes in \d+\.\d+ s$/m);
  await withServer({}, async (server) => {
    const g = await zom("get", `${server.url}/sample`, "image/gradient_circles", "--progress", "--json");
    exits(g, 0, "get --progress");
    assert.match(g.stderr, /^read shape \[256, 256\], \d+ requests, [\d.]+ kB in /m);
  });
});

/**
 * What an array's own metadata document says the summary holds, read from the fixture's file
 * (`.zarray` or `zarr.json`) rather than from zom: its data type when it is a name, its chunks,
 * its shards when its one codec shards it, its codecs in order (a shard's inner ones in brackets).
 */
function fromDocument(root, path) {
  const v2 = join(root, path, ".zarray");
  let doc;
  try {
    doc = parseJsonExact(readFileSync(v2, "utf8"));
  } catch {
    doc = null;
  }
  if (doc !== null) {
    const codecs = [...(doc.filters ?? []).map((f) => f.id), ...(doc.compressor ? [doc.compressor.id] : [])];
    return {
      data_type: typeof doc.dtype === "string" ? doc.dtype : undefined,
      chunks: doc.chunks,
      shards: null,
      codecs: codecs.length ? codecs.join(" → ") : undefined,
    };
  }
  doc = parseJsonExact(readFileSync(join(root, path, "zarr.json"), "utf8"));
  const names = (codecs) =>
    codecs.map((c) => (c.name === "sharding_indexed" ? `sharding_indexed(${names(c.configuration.codecs)})` : c.name)).join(" → ");
  const grid = doc.chunk_grid.name === "regular" ? doc.chunk_grid.configuration.chunk_shape : undefined;
  const sharded = doc.codecs.length === 1 && doc.codecs[0].name === "sharding_indexed";
  return {
    data_type: typeof doc.data_type === "string" ? doc.data_type : undefined,
    chunks: sharded ? doc.codecs[0].configuration.chunk_shape : grid,
    shards: sharded ? (grid ?? undefined) : null,
    codecs: names(doc.codecs),
  };
}

/** Arrays of the fixtures that the reader refuses to open, with the error's code. */
const REFUSED = { "sample/broken/bad_chunk_rank": "InvalidMetadata" };

test("tree, info and the explorer print one summary: for every node of every fixture, the same labels, as the documents say", async () => {
  const refused = {};
  for (const name of [...HIERARCHIES, "sample"]) {
    const tree = await walk(new FsStore(join(fixtures, name)));
    const summaries = summarize(tree);
    const r = await zom("tree", dir(name));
    exits(r, 0, `tree ${name}`);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines.length, Object.keys(summaries).length, `one line a node in ${name}`);
    for (const [path, s] of Object.entries(summaries)) {
      const leaf = path === "" ? "/" : path.slice(path.lastIndexOf("/") + 1);
      const line = lines.find((l) => l.replace(/^[│├└─ ]*/, "").startsWith(`${leaf} (${s.kind}, v${s.zarr_format}`));
      assert.ok(line, `${name}/${path} in\n${r.stdout}`);
      if (s.kind === "group") continue;
      assert.ok(line.includes(` ${s.data_type} `) && line.includes(`codecs: ${s.codecs}`), `${name}/${path}: ${line}`);
      if (s.chunks) assert.ok(line.includes(`chunks [${s.chunks.join(", ")}]`), line);
      assert.equal(line.includes(" in shards "), s.shards !== null, line);
      // The summary says what the array's document says.
      const doc = fromDocument(join(fixtures, name), path);
      for (const [key, value] of Object.entries(doc))
        if (value !== undefined) assert.deepEqual(s[key], value, `${name}/${path}: ${key} as its document says`);
      // The reader opens it with the same chunks and shards (zom info --json prints the reader's).
      const arr = await openArray(new FsStore(join(fixtures, name)), path).catch((e) => e);
      if (arr instanceof Error || arr.readError) {
        refused[`${name}/${path}`] = arr.code ?? arr.readError.code;
        continue;
      }
      assert.deepEqual(arr.shards ?? null, s.shards, `${name}/${path} shards`);
      assert.deepEqual(arr.chunks, s.chunks, `${name}/${path} chunks`);
    }
  }
  assert.deepEqual(refused, REFUSED, "the arrays the reader refuses");
});

test("an array with sharding_indexed then crc32c is not read as sharded, and tree and info say so alike", async () => {
  const root = mkdtempSync(join(tmpdir(), "zom-cli-shard-crc-"));
  try {
    const meta = JSON.parse(readFileSync(join(fixtures, "v3", "shard_index_end", "zarr.json"), "utf8"));
    meta.codecs = [...meta.codecs, { name: "crc32c" }];
    mkdirSync(join(root, "a"));
    writeFileSync(join(root, "a", "zarr.json"), JSON.stringify(meta));
    writeFileSync(join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
    const s = summarize(await walk(new FsStore(root))).a;
    assert.equal(s.shards, null);
    assert.deepEqual(s.chunks, [8, 8]);
    assert.equal(s.codecs, "sharding_indexed(bytes → zstd) → crc32c");
    const tree = await zom("tree", root);
    exits(tree, 0, "tree");
    assert.match(tree.stdout, /a \(array, v3\) shape \[12, 10\] int32 chunks \[8, 8\] codecs: sharding_indexed\(bytes → zstd\) → crc32c\n/);
    const info = await zom("info", root, "a", "--json");
    exits(info, 0, "info");
    const got = JSON.parse(info.stdout);
    assert.equal(got.shards, null);
    assert.deepEqual(got.chunks, [8, 8]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("zipped hierarchies: a .zip path or URL prints what the folder prints", async () => {
  const folder = await zom("tree", dir("sample"), "--json");
  const values = await zom("get", dir("sample"), "measurements/temperature", "0:3, ::7", "--json");
  for (const name of ["sample.zip", "sample-zip64.zip", "sample-folder.zip"]) {
    const path = join(dir("zip"), name);
    const tree = await zom("tree", path, "--json");
    exits(tree, 0, name);
    assert.equal(tree.stdout, folder.stdout, `tree --json of ${name}`);
    if (name !== "sample-folder.zip") continue;
    const got = await zom("get", path, "measurements/temperature", "0:3, ::7", "--json");
    exits(got, 0, name);
    assert.equal(got.stdout, values.stdout, `get of ${name}`);
  }
  await withServer({}, async (server) => {
    const r = await zom("tree", `${server.url}/zip/sample.zip`, "--json");
    exits(r, 0, "over HTTP");
    assert.equal(r.stdout, folder.stdout, "tree --json of a zip over HTTP");
  });
  const notZip = await zom("tree", join(dir("zip"), "generate.py"));
  assert.notEqual(notZip.code, 0);
});

test("kerchunk references: a .json path or URL reads the HDF5 file's values", async () => {
  const expected = readJson("references", "expected.json")["hdf5/counts"];
  const path = join(dir("references"), "hdf5.json");
  const tree = await zom("tree", path);
  exits(tree, 0, "tree of hdf5.json");
  assert.match(tree.stdout, /counts \(array, v\d\)/);
  const got = await zom("get", path, "counts", "--json");
  exits(got, 0, "get of hdf5.json");
  assert.deepEqual(parseJsonExact(got.stdout).values.map(Number), expected.values.flat(Infinity).map(Number));
  await withServer({}, async (server) => {
    const r = await zom("get", `${server.url}/references/hdf5.json`, "counts", "--json");
    exits(r, 0, "over HTTP");
    assert.equal(r.stdout, got.stdout);
  });
});

test("validate over a host without listing follows the plate's metadata; the conventions line counts claims, --verbose lists them", () =>
  withServer({}, async (server) => {
    const url = `${server.url}/walk/ozp-0.21-v0.4-plate`;
    const r = await zom("validate", url, "--spec", "auto");
    exits(r, 0, "validate plate over HTTP");
    const lines = r.stdout.trimEnd().split("\n");
    assert.deepEqual(lines, [
      "conventions: ome-zarr-0.4: plate 1, well 6, image 13",
      "valid: 62 nodes checked, 0 errors, 0 warnings, 0 unreadable",
    ]);
    const verbose = await zom("validate", url, "--spec", "auto", "--verbose");
    exits(verbose, 0, "validate --verbose");
    const claims = verbose.stdout.split("\n").filter((l) => l.startsWith("claim "));
    assert.equal(claims.length, 20, verbose.stdout);
    assert.ok(claims.includes("claim ome-zarr-0.4 well at /A/1"), verbose.stdout);
    assert.ok(claims.includes("claim ome-zarr-0.4 image at /A/1/0/labels/cells"), verbose.stdout);
  }));

test("an Icechunk repository: found without --ref (the tip of main), any ref with --ref, over HTTP too; a bad --ref is a usage error", async () => {
  const ice = readJson("icechunk", "expected.json").repositories;
  const paths = (stdout) =>
    stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.replace(/^[│├└─\s]+/, "").replace(/ \(.*$/, ""));
  for (const repo of ["v2", "v1"]) {
    const main = await zom("tree", dir(`icechunk/${repo}`), "--json");
    exits(main, 0, `${repo} tree`);
    const nodes = Object.keys(ice[repo].refs["branch:main"].nodes)
      .filter((p) => p !== "/")
      .map((p) => p.slice(1))
      .sort();
    assert.deepEqual(Object.keys(flatten(parseJsonExact(main.stdout))).sort(), nodes, `${repo} main`);
    const tagged = await zom("tree", dir(`icechunk/${repo}`), "--ref", "tag:v1.0");
    exits(tagged, 0, `${repo} tag`);
    assert.ok(paths(tagged.stdout).includes("flags"), `${repo}: tag v1.0 still has flags`);
    const tip = Object.keys(flatten(parseJsonExact(main.stdout)));
    assert.ok(tip.includes("late") && !tip.includes("flags"), `${repo}: main's tip has late, not flags`);
    const want = ice[repo].refs["branch:dev"].nodes["/small_u8"];
    const got = await zom("get", dir(`icechunk/${repo}`), "small_u8", "--ref", "dev", "--json");
    exits(got, 0, `${repo} get`);
    assert.deepEqual(parseJsonExact(got.stdout).values ?? parseJsonExact(got.stdout), want.values, `${repo} dev small_u8`);
  }
  await withServer({}, async (server) => {
    const r = await zom("info", `${server.url}/icechunk/v2/`, "group/float64", "--ref", "tag:v1.0");
    exits(r, 0, "info over HTTP");
    assert.match(r.stdout, /^shape:\s+\[10, 7\]$/m);
  });
  const bad = await zom("tree", dir("icechunk/v2"), "--ref", "nope:x");
  exits(bad, 2, "bad --ref");
  assert.match(bad.stderr, /--ref takes a branch/);
  const missing = await zom("tree", dir("icechunk/v2"), "--ref", "branch:nope");
  exits(missing, 2, "no such branch");
  assert.match(missing.stderr, /NotFound.*nope/);
});

/** The node paths of a ZOM (pydantic-zarr's form), below the root. */
function flatten(zom, prefix = "", out = {}) {
  for (const [name, member] of Object.entries(zom.members ?? {})) {
    out[prefix + name] = member;
    flatten(member, `${prefix}${name}/`, out);
  }
  return out;
}
