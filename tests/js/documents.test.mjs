// fromDocuments / toDocuments through the built package, against zarr-python's fixtures and
// pydantic-zarr's dumps of them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isZomError, ZomError } from "zom";
import { fromDocuments, toDocuments } from "zom/validate";
import { assertJsonEqual, documentsAsJson, HIERARCHIES, readDocuments, readJson } from "./helpers.mjs";

/**
 * The documents as they come back through the ZOM JSON. The ZOM is pydantic-zarr's form, which
 * spells out a v2 array's default `dimension_separator` "." (as zarr-python reads it); a legacy
 * `.zarray` without the key therefore comes back with it. (Native Rust, which keeps the
 * document, round-trips even that: tests/model.rs.)
 */
function withPydanticDefaults(docs) {
  for (const [key, doc] of Object.entries(docs)) {
    if (key.endsWith(".zarray") && !("dimension_separator" in doc)) {
      docs[key] = { ...doc, dimension_separator: "." };
    }
  }
  return docs;
}

for (const name of HIERARCHIES) {
  test(`fromDocuments(${name}) equals pydantic-zarr's GroupSpec dump`, () => {
    const zom = fromDocuments(readDocuments(name));
    assertJsonEqual(zom, readJson("expected", `${name}.zom.json`), name);
  });

  test(`toDocuments(fromDocuments(${name})) gives back the documents`, () => {
    const docs = readDocuments(name);
    const written = toDocuments(fromDocuments(docs), { consolidated: name.endsWith("consolidated") });
    assert.ok(written instanceof Map);
    for (const [key, bytes] of written) {
      assert.equal(typeof key, "string");
      assert.ok(bytes instanceof Uint8Array, key);
    }
    assertJsonEqual(documentsAsJson(written), withPydanticDefaults(documentsAsJson(docs)), `${name} documents`);
  });
}

test("fromDocuments accepts JSON text, parsed values and a plain object", () => {
  const group = { zarr_format: 3, node_type: "group", attributes: { a: 1 } };
  const array = {
    zarr_format: 3,
    node_type: "array",
    shape: [4],
    data_type: "uint8",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 7,
    codecs: [{ name: "bytes" }],
    attributes: {},
  };
  const zom = fromDocuments({ "zarr.json": JSON.stringify(group), "x/zarr.json": array, "x/c/0": "chunk" });
  assert.equal(zom.node_type, "group");
  assert.deepEqual(zom.attributes, { a: 1 });
  assert.deepEqual(Object.keys(zom.members), ["x"]);
  assert.equal(zom.members.x.fill_value, 7);
  assert.deepEqual(zom.members.x.shape, [4]);
});

test("int64 and uint64 extremes come out as exact BigInts", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const int64 = zom.members.dtype_int64;
  assert.equal(int64.data_type, "int64");
  assert.equal(int64.fill_value, -9223372036854775808n);
  // A root attribute of 2^53 + 1 (JSON.parse would round it to 2^53).
  assert.equal(zom.attributes.big, 9007199254740993n);
  const expected = readJson("expected", "v3.zom.json");
  for (const [member, node] of Object.entries(expected.members)) {
    if (typeof node.fill_value === "bigint") {
      assert.equal(zom.members[member].fill_value, node.fill_value, member);
    }
  }
});

test("garbage thrown at fromDocuments is a ZomError with code and key", () => {
  const garbage = new Map([["zarr.json", new Uint8Array([0xff, 0x00, 0x7b])]]);
  assert.throws(
    () => fromDocuments(garbage),
    (e) => {
      assert.ok(e instanceof ZomError);
      assert.ok(e instanceof Error);
      assert.ok(isZomError(e));
      assert.equal(e.name, "ZomError");
      assert.equal(e.code, "InvalidMetadata");
      assert.equal(e.key, "zarr.json");
      assert.equal(e.path, "");
      assert.ok(e.message.length > 0);
      assert.equal(e.cause.code, "InvalidMetadata");
      return true;
    },
  );
});

test("fromDocuments without a root document is NotFound; not a map is InvalidArgument", () => {
  assert.throws(() => fromDocuments(new Map([["a/zarr.json", "{}"]])), { name: "ZomError", code: "NotFound" });
  assert.throws(() => fromDocuments(42), { name: "ZomError", code: "InvalidArgument" });
  assert.throws(() => fromDocuments({ "zarr.json": { zarr_format: 3, node_type: "tree" } }), {
    name: "ZomError",
    code: "InvalidMetadata",
  });
});

test("toDocuments of a hand-written ZOM writes zarr-python's documents", () => {
  const zom = {
    zarr_format: 2,
    attributes: { title: "t" },
    members: {
      a: {
        zarr_format: 2,
        attributes: {},
        shape: [3],
        chunks: [3],
        dtype: "<i2",
        fill_value: 0,
        order: "C",
        filters: null,
        dimension_separator: ".",
        compressor: null,
      },
    },
  };
  const docs = documentsAsJson(toDocuments(zom));
  assert.deepEqual(docs[".zgroup"], { zarr_format: 2 });
  assert.deepEqual(docs[".zattrs"], { title: "t" });
  assert.equal(docs["a/.zarray"].dtype, "<i2");
  assert.deepEqual(docs["a/.zarray"].shape, [3]);
  assert.throws(() => toDocuments({ zarr_format: 5 }), { name: "ZomError" });
});
