// `npm start`: installs what is missing, builds, then loads the sample hierarchy
// (tests/fixtures/sample, written by zarr-python) through the built package and prints its
// ZOM as a tree and its validation report. (The explorer web app replaces this later.)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { build } from "./build.mjs";
import { root, runMain } from "./lib.mjs";
import { setup } from "./setup.mjs";

const METADATA = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"]);

/** Every metadata document under dir, by store key ("a/b/zarr.json"), as bytes. */
function readDocuments(dir) {
  const docs = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !METADATA.has(entry.name)) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    docs.set(relative(dir, file).split(sep).join("/"), readFileSync(file));
  }
  return new Map([...docs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const nameOf = (c) => (typeof c === "string" ? c : (c?.name ?? c?.id ?? "?"));

function codecSummary(c) {
  const name = nameOf(c);
  const inner = c?.configuration?.codecs;
  if (!Array.isArray(inner)) return name;
  const shape = c.configuration.chunk_shape;
  const chunks = Array.isArray(shape) ? ` ${shape.join("×")}` : "";
  return `${name}(${inner.map(codecSummary).join(" → ")})${chunks}`;
}

/** One line describing a node: kind, version, and for arrays shape, dtype, chunks, codecs. */
function describe(node) {
  const isGroup = node.node_type === "group" || (node.zarr_format === 2 && "members" in node);
  const attrs = Object.keys(node.attributes ?? {}).length;
  const head = `${isGroup ? "group" : "array"}, v${node.zarr_format}`;
  const tail = attrs ? `, ${attrs} attribute${attrs === 1 ? "" : "s"}` : "";
  if (isGroup) return `(${head}${tail})`;
  if (node.zarr_format === 3) {
    const chunks = node.chunk_grid?.configuration?.chunk_shape;
    return (
      `(${head}) shape [${node.shape.join(", ")}] ${nameOf(node.data_type)}` +
      (chunks ? ` chunks [${chunks.join(", ")}]` : "") +
      ` codecs: ${node.codecs.map(codecSummary).join(" → ")}${tail}`
    );
  }
  const dtype = typeof node.dtype === "string" ? node.dtype : "structured";
  const codecs = [...(node.filters ?? []), ...(node.compressor ? [node.compressor] : [])];
  return (
    `(${head}) shape [${node.shape.join(", ")}] ${dtype} chunks [${node.chunks.join(", ")}]` +
    ` codecs: ${codecs.length ? codecs.map(nameOf).join(" → ") : "none"}${tail}`
  );
}

/** The ZOM as indented lines, members in the order the ZOM has them. */
function tree(node, name = "/", prefix = "", last = true, isRoot = true) {
  const lines = [`${isRoot ? "" : prefix + (last ? "└── " : "├── ")}${name} ${describe(node)}`];
  const members = Object.entries(node.members ?? {});
  const childPrefix = isRoot ? "" : prefix + (last ? "    " : "│   ");
  members.forEach(([child, sub], i) => {
    lines.push(...tree(sub, child, childPrefix, i === members.length - 1, false));
  });
  return lines;
}

runMain(async () => {
  setup();
  build();
  const zom = await import("zom");
  const dir = join(root, "tests", "fixtures", "sample");
  const docs = readDocuments(dir);
  console.log(`\nzom ${zom.version()}: ${docs.size} metadata documents in ${relative(root, dir)}\n`);
  const hierarchy = zom.fromDocuments(docs);
  console.log(tree(hierarchy).join("\n"));
  const report = zom.validateHierarchy(hierarchy);
  console.log(`\nvalidation: ${report.valid ? "valid" : "INVALID"}, ${report.problems.length} problem(s)`);
  for (const p of report.problems) {
    const where = `/${p.path}${p.loc.length ? " " + p.loc.map((s) => JSON.stringify(s)).join(".") : ""}`;
    console.log(`  ${p.severity} ${p.kind} at ${where}: ${p.message}`);
  }
});
