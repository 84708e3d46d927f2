// stringify / parseJson (BigInt-safe JSON) and version.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { version } from "zom";
import { fromDocuments, parseJson, stringify } from "zom/validate";
import { parseJsonExact, readDocuments, readJson, repoRoot } from "./helpers.mjs";

test("version is the crate version from Cargo.toml", () => {
  const cargo = readFileSync(`${repoRoot}/Cargo.toml`, "utf8");
  assert.equal(version(), /^version = "([^"]+)"/m.exec(cargo)[1]);
});

test("parseJson keeps integers beyond 2^53 exact as BigInt", () => {
  const value = parseJson(
    '{"a": 18446744073709551615, "b": -9223372036854775808, "c": 9007199254740991, "d": 1.5, "e": [null, true, "x"]}',
  );
  assert.deepEqual(value, { a: 18446744073709551615n, b: -9223372036854775808n, c: 9007199254740991, d: 1.5, e: [null, true, "x"] });
  assert.equal(typeof value.c, "number", "safe integers stay numbers");
});

test("parseJson refuses what is not JSON with a ZomError", () => {
  assert.throws(() => parseJson("{"), { name: "ZomError", code: "InvalidMetadata" });
  assert.throws(() => parseJson("[1,]"), { name: "ZomError" });
});

test("stringify writes BigInts as plain integers, with or without indent", () => {
  const value = { big: -9223372036854775808n, u: 18446744073709551615n, list: [1, "two", null] };
  const compact = stringify(value);
  assert.equal(compact, '{"big":-9223372036854775808,"u":18446744073709551615,"list":[1,"two",null]}');
  const pretty = stringify(value, 2);
  assert.match(pretty, /\n {2}"big": -9223372036854775808,\n/);
  assert.deepEqual(parseJson(pretty), value);
  assert.throws(() => stringify({ f: () => 1 }), { name: "ZomError", code: "InvalidArgument" });
  assert.throws(() => stringify({ n: 2n ** 70n }), { name: "ZomError", code: "InvalidArgument" });
});

test("stringify(zom) is the pydantic-zarr dump, read back exactly", () => {
  const zom = fromDocuments(readDocuments("v3"));
  assert.deepEqual(parseJsonExact(stringify(zom, 2)), readJson("expected", "v3.zom.json"));
  assert.deepEqual(parseJson(stringify(zom)), zom);
});

test("stringify keeps the sign of -0 (zarr-python writes a fill value of -0.0)", () => {
  assert.equal(stringify(-0), "-0.0");
  assert.equal(stringify({ fill_value: -0 }), '{"fill_value":-0.0}');
  assert.ok(Object.is(parseJson(stringify(-0)), -0));
  assert.equal(stringify(0), "0");
});
