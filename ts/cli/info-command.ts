/**
 * `zom info`: what an array or group is, its metadata and, for a directory, what it stores.
 * @module
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { METADATA_DOCUMENTS } from "../generated/boundary.js";
import type { ZarrArray } from "../node.js";
import { ChunkDecoder, open, type ZomError } from "../node.js";
import type { JsonValue, Zom } from "../shared/types.js";
import { showBytes } from "../shared/units.js";
import type { FsStore } from "../store/fs.js";
import { stringify, summarize, walk } from "../validate.js";
import type { Command } from "./context.js";
import { json, target } from "./context.js";
import { describe, escapeControls, membersOf, plural, showError, showPath } from "./format.js";

/** The metadata documents of a node, which are not chunks. */
const METADATA = new Set(METADATA_DOCUMENTS);
/** info counts stored chunk files only up to this many (beyond, it says so). */
const COUNT_LIMIT = 100_000;

/** Files and bytes under an array's directory, its metadata documents aside; null beyond COUNT_LIMIT files. */
async function storedOf(fs: FsStore, path: string): Promise<{ objects: number; bytes: number } | null> {
  const root = fs.pathOf(path === "" ? "/" : `/${path}/`);
  let objects = 0;
  let bytes = 0;
  const visit = async (dir: string, top: boolean): Promise<boolean> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      if (top && METADATA.has(entry.name)) continue;
      const file = resolve(dir, entry.name);
      if (entry.isDirectory()) {
        if (!(await visit(file, false))) return false;
      } else if (entry.isFile()) {
        objects += 1;
        if (objects > COUNT_LIMIT) return false;
        bytes += (await stat(file)).size;
      }
    }
    return true;
  };
  return (await visit(root, true)) ? { objects, bytes } : null;
}

/** The chunk lengths per dimension of an array whose chunks differ in shape (a rectilinear grid), or null when there are too many to show. */
function chunkSizesOf(arr: ZarrArray): number[][] | null {
  try {
    return arr.chunkSizes();
  } catch {
    return null;
  }
}

/** The shape of the grid of stored chunks (of shards, for a sharded array), or null when the array cannot be read. */
function gridOf(arr: ZarrArray): number[] | null {
  if (arr.readError) return null;
  try {
    const decoder = new ChunkDecoder(arr.zom, arr.path);
    try {
      return decoder.gridShape;
    } finally {
      decoder.free();
    }
  } catch {
    return null;
  }
}

const label = (name: string): string => `${name}:`.padEnd(14);
const compact = (v: unknown): string => escapeControls(stringify(v));
/** A value as indented JSON, its lines after the first indented to follow a label. */
const block = (v: unknown): string =>
  stringify(v, 2)
    .split("\n")
    .map((line) => escapeControls(line))
    .join(`\n${" ".repeat(14)}`);

export const info: Command = {
  name: "info",
  arity: [1, 2],
  options: ["json", "ref"],
  help: `Usage: zom info TARGET [PATH] [--json]

Describes the node at PATH (default: the root). An array: shape, data type, chunk shape, shard
shape, the grid of stored chunks (or shards) and their number, codecs, fill value, order (v2),
dimension names, attributes and, for a local directory, the files and bytes stored. A group:
attributes and members.
`,
  async run(ctx) {
    const [where = "", path = ""] = ctx.args;
    const t = await target(ctx, where);
    const node = await open(t.store, path);
    if (node.kind === "group") {
      const result = await walk(t.store, { path: node.path, depth: 1, kind: "group" });
      const summaries = summarize(result);
      const members = membersOf(result).flatMap(([name]) => {
        const s = summaries[name];
        return s ? [{ name, kind: s.kind, summary: describe(s) }] : [];
      });
      if (ctx.options.has("json")) {
        json(ctx, {
          path: node.path,
          kind: "group",
          zarr_format: node.zarrFormat,
          consolidated: node.consolidated,
          attributes: node.attributes,
          members: members.map(({ name, kind }) => ({ name, kind })),
        });
        return 0;
      }
      const lines = [
        `${label("path")}${showPath(node.path)}`,
        `${label("node")}group (Zarr v${node.zarrFormat}${node.consolidated ? ", consolidated metadata" : ""})`,
        `${label("attributes")}${block(node.attributes)}`,
        members.length ? "members:" : `${label("members")}none`,
        ...members.map((m) => `  ${escapeControls(m.name)} ${m.summary}`),
      ];
      ctx.stdout.write(`${lines.join("\n")}\n`);
      return 0;
    }
    const arr = node;
    const zom = arr.zom as Zom & { [key: string]: JsonValue | undefined };
    const grid = gridOf(arr);
    const count = grid === null ? null : grid.reduce((a, b) => a * b, 1);
    const stored = t.fs ? await storedOf(t.fs, arr.path) : null;
    const codecs = arr.zarrFormat === 3 ? (zom.codecs ?? null) : { filters: zom.filters ?? null, compressor: zom.compressor ?? null };
    const unit = arr.shards ? "shard" : "chunk";
    const sizes = arr.chunks === null && arr.readError === null ? chunkSizesOf(arr) : null;
    if (ctx.options.has("json")) {
      json(ctx, {
        path: arr.path,
        kind: "array",
        zarr_format: arr.zarrFormat,
        shape: arr.shape,
        dtype: arr.dtype,
        chunks: arr.chunks,
        shards: arr.shards,
        chunk_sizes: sizes,
        grid,
        nchunks: count,
        codecs,
        fill_value: zom.fill_value ?? null,
        order: arr.zarrFormat === 2 ? (zom.order ?? null) : null,
        dimension_names: arr.dimensionNames,
        attributes: arr.attributes,
        stored,
        read_error: arr.readError ? arr.readError.message : null,
      });
      return 0;
    }
    const lines = [
      `${label("path")}${showPath(arr.path)}`,
      `${label("node")}array (Zarr v${arr.zarrFormat})`,
      `${label("shape")}[${arr.shape.join(", ")}]`,
      `${label("dtype")}${typeof arr.dtype === "string" ? escapeControls(arr.dtype) : compact(arr.dtype)}${arr.zarrFormat === 2 ? ` (v2 ${compact(zom.dtype ?? null)})` : ""}`,
      `${label("chunks")}${arr.chunks ? `[${arr.chunks.join(", ")}]` : sizes ? `rectilinear ${compact(sizes)}` : "?"}`,
      ...(arr.shards ? [`${label("shards")}[${arr.shards.join(", ")}]`] : []),
      `${label("grid")}${grid ? `[${grid.join(", ")}] = ${plural(count ?? 0, unit)}` : "?"}`,
      `${label("codecs")}${escapeControls(summarize(arr.zom)[""]?.codecs ?? "?")}`,
      ...(arr.zarrFormat === 3
        ? (Array.isArray(zom.codecs) ? zom.codecs : []).map((c) => `${" ".repeat(14)}${compact(c)}`)
        : [`${" ".repeat(14)}filters ${compact(zom.filters ?? null)}, compressor ${compact(zom.compressor ?? null)}`]),
      `${label("fill value")}${compact(zom.fill_value ?? null)}`,
      ...(arr.zarrFormat === 2 ? [`${label("order")}${escapeControls(String(zom.order))}`] : []),
      `${label("dimensions")}${arr.dimensionNames ? compact(arr.dimensionNames) : "unnamed"}`,
      `${label("stored")}${stored ? `${plural(stored.objects, "file")}, ${showBytes(stored.bytes)} (${stored.bytes} bytes)` : t.fs ? `not counted (over ${COUNT_LIMIT} files)` : "not counted (remote store)"}`,
      `${label("attributes")}${block(arr.attributes)}`,
      ...(arr.readError ? [`${label("unreadable")}${showError(arr.readError as ZomError)}`] : []),
    ];
    ctx.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
};
