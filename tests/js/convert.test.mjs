// toV3 against zarr-python's own v2 -> v3 conversion (migrate_v3) of every fixture array
// (tests/fixtures/expected/v2.migrated.json: path -> v3 metadata, or the error zarr-python
// raised).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromDocuments, toDocuments, toV3 } from "zom/validate";
import { assertJsonEqual, readDocuments, readJson } from "./helpers.mjs";

const migrated = Object.entries(readJson("expected", "v2.migrated.json"));
const expected = {
  arrays: Object.fromEntries(migrated.filter(([, m]) => !("error" in m))),
  failed: Object.fromEntries(migrated.filter(([, m]) => "error" in m)),
};
const v2 = fromDocuments(readDocuments("v2"));
const { zom, problems } = toV3(v2);

/** The node at "a/b" of a ZOM. */
const at = (root, path) => path.split("/").reduce((node, name) => node?.members?.[name], root);

/** Every array path of a ZOM. */
function arrayPaths(node, prefix = "") {
  return Object.entries(node.members ?? {}).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}/${name}` : name;
    return child.members === undefined ? [path] : arrayPaths(child, path);
  });
}

test("toV3 converts every array as zarr-python's migrate_v3 does", () => {
  const paths = Object.keys(expected.arrays);
  assert.ok(paths.length >= 40, `ground truth has ${paths.length} arrays`);
  for (const path of paths) {
    const node = { ...at(zom, path) };
    assert.ok(node.zarr_format, `${path} converted`);
    // zarr-python's to_dict() leaves out dimension_names when there are none; the ZOM has null.
    if (node.dimension_names === null) delete node.dimension_names;
    assertJsonEqual(node, expected.arrays[path], path);
  }
});

test("toV3 converts the whole tree, also what zarr-python refuses, and reports the lossy parts", () => {
  assert.equal(zom.zarr_format, 3);
  assert.equal(zom.node_type, "group");
  assert.deepEqual(zom.attributes, v2.attributes);
  const before = arrayPaths(v2).sort();
  assert.deepEqual(arrayPaths(zom).sort(), before);
  for (const path of before) {
    const node = at(zom, path);
    assert.equal(node.zarr_format, 3, path);
    assert.equal(node.node_type, "array", path);
    assert.deepEqual(node.shape, at(v2, path).shape, path);
    assert.equal(node.chunk_key_encoding.name, "v2", path);
  }
  for (const path of Object.keys(expected.failed)) {
    assert.ok(at(zom, path)?.codecs?.length > 0, `${path}: zom converts it`);
  }
  // fill_value null has no v3 form: converted with the default, and said so.
  const fillNone = problems.find((p) => p.path === "fill_none");
  assert.ok(fillNone, JSON.stringify(problems));
  assert.deepEqual(fillNone.loc, ["fill_value"]);
  assert.equal(fillNone.severity, "warning");
  assert.equal(at(zom, "fill_none").fill_value, 0);
  assert.ok(
    problems.every((p) => p.severity === "warning"),
    JSON.stringify(problems),
  );
});

test("the converted ZOM writes v3 documents that read back the same", () => {
  const docs = toDocuments(zom);
  assert.ok(docs.has("zarr.json"));
  assert.ok(
    [...docs.keys()].every((k) => k.endsWith("zarr.json")),
    [...docs.keys()].join(),
  );
  assertJsonEqual(fromDocuments(docs), zom, "v3 documents of toV3");
});

test("toV3 of a v3 ZOM is refused or unchanged", () => {
  const v3 = fromDocuments(readDocuments("v3"));
  let result;
  try {
    result = toV3(v3);
  } catch (e) {
    assert.equal(e.name, "ZomError");
    return;
  }
  assertJsonEqual(result.zom, v3, "v3 through toV3");
});
