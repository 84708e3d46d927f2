// validateDocument / validateHierarchy through the built package: every fixture document is
// valid, broken ones list their problems with path, loc and kind, handlers written in JS run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { registerExtension, setLimits, unregisterExtension } from "zom";
import { fromDocuments, stringify, validateDocument, validateHierarchy } from "zom/validate";
import { HIERARCHIES, readDocuments } from "./helpers.mjs";

const arrayDoc = () => ({
  zarr_format: 3,
  node_type: "array",
  shape: [10, 20],
  data_type: "int64",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [5, 20] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: -9223372036854775808n,
  codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  attributes: {},
});

const errors = (report) => report.problems.filter((p) => p.severity === "error");
const show = (report) => JSON.stringify(report.problems, (_, v) => (typeof v === "bigint" ? `${v}` : v), 1);

for (const name of HIERARCHIES) {
  test(`every metadata document of ${name} is valid (bytes in, key given)`, () => {
    for (const [key, bytes] of readDocuments(name)) {
      const report = validateDocument(bytes, { key });
      assert.equal(report.valid, true, `${name}/${key}: ${show(report)}`);
      assert.deepEqual(errors(report), [], `${name}/${key}`);
    }
  });

  test(`the ZOM of ${name} is a valid hierarchy`, () => {
    const report = validateHierarchy(fromDocuments(readDocuments(name)));
    assert.equal(report.valid, true, show(report));
  });
}

test("a valid array document given as object, JSON text and bytes", () => {
  const doc = arrayDoc();
  const text = JSON.stringify({ ...doc, fill_value: 0 });
  for (const input of [doc, text, new TextEncoder().encode(text)]) {
    const report = validateDocument(input, { key: "a/zarr.json" });
    assert.deepEqual(report, { valid: true, problems: [] });
  }
});

test("a broken array document lists each problem with path, loc and kind", () => {
  const doc = arrayDoc();
  delete doc.chunk_grid;
  doc.shape = "ten";
  const report = validateDocument(doc, { key: "group/a/zarr.json" });
  assert.equal(report.valid, false);
  const find = (kind, loc) => report.problems.find((p) => p.kind === kind && p.loc.join(".") === loc);
  const missing = find("missing_key", "chunk_grid");
  assert.ok(missing, show(report));
  assert.equal(missing.path, "group/a");
  assert.equal(missing.severity, "error");
  assert.match(missing.message, /chunk_grid/);
  assert.ok(find("invalid_type", "shape"), show(report));
});

test("a problem deep inside a codec is located to the key", () => {
  const doc = arrayDoc();
  doc.codecs = [{ name: "bytes", configuration: { endian: "middle" } }];
  const report = validateDocument(doc, { key: "zarr.json" });
  assert.equal(report.valid, false);
  const problem = report.problems.find((p) => p.loc.join(".") === "codecs.0.configuration.endian");
  assert.ok(problem, show(report));
  assert.equal(problem.kind, "invalid_value");
  assert.equal(problem.path, "");
});

test("a v2 .zarray with a bad dtype and order", () => {
  const zarray = { zarr_format: 2, shape: [4], chunks: [2], dtype: "<q9", fill_value: 0, order: "Z", filters: null, compressor: null };
  const report = validateDocument(zarray, { key: "x/.zarray" });
  assert.equal(report.valid, false);
  const locs = report.problems.map((p) => p.loc.join("."));
  assert.ok(locs.includes("dtype"), show(report));
  assert.ok(locs.includes("order"), show(report));
  assert.ok(
    report.problems.every((p) => p.path === "x"),
    show(report),
  );
});

test("text that is not JSON is one invalid_json problem", () => {
  const report = validateDocument(new TextEncoder().encode('{"zarr_format": 3,\n  "node_type": '), { key: "zarr.json" });
  assert.equal(report.valid, false);
  assert.equal(report.problems.length, 1, show(report));
  assert.equal(report.problems[0].kind, "invalid_json");
});

test("unknown extensions: must_understand, and handlers written in JS", () => {
  const doc = arrayDoc();
  doc.codecs.push({ name: "example.rot13", configuration: { shift: -1 } });
  const plain = validateDocument(doc, { key: "a/zarr.json" });
  const unknown = plain.problems.find((p) => p.kind === "must_understand");
  assert.ok(unknown, show(plain));
  assert.deepEqual(unknown.loc, ["codecs", 1]);

  const calls = [];
  const handled = validateDocument(doc, {
    key: "a/zarr.json",
    extensionHandlers: {
      "example.rot13": (ext, path, loc) => {
        calls.push({ ext, path, loc });
        return ext.configuration.shift < 0 ? [{ message: "shift must not be negative", loc: ["configuration", "shift"] }] : [];
      },
    },
  });
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0], { ext: { name: "example.rot13", configuration: { shift: -1 } }, path: "a", loc: ["codecs", 1] });
  assert.equal(handled.valid, false);
  assert.deepEqual(
    handled.problems.map(({ path, loc, kind, message, severity }) => ({ path, loc, kind, message, severity })),
    [
      {
        path: "a",
        loc: ["codecs", 1, "configuration", "shift"],
        kind: "invalid_value",
        message: "shift must not be negative",
        severity: "error",
      },
    ],
  );

  const known = validateDocument(doc, { key: "a/zarr.json", extensionHandlers: { "example.rot13": true } });
  assert.equal(known.valid, true, show(known));
  assert.throws(() => validateDocument(doc, { extensionHandlers: { "example.rot13": 42 } }), {
    name: "ZomError",
    code: "InvalidArgument",
  });
});

test("registerExtension makes a name known to every later validation", () => {
  const doc = arrayDoc();
  doc.codecs.push({ name: "example.rot13", configuration: { shift: -1 } });
  registerExtension("example.rot13", (ext) => (ext.configuration.shift < 0 ? [{ message: "negative shift", severity: "warning" }] : []));
  try {
    const report = validateDocument(doc, { key: "a/zarr.json" });
    assert.equal(report.valid, true, show(report));
    assert.deepEqual(
      report.problems.map((p) => [p.loc, p.message, p.severity]),
      [[["codecs", 1], "negative shift", "warning"]],
    );
    // A handler given to one call wins over the registered one.
    const overridden = validateDocument(doc, { key: "a/zarr.json", extensionHandlers: { "example.rot13": true } });
    assert.deepEqual(overridden.problems, []);
  } finally {
    assert.equal(unregisterExtension("example.rot13"), true);
  }
  const after = validateDocument(doc, { key: "a/zarr.json" });
  assert.ok(
    after.problems.some((p) => p.kind === "must_understand"),
    show(after),
  );
});

test("the sample hierarchy has exactly its one deliberate problem", () => {
  const report = validateHierarchy(fromDocuments(readDocuments("sample")));
  assert.equal(report.valid, false);
  const found = errors(report);
  assert.equal(found.length, 1, show(report));
  assert.equal(found[0].path, "broken/bad_chunk_rank");
  assert.deepEqual(found[0].loc.slice(0, 1), ["chunk_grid"], show(report));
  assert.equal(found[0].kind, "invalid_value");
});

test("validateHierarchy takes JSON text too, and reports a member that is broken", () => {
  const zom = fromDocuments(readDocuments("v3"));
  zom.members.dtype_int8.chunk_grid.configuration.chunk_shape = [0, -1];
  const report = validateHierarchy(stringify(zom));
  assert.equal(report.valid, false);
  assert.ok(errors(report).length >= 1);
  assert.ok(
    errors(report).every((p) => p.path === "dtype_int8"),
    show(report),
  );
});

// validateHierarchy sends a ZOM object of plain JSON data as JSON text (one call into the
// module); anything JSON.stringify would write otherwise than the module reads the object
// goes as the object. Either way the report (or the error) is the object's.
test("validateHierarchy of a ZOM object: the same report whichever way the object travels", () => {
  const array = (over) => ({
    ...arrayDoc(),
    shape: [4],
    data_type: "int32",
    fill_value: 0,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
    ...over,
  });
  const root = (members) => ({ zarr_format: 3, node_type: "group", attributes: {}, members });
  const nested = (n) => (n === 0 ? [] : [nested(n - 1)]);
  const report = (members) => validateHierarchy(root(members));
  const messages = (r) => r.problems.map((p) => `${p.path} ${p.loc.join(".")} ${p.kind}: ${p.message}`);
  // Plain data with odd content: escapes, unicode keys, exponents, a deep attribute.
  const odd = { s: '\u2028 "q" \\ 😀 \u0000', n: 1.5e-7, e: 1e21, big: 9007199254740991, neg: -9007199254740991, deep: nested(100) };
  assert.deepEqual(report({ é: array({ attributes: odd }) }), { valid: true, problems: [] });
  // -0 stays a float (JSON.stringify writes 0): not an int32 fill value.
  assert.deepEqual(messages(report({ a: array({ fill_value: -0 }) })), [
    "a fill_value invalid_value: fill_value -0.0 does not fit the data type: fill_value for int32 must be an integer, got -0.0",
  ]);
  assert.equal(report({ a: array({ data_type: "float64", fill_value: -0 }) }).valid, true);
  // An integer beyond 2^53 is a float to zom (JSON text would make it a 64-bit integer).
  const huge = report({ a: array({ shape: [1e19] }) });
  assert.deepEqual(
    huge.problems.map((p) => [p.loc, p.kind]),
    [[["shape", 0], "invalid_type"]],
    show(huge),
  );
  // BigInt, Map members, Date (no own properties: {}), holes as null: read as before.
  assert.equal(report({ a: array({ data_type: "int64", fill_value: 2n ** 60n }) }).valid, true);
  assert.equal(validateHierarchy(root(new Map([["a", array({})]]))).valid, true);
  assert.equal(report({ a: array({ attributes: { d: new Date(0), u: undefined, l: [undefined, 1], s: "a\ud800b" } }) }).valid, true);
  // Refused as before.
  assert.throws(() => report({ a: array({ data_type: "float64", fill_value: NaN }) }), {
    code: "InvalidArgument",
    message: /NaN is not a JSON number/,
  });
  assert.throws(() => report({ a: array({ attributes: { f: () => 1 } }) }), { code: "InvalidArgument", message: /functions and symbols/ });
  assert.throws(() => report({ a: array({ attributes: { t: new Uint8Array(2) } }) }), { code: "InvalidArgument", message: /Uint8Array/ });
  // Text over the limits (or nested deeper than JSON text may be) falls back to the object.
  assert.equal(report({ a: array({ attributes: { d: nested(123) } }) }).valid, true);
  setLimits({ maxDocumentBytes: 100, maxJsonDepth: 3 });
  try {
    assert.deepEqual(report({ a: array({}) }), { valid: true, problems: [] });
  } finally {
    setLimits(null);
  }
});
