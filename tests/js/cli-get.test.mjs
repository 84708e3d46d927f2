// `zom get`: the values zarr-python wrote for every data type and selections (--json, and NumPy's
// text layout), from directories and over HTTP, and bad selections as usage errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { slice } from "zom";
import { withServer } from "../server/testing.mjs";
import { assertJsonEqual, fixtureDir as dir, cliExits as exits, parseJsonExact, readJson, zom } from "./helpers.mjs";
import { reference } from "./hierarchy-common.mjs";

/** [hierarchy, array, SELECTION text, the same selection as objects]. */
const GETS = [
  ["v3", "dtype_int64", "1:", [slice(1, null)]],
  ["v3", "dtype_uint64", "", null],
  ["v3", "dtype_float16", "::2", [slice(null, null, 2)]],
  ["v3", "dtype_complex128", "-2:, ::-1", [slice(-2, null), slice(null, null, -1)]],
  ["v3", "fill_complex64_nan", ":", [null]],
  ["v3", "dtype_bool", "1", [1]],
  ["v3", "dtype_string", "[1:4]", [slice(1, 4)]],
  ["v3", "dtype_fixed_utf32", "-1", [-1]],
  ["v3", "dtype_datetime_ns", "", null],
  ["v3", "dtype_timedelta_ms", "0:5:2", [slice(0, 5, 2)]],
  ["v3", "dtype_raw_bytes", "", null],
  ["v3", "dtype_nullterm_bytes", "1:", [slice(1, null)]],
  ["v3", "dtype_vlen_bytes", "", null],
  ["v3", "dtype_struct_nested", "3:", [slice(3, null)]],
  ["v3", "codec_transpose", "...,1", [null, null, 1]],
  ["v3", "shard_nested", "1:11:3,-4:", [slice(1, 11, 3), slice(-4, null)]],
  ["v3", "shard_string", "2:9", [slice(2, 9)]],
  ["v2", "order_f_3d", "1,...,::-2", [1, null, slice(null, null, -2)]],
  ["v2", "filter_packbits", "", null],
  ["v2", "dtype_float32", ":,2", [null, 2]],
  ["sample", "image/gradient_circles", "30:170, ::7", [slice(30, 170), slice(null, null, 7)]],
  ["sample", "measurements/2024/run1/records", "", null],
  ["sample", "measurements/timestamps", "-5:", [slice(-5, null)]],
];

/**
 * A value of `get --json` as values.json writes it: null-terminated byte strings padded with
 * NULs to their width (zom gives them without the padding, as NumPy does).
 */
function padded(value, dataType) {
  const name = typeof dataType === "string" ? dataType : dataType.name;
  if (name === "null_terminated_bytes") {
    const bytes = new Uint8Array(dataType.configuration.length_bytes);
    bytes.set(Buffer.from(value, "base64"));
    return Buffer.from(bytes).toString("base64");
  }
  if (name === "structured") {
    return Object.fromEntries(dataType.configuration.fields.map(([field, type]) => [field, padded(value[field], type)]));
  }
  return value;
}

test("get --json prints the values zarr-python wrote, for every data type and selections", async () => {
  await Promise.all(
    GETS.map(async ([name, path, text, selection]) => {
      const r = await zom("get", dir(name), path, ...(text === "" ? [] : [text]), "--json");
      exits(r, 0, `get ${name} ${path} ${text}`);
      const got = parseJsonExact(r.stdout);
      const expected = readJson("expected", `${name}.values.json`)[path];
      const want = reference(expected.values, expected.shape, selection);
      assert.equal(got.path, path);
      assert.deepEqual(got.shape, want.shape, `${path} ${text}: shape`);
      // get --json writes numbers with a typed array's join, which writes -0 as 0 (JSON has no
      // other spelling for a JS number): the one value where the sign is lost.
      const unsign = (v) =>
        Object.is(v, -0)
          ? 0
          : Array.isArray(v)
            ? v.map(unsign)
            : typeof v === "object" && v !== null
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unsign(x)]))
              : v;
      const values = got.values.map((v) => padded(v, got.dtype));
      assertJsonEqual(values, want.values.map(unsign), `${name} ${path} [${text}]`);
    }),
  );
});

test("get over HTTP equals get from the directory; text output is NumPy's layout", async () => {
  await withServer({}, async (server) => {
    const http = await zom("get", `${server.url}/sample`, "image/gradient_circles", "100:104,0:6", "--json");
    const local = await zom("get", dir("sample"), "image/gradient_circles", "100:104,0:6", "--json");
    exits(http, 0, "over HTTP");
    assert.equal(http.stdout, local.stdout);
  });
  const text = await zom("get", dir("v3"), "codec_bytes_only", "0:2,1:4");
  exits(text, 0, "text");
  const values = readJson("expected", "v3.values.json").codec_bytes_only.values;
  assert.equal(text.stdout, `[[${values.slice(1, 4).join(", ")}],\n [${values.slice(6, 9).join(", ")}]]\n`);
  // float32 as NumPy prints it: the fewest digits that read back as the same float32.
  const f32 = await zom("get", dir("sample"), "measurements/temperature", "0:3,::12");
  const temperature = readJson("expected", "sample.values.json")["measurements/temperature"].values;
  const printed = f32.stdout.match(/[\d.e+-]+/g).map(Number);
  const want = [0, 1, 2].flatMap((row) => [0, 12, 24, 36].map((col) => temperature[row * 48 + col]));
  assert.deepEqual(printed.map(Math.fround), want.map(Math.fround), f32.stdout);
  assert.ok(f32.stdout.includes("[[20, 24.546486, "), f32.stdout);
  const complex = await zom("get", dir("v3"), "dtype_complex64", "0:2");
  assert.equal(complex.stdout, "[(NaN, 1), (Infinity, 0)]\n");
  const scalar = await zom("get", dir("v3"), "dtype_int32", "2");
  assert.equal(scalar.stdout, `${readJson("expected", "v3.values.json").dtype_int32.values[2]}\n`);
  // Beyond 1000 elements NumPy summarises: three at each edge.
  const big = await zom("get", dir("sample"), "image/gradient_circles");
  const lines = big.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 7, big.stdout);
  assert.equal(lines[3], " ...,");
  assert.match(lines[0], /^\[\[\d+, \d+, \d+, \.\.\., \d+, \d+, \d+\],$/);
});

test("get: bad selections are usage or selection errors (exit 2)", async () => {
  for (const [sel, pattern] of [
    ["1.5", /^zom: index '1\.5' in selection '1\.5' is not an integer/],
    ["1:2:3:4", /has more than two ':'/],
    ["...,...", /more than one '\.\.\.'/],
    ["0,,1", /has an empty entry/],
    ["99", /^zom: InvalidSelection: .*\(path \/dtype_int8\)/],
    ["::0", /^zom: InvalidSelection: .*step cannot be zero/],
    ["0,0", /^zom: InvalidSelection: /],
  ]) {
    const r = await zom("get", dir("v3"), "dtype_int8", sel);
    exits(r, 2, `selection ${sel}`);
    assert.match(r.stderr, pattern, sel);
    assert.equal(r.stdout, "");
  }
  const group = await zom("get", dir("v3"), "group1");
  exits(group, 2, "get of a group");
  assert.match(group.stderr, /^zom: NotFound: .*group1/);
});
