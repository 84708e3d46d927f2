// Typed values crossing from WebAssembly (src/wasm/plain.rs): reports, problems, differences,
// node summaries, errors and limits are plain objects with zom's fields in zom's order, equal
// to their JSON form, with names that are data (node paths) kept as own properties.
import assert from "node:assert/strict";
import { test } from "node:test";
import { getLimits, setLimits } from "zom";
import { diff, fromDocuments, parseJson, summarize, toV3, validateDocument, validateHierarchy } from "zom/validate";
import { readDocuments } from "./helpers.mjs";

/** Asserts that `value` is made of plain objects and arrays only, equal to its JSON copy. */
function assertPlain(value, what) {
  const visit = (v, at) => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        visit(item, `${at}[${i}]`);
      });
      return;
    }
    if (v !== null && typeof v === "object") {
      assert.equal(Object.getPrototypeOf(v), Object.prototype, `${what}: ${at} is not a plain object`);
      for (const [k, item] of Object.entries(v)) visit(item, `${at}.${k}`);
    }
  };
  visit(value, "");
  assert.deepStrictEqual(JSON.parse(JSON.stringify(value)), value, what);
}

const PROBLEM = ["path", "loc", "kind", "message", "severity"];

test("a validation report: {valid, problems}, each problem {path, loc, kind, message, severity}", () => {
  const report = validateDocument({ zarr_format: 3, node_type: "array", shape: [-1], extra: { must_understand: true } }, { strict: true });
  assert.deepEqual(Object.keys(report), ["valid", "problems"]);
  assert.equal(report.valid, false);
  assert.ok(report.problems.length > 2);
  for (const p of report.problems) assert.deepEqual(Object.keys(p), PROBLEM);
  assert.deepEqual(report.problems[0], {
    path: "",
    loc: ["shape", 0],
    kind: "invalid_value",
    message: "'shape'[0] must be a non-negative integer, not -1",
    severity: "error",
  });
  assertPlain(report, "validateDocument");
});

test("a hierarchy's report locates problems at node paths, also for many problems", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const names = Object.keys(zom.members).filter((n) => zom.members[n].node_type === "array");
  for (const name of names) zom.members[name].fill_value = "not a fill value";
  const report = validateHierarchy(zom);
  assert.equal(report.valid, false);
  // Every array whose data type does not take a string fill value.
  assert.ok(report.problems.length > 20);
  assert.ok(report.problems.every((p) => names.includes(p.path)));
  assert.ok(report.problems.every((p) => p.loc[0] === "fill_value" && p.severity === "error"));
  assertPlain(report, "validateHierarchy");
});

test("toV3's problems and diff's differences are plain lists; BigInt values stay BigInt", () => {
  const { problems } = toV3(fromDocuments(readDocuments("v2")));
  assert.ok(problems.length > 0);
  for (const p of problems) assert.deepEqual(Object.keys(p), PROBLEM);
  assertPlain(problems, "toV3 problems");

  const expected = fromDocuments(readDocuments("v3"));
  const actual = fromDocuments(readDocuments("v3"));
  actual.members.dtype_int64.fill_value = 2n ** 63n - 1n;
  delete actual.members.dtype_int8;
  const differences = diff(expected, actual);
  const changed = differences.find((d) => d.kind === "changed");
  assert.deepEqual(Object.keys(changed), ["path", "loc", "kind", "expected", "actual", "message"]);
  assert.equal(changed.actual, 2n ** 63n - 1n);
  const removed = differences.find((d) => d.kind === "removed");
  assert.equal(removed.path, "dtype_int8");
  assert.equal("actual" in removed, false);
});

test("summaries by node path: a node named __proto__ is an own property, not the prototype", () => {
  const group = JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} });
  const tree = fromDocuments(
    new Map([
      ["zarr.json", group],
      ["__proto__/zarr.json", group],
      ["a/zarr.json", group],
    ]),
  );
  const summaries = summarize(tree);
  assert.deepEqual(Object.keys(summaries), ["", "__proto__", "a"]);
  assert.equal(Object.getPrototypeOf(summaries), Object.prototype);
  assert.ok(Object.hasOwn(summaries, "__proto__"));
  assert.deepEqual(Object.keys(summaries[""]), [
    "kind",
    "zarr_format",
    "attributes",
    "members",
    "shape",
    "data_type",
    "chunks",
    "shards",
    "grid",
    "codecs",
  ]);
  assert.equal(summaries[""].members, 2);
  assertPlain(summaries, "summarize");
});

test("errors carry {code, message, path, key}; limits keep Infinity", () => {
  assert.throws(
    () => parseJson("{"),
    (e) => e.code === "InvalidMetadata" && e.path === null && e.key === null,
  );
  const before = getLimits();
  assert.deepEqual(Object.keys(before), [
    "maxChunkBytes",
    "maxBytes",
    "maxChunks",
    "maxDocumentBytes",
    "maxJsonDepth",
    "maxNodes",
    "maxShardIndexBytes",
  ]);
  try {
    setLimits({ maxNodes: Infinity });
    assert.equal(getLimits().maxNodes, Infinity);
  } finally {
    setLimits(null);
  }
  assert.deepEqual(getLimits(), before);
});
