// The `zom` command line with hostile names and values: terminal control characters (C0, DEL,
// C1, bidirectional overrides) in node names, data types, codecs, attributes, values and
// messages are written escaped by every text output.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cliExits as exits, parseJsonExact, zom } from "./helpers.mjs";

const RED = "\x1b[31m";
const RLO = "\u202e"; // RIGHT-TO-LEFT OVERRIDE
const CSI = "\u009b"; // the C1 form of ESC [
/** The string values of the array "strs…" below. */
const HOSTILE_VALUES = ["plain", `esc${RED}red\r`, `bidi${RLO}\u2066x${CSI}\x7f\u0085`];
/** Member names (also directory names) holding control characters. */
const NAMES = { group: `grp${RED}x\r`, strings: `strs${RLO}\n\ty`, bad: `bad${RED}\x07`, codec: "codec\r" };

/**
 * A v3 hierarchy at `root` whose names, attributes, data type, codec name and string values
 * hold terminal controls; "bad…" is invalid (its data type), "codec…" names an unknown codec.
 */
function writeHostileHierarchy(root) {
  const doc = (path, node) => {
    mkdirSync(join(root, path), { recursive: true });
    writeFileSync(join(root, path, "zarr.json"), JSON.stringify(node));
  };
  const array = (extra) => ({
    zarr_format: 3,
    node_type: "array",
    shape: [3],
    data_type: "string",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [3] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: "",
    codecs: [{ name: "vlen-utf8", configuration: {} }],
    attributes: {},
    ...extra,
  });
  doc("", { zarr_format: 3, node_type: "group", attributes: { [`key${RED}`]: `red${RED}\r${RLO}${CSI}2J\x7f`, nl: "a\nb\tc" } });
  doc(NAMES.group, { zarr_format: 3, node_type: "group", attributes: {} });
  doc(NAMES.strings, array({ dimension_names: [`d${RED}`], attributes: { [`u${CSI}`]: `v${RLO}` } }));
  // vlen-utf8: the count, then each value's length and UTF-8 bytes (u32 little-endian).
  const parts = [Buffer.alloc(4)];
  parts[0].writeUInt32LE(HOSTILE_VALUES.length);
  for (const v of HOSTILE_VALUES) {
    const bytes = Buffer.from(v, "utf8");
    parts.push(Buffer.alloc(4), bytes);
    parts.at(-2).writeUInt32LE(bytes.length);
  }
  mkdirSync(join(root, NAMES.strings, "c"));
  writeFileSync(join(root, NAMES.strings, "c", "0"), Buffer.concat(parts));
  doc(NAMES.bad, array({ data_type: `int32${RED}\x1b]0;pwned\x07`, fill_value: 0 }));
  doc(
    NAMES.codec,
    array({
      data_type: "int32",
      fill_value: 0,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: `zstd${RED}${RLO}`, configuration: {} },
      ],
    }),
  );
}

/** Asserts that `text` holds no control character but line breaks: no C0 but "\n", DEL, C1 or bidirectional control. */
function assertNoControls(text, what) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  const i = [...text].findIndex((c) => /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(c));
  assert.equal(i, -1, `${what}: a raw ${JSON.stringify([...text][i])} at character ${i} of\n${JSON.stringify(text)}`);
}

test("text outputs write control characters of names, data types, codecs, attributes, values and messages escaped", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "zom-cli-"));
  try {
    const root = join(tmp, "h");
    writeHostileHierarchy(root);
    const runs = {
      tree: await zom("tree", root),
      validate: await zom("validate", root),
      info: await zom("info", root),
      infoStrings: await zom("info", root, NAMES.strings),
      infoBad: await zom("info", root, NAMES.bad),
      get: await zom("get", root, NAMES.strings),
      getBad: await zom("get", root, NAMES.bad),
      getCodec: await zom("get", root, NAMES.codec),
      getMissing: await zom("get", root, `nope${RED}`),
      noDirectory: await zom("tree", join(tmp, `no${RED}dir`)),
      usage: await zom("get", root, NAMES.strings, `1${RED}`),
      treeJson: await zom("tree", root, "--json"),
      getJson: await zom("get", root, NAMES.strings, "--json"),
    };
    for (const [what, r] of Object.entries(runs)) {
      assertNoControls(r.stdout, `${what} stdout`);
      assertNoControls(r.stderr, `${what} stderr`);
    }
    const { tree, validate, info, infoStrings, infoBad, get, getBad, getCodec, getMissing, noDirectory, usage } = runs;
    exits(tree, 0, "tree");
    assert.deepEqual(
      tree.stdout.trimEnd().split("\n"),
      [
        "/ (group, v3, 2 attributes)",
        String.raw`├── bad\u001b[31m\u0007 (array, v3) shape [3] int32\u001b[31m\u001b]0;pwned\u0007 chunks [3] codecs: vlen-utf8`,
        String.raw`├── codec\r (array, v3) shape [3] int32 chunks [3] codecs: bytes → zstd\u001b[31m\u202e`,
        String.raw`├── grp\u001b[31mx\r (group, v3)`,
        String.raw`└── strs\u202e\n\ty (array, v3) shape [3] string chunks [3] codecs: vlen-utf8, 1 attribute`,
      ],
      "one line per node: the line breaks and tabs of names are escaped too",
    );
    exits(validate, 1, "validate");
    assert.ok(
      validate.stdout.includes(
        String.raw`error invalid_value at /bad\u001b[31m\u0007 data_type: 'int32\u001b[31m\u001b]0;pwned\u0007' is not a valid extension name`,
      ),
      validate.stdout,
    );
    assert.ok(validate.stdout.includes(String.raw`at /codec\r codecs[1].name: 'zstd\u001b[31m\u202e'`), validate.stdout);
    exits(info, 0, "info");
    assert.ok(info.stdout.includes(String.raw`"key\u001b[31m": "red\u001b[31m\r\u202e\u009b2J\u007f",`), info.stdout);
    assert.ok(info.stdout.includes(String.raw`  strs\u202e\n\ty (array, v3)`), info.stdout);
    exits(infoStrings, 0, "info of the strings");
    for (const line of [
      String.raw`path:         /strs\u202e\n\ty`,
      String.raw`dimensions:   ["d\u001b[31m"]`,
      String.raw`"u\u009b": "v\u202e"`,
    ]) {
      assert.ok(infoStrings.stdout.includes(line), `${line}\n${infoStrings.stdout}`);
    }
    assert.ok(infoBad.stdout.includes(String.raw`dtype:        int32\u001b[31m\u001b]0;pwned\u0007`), infoBad.stdout);
    exits(get, 0, "get");
    assert.equal(get.stdout, `${String.raw`["plain", "esc\u001b[31mred\r", "bidi\u202e\u2066x\u009b\u007f\u0085"]`}\n`);
    exits(getBad, 2, "get of the invalid array");
    assert.equal(
      getBad.stderr,
      String.raw`zom: InvalidMetadata: data_type: unknown data type 'int32\u001b[31m\u001b]0;pwned\u0007' (path /bad\u001b[31m\u0007)` +
        "\n",
    );
    assert.match(getCodec.stderr, /^zom: UnknownCodec: unknown codec 'zstd\\u001b\[31m\\u202e' \(path \/codec\\r\)\n$/);
    assert.match(getMissing.stderr, /^zom: NotFound: .* \(path \/nope\\u001b\[31m, key nope\\u001b\[31m\/zarr\.json\)\n$/);
    assert.match(noDirectory.stderr, /^zom: NotFound: no directory .*no\\u001b\[31mdir\n$/);
    exits(usage, 2, "a bad selection");
    assert.match(usage.stderr, /^zom: index '1\\u001b\[31m' in selection/);

    // --json is exact: the same strings come back from the JSON (DEL, C1 and bidirectional
    // controls written as \u escapes, which JSON.stringify would leave raw).
    const zomTree = parseJsonExact(runs.treeJson.stdout);
    assert.deepEqual(Object.keys(zomTree.members).sort(), Object.values(NAMES).sort());
    assert.equal(zomTree.attributes[`key${RED}`], `red${RED}\r${RLO}${CSI}2J\x7f`);
    assert.ok(runs.treeJson.stdout.includes(String.raw`\u202e\u009b2J\u007f`), runs.treeJson.stdout);
    assert.deepEqual(parseJsonExact(runs.getJson.stdout).values, HOSTILE_VALUES);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
