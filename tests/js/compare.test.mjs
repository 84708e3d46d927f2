// like / diff / jsonSchema.
import assert from "node:assert/strict";
import { test } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { diff, fromDocuments, jsonSchema, like, stringify } from "zom/validate";
import { HIERARCHIES, readDocuments } from "./helpers.mjs";

const v3 = () => fromDocuments(readDocuments("v3"));

test("like: equal trees, and trees that differ only where excluded", () => {
  const a = v3();
  const b = v3();
  assert.equal(like(a, b), true);
  b.members.dtype_int8.attributes.note = "changed";
  b.attributes.title = "other";
  assert.equal(like(a, b), false);
  assert.equal(like(a, b, { exclude: ["attributes"] }), true);
  assert.equal(like(a, b, { include: ["shape", "data_type"] }), true);
  assert.equal(like(a, b, { include: ["attributes"] }), false);
  // v3 and consolidated v3 are the same hierarchy.
  assert.equal(like(a, fromDocuments(readDocuments("v3-consolidated"))), true);
});

test("diff lists every difference with its node path and location", () => {
  const expected = v3();
  const actual = v3();
  assert.deepEqual(diff(expected, actual), []);
  actual.members.dtype_int8.codecs[1].configuration.level = 9;
  delete actual.members.dtype_int16;
  actual.members.extra = structuredClone(actual.members.dtype_int32);
  actual.members.dtype_int64.fill_value = 5n;
  const byPath = Object.fromEntries(diff(expected, actual).map((d) => [`${d.path} ${d.loc.join(".")}`, d]));
  const level = byPath["dtype_int8 codecs.1.configuration.level"];
  assert.ok(level, Object.keys(byPath).join(", "));
  assert.equal(level.kind, "changed");
  assert.equal(level.actual, 9);
  assert.equal(typeof level.message, "string");
  assert.equal(byPath["dtype_int16 "]?.kind, "removed");
  assert.equal(byPath["extra "]?.kind, "added");
  const fill = byPath["dtype_int64 fill_value"];
  assert.equal(fill.expected, -9223372036854775808n);
  assert.equal(fill.actual, 5);
  assert.equal(Object.keys(byPath).length, 4, Object.keys(byPath).join(", "));
  assert.deepEqual(diff(expected, actual, { exclude: ["members"] }), []);
});

test("jsonSchema(2|3) accepts pydantic-zarr's dumps and rejects broken ones", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // The schemas and ZOMs hold BigInts (int64 bounds); ajv takes plain JSON.
  const plain = (value) => JSON.parse(stringify(value));
  const validators = { 2: ajv.compile(plain(jsonSchema(2))), 3: ajv.compile(plain(jsonSchema(3))) };
  for (const name of HIERARCHIES) {
    const zom = plain(fromDocuments(readDocuments(name)));
    const validate = validators[zom.zarr_format];
    assert.ok(validate(zom), `${name}: ${ajv.errorsText(validate.errors)}`);
    const broken = structuredClone(zom);
    const [first] = Object.keys(broken.members);
    broken.members[first].shape = "ten";
    assert.equal(validate(broken), false, `${name}: a string shape is refused`);
  }
  assert.equal(validators[3](plain(fromDocuments(readDocuments("v2")))), false, "v2 is not v3");
  assert.throws(() => jsonSchema(4), { name: "ZomError", code: "InvalidArgument" });
});
