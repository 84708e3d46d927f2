// flatten / unflatten: pydantic-zarr's flat form, v2 .zmetadata and v3 inline consolidated
// metadata, against the fixtures zarr-python wrote.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flatten, fromDocuments, unflatten } from "zom/validate";
import { assertJsonEqual, readDocuments, readJson } from "./helpers.mjs";

for (const name of ["v3", "v2"]) {
  test(`flatten(${name}) equals pydantic-zarr's to_flat()`, () => {
    const zom = fromDocuments(readDocuments(name));
    const flat = flatten(zom);
    assertJsonEqual(flat, readJson("expected", `${name}.flat.json`), `${name} flat`);
    assert.deepEqual(flatten(zom, { form: "pydantic" }), flat);
    assert.equal(flat[""].members, null, "the root's members are null in the flat form");
  });

  test(`unflatten(flatten(${name})) is the same ZOM`, () => {
    const zom = fromDocuments(readDocuments(name));
    assertJsonEqual(unflatten(flatten(zom)), zom, `${name} auto-detected`);
    assertJsonEqual(unflatten(flatten(zom), { form: "pydantic" }), zom, `${name} explicit form`);
  });
}

test("flatten(v3, consolidated) is the root zarr.json zarr-python consolidated", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const flat = flatten(zom, { form: "consolidated" });
  assertJsonEqual(flat, readJson("v3-consolidated", "zarr.json"), "v3 inline consolidated");
  assertJsonEqual(unflatten(flat), zom, "v3 consolidated round trip");
  assertJsonEqual(unflatten(flat, { form: "consolidated" }), zom, "v3 consolidated, form given");
});

test("flatten(v2, zmetadata) is the .zmetadata zarr-python consolidated", () => {
  const zom = fromDocuments(readDocuments("v2"));
  const flat = flatten(zom, { form: "zmetadata" });
  assertJsonEqual(flat, readJson("v2-consolidated", ".zmetadata"), "v2 .zmetadata");
  assertJsonEqual(unflatten(flat), zom, "v2 zmetadata round trip");
});

test("a form the version does not have, or an unknown form, is a ZomError", () => {
  const v3 = fromDocuments(readDocuments("v3"));
  const v2 = fromDocuments(readDocuments("v2"));
  assert.throws(() => flatten(v3, { form: "zmetadata" }), { name: "ZomError", code: "InvalidArgument" });
  assert.throws(() => flatten(v2, { form: "consolidated" }), { name: "ZomError", code: "InvalidArgument" });
  assert.throws(() => flatten(v2, { form: "yaml" }), { name: "ZomError" });
  assert.throws(() => unflatten({ "/a": 1 }), { name: "ZomError" });
});
