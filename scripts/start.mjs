// `npm start`: installs what is missing, builds, then loads the sample hierarchy
// (tests/fixtures/sample, written by zarr-python) through the built package and prints its
// ZOM as a tree and its validation report. (The explorer web app replaces this later.)
import { join, relative } from "node:path";
import { build } from "./build.mjs";
import { readMetadataDocuments, root, runMain } from "./lib.mjs";
import { setup } from "./setup.mjs";

const nameOf = (c) => (typeof c === "string" ? c : (c?.name ?? c?.id ?? "?"));

function codecSummary(c) {
  const name = nameOf(c);
  const inner = c?.configuration?.codecs;
  return Array.isArray(inner) ? `${name}(${inner.map(codecSummary).join(" → ")})` : name;
}

/** One line describing a node: kind, version, and for arrays shape, dtype, chunks, codecs. */
function describe(node) {
  const isGroup = node.node_type === "group" || (node.zarr_format === 2 && "members" in node);
  const attrs = Object.keys(node.attributes ?? {}).length;
  const head = `${isGroup ? "group" : "array"}, v${node.zarr_format}`;
  const tail = attrs ? `, ${attrs} attribute${attrs === 1 ? "" : "s"}` : "";
  if (isGroup) return `(${head}${tail})`;
  if (node.zarr_format === 3) {
    const grid = node.chunk_grid?.configuration?.chunk_shape;
    // With sharding the grid's chunks are shards; the inner chunks are the codec's.
    const inner = node.codecs[0]?.name === "sharding_indexed" ? node.codecs[0].configuration?.chunk_shape : undefined;
    const list = (xs) => `[${xs.join(", ")}]`;
    const chunks = grid ? (inner ? ` chunks ${list(inner)} in shards ${list(grid)}` : ` chunks ${list(grid)}`) : "";
    return (
      `(${head}) shape ${list(node.shape)} ${nameOf(node.data_type)}${chunks}` +
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
  const docs = readMetadataDocuments(dir);
  console.log(`\nzom ${zom.version()}: ${docs.size} metadata documents in ${relative(root, dir)}\n`);
  const hierarchy = zom.fromDocuments(docs);
  console.log(tree(hierarchy).join("\n"));
  const report = zom.validateHierarchy(hierarchy);
  console.log(`\nvalidation: ${report.valid ? "valid" : "INVALID"}, ${report.problems.length} problem(s)`);
  for (const p of report.problems) {
    const loc = p.loc.map((step, i) => (typeof step === "number" ? `[${step}]` : `${i ? "." : ""}${step}`)).join("");
    const where = `/${p.path}${loc ? ` ${loc}` : ""}`;
    console.log(`  ${p.severity} ${p.kind} at ${where}: ${p.message}`);
  }
});
