// What Rust defines once reaches TypeScript through ts/generated/boundary.ts (written by
// examples/gen_boundary.rs; tests/boundary_ts.rs fails when it is stale): the metadata
// document names, the `numcodecs.` prefix, the codec names and the numeric data types. This
// test fails when a TypeScript file of the package or the explorer writes one of those lists
// (or the prefix) out again, where it could drift from the Rust.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

const GENERATED = readFileSync(join(repoRoot, "ts/generated/boundary.ts"), "utf8");

/** The quoted strings of one generated `export const NAME … = [ … ];` or `{ … };`. */
function generatedList(name) {
  const start = GENERATED.indexOf(`export const ${name}`);
  assert.ok(start >= 0, `ts/generated/boundary.ts has no ${name}`);
  const end = GENERATED.indexOf(";\n", start);
  const body = GENERATED.slice(start, end);
  if (body.includes("Record<")) return [...body.matchAll(/^\s+([A-Za-z0-9_]+):/gm)].map((m) => m[1]);
  return [...body.slice(body.indexOf("=")).matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

const LISTS = {
  METADATA_DOCUMENTS: generatedList("METADATA_DOCUMENTS"),
  CODEC_NAMES: generatedList("CODEC_NAMES").filter((n) => !n.startsWith("numcodecs.")),
  NUMERIC_TYPES: generatedList("NUMERIC_TYPES"),
};

/** Every .ts file under `dir`, less generated/ and declarations. */
function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "generated" && name !== "node_modules") out.push(...sources(path));
    } else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const FILES = [...sources(join(repoRoot, "ts")), ...sources(join(repoRoot, "www/src"))];

/** The strings of `text` that are quoted or spelled as regex alternatives, each with its line. */
function literals(text) {
  const found = [];
  text.split("\n").forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments name things freely
    for (const m of line.matchAll(/"([^"\\]*)"|'([^'\\]*)'/g)) found.push({ value: m[1] ?? m[2], line: i + 1 });
    for (const m of line.matchAll(/\/((?:[^/\\\n]|\\.)+)\/[a-z]*/g)) {
      for (const alt of m[1].split("|")) found.push({ value: alt.replace(/[()^$]|\\(?=\.)/g, ""), line: i + 1 });
    }
  });
  return found;
}

test("the generated lists are there and not empty", () => {
  for (const [name, list] of Object.entries(LISTS)) assert.ok(list.length >= 5, `${name}: ${list}`);
});

test("no TypeScript file writes the numcodecs prefix or a generated list out again", () => {
  const copies = [];
  for (const file of FILES) {
    const text = readFileSync(file, "utf8");
    const where = relative(repoRoot, file);
    const strings = literals(text);
    for (const s of strings) if (s.value === "numcodecs.") copies.push(`${where}:${s.line}: the prefix "numcodecs." (NUMCODECS_PREFIX)`);
    for (const [name, list] of Object.entries(LISTS)) {
      // Three names of one list on one line is a copy of the list; one or two are a use.
      const byLine = new Map();
      for (const s of strings) if (list.includes(s.value)) byLine.set(s.line, new Set([...(byLine.get(s.line) ?? []), s.value]));
      for (const [line, names] of byLine) {
        if (names.size >= 3) copies.push(`${where}:${line}: ${[...names].join(", ")} (${name})`);
      }
    }
  }
  assert.deepEqual(copies, [], `import these from ts/generated/boundary.ts instead:\n${copies.join("\n")}`);
});

test("the check finds a copy", () => {
  const strings = literals(`const M = /(zarr\\.json|\\.zarray|\\.zgroup)$/;\nconst C = ["gzip", "zstd", "blosc"];`);
  const values = strings.map((s) => s.value);
  for (const name of ["zarr.json", ".zarray", ".zgroup", "gzip", "zstd", "blosc"]) assert.ok(values.includes(name), `${name} in ${values}`);
});
