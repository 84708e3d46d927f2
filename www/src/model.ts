/**
 * The hierarchy as the page shows it: tree nodes made from the walked ZOM, with the nodes the
 * walk could not read placed under their parents, and the validation problems per node.
 * @module
 */
import type { Failure, Problem } from "./protocol.js";

/** A ZOM node as plain JSON (BigInts possible). */
export type ZomNode = { [key: string]: unknown };

/** A node of the tree: a group, an array, or a node that failed to load. */
export interface TreeNode {
  /** Node path, "" for the root. */
  path: string;
  name: string;
  kind: "group" | "array" | "failed";
  /** The ZOM node (without it for failed nodes). */
  zom: ZomNode | null;
  /** The failure of a failed node, or of listing this group. */
  failure: Failure | null;
  children: TreeNode[];
}

/** The whole walked hierarchy. */
export interface Hierarchy {
  url: string;
  zom: ZomNode;
  root: TreeNode;
  byPath: Map<string, TreeNode>;
  problems: Problem[];
  errors: Failure[];
  unlisted: string[];
  consolidated: boolean;
}

/** Whether a ZOM node is an array (v3 node_type, or v2's shape without members). */
export function isArray(zom: ZomNode): boolean {
  if (zom.node_type !== undefined) return zom.node_type === "array";
  return "shape" in zom && !("members" in zom);
}

/** Joins a parent path and a member name. */
export const child = (parent: string, name: string): string => (parent === "" ? name : `${parent}/${name}`);

/** True when `path` is `root` or lies below it. */
export const within = (path: string, root: string): boolean => root === "" || path === root || path.startsWith(`${root}/`);

function build(zom: ZomNode, path: string, name: string, byPath: Map<string, TreeNode>): TreeNode {
  const node: TreeNode = { path, name, kind: isArray(zom) ? "array" : "group", zom, failure: null, children: [] };
  byPath.set(path, node);
  const members = zom.members;
  if (members !== null && typeof members === "object" && node.kind === "group") {
    for (const [m, sub] of Object.entries(members as object)) {
      node.children.push(build(sub as ZomNode, child(path, m), m, byPath));
    }
  }
  return node;
}

/** The tree of a walk's results. */
export function hierarchy(url: string, zom: ZomNode, problems: Problem[], errors: Failure[], unlisted: string[], consolidated: boolean): Hierarchy {
  const byPath = new Map<string, TreeNode>();
  const root = build(zom, "", "/", byPath);
  for (const error of errors) {
    const path = (error.path ?? "").replace(/^\/+|\/+$/g, "");
    const existing = byPath.get(path);
    if (existing !== undefined) {
      existing.failure ??= error;
      continue;
    }
    const cut = path.lastIndexOf("/");
    const parent = byPath.get(cut < 0 ? "" : path.slice(0, cut)) ?? root;
    const node: TreeNode = { path, name: path.slice(cut + 1) || path, kind: "failed", zom: null, failure: error, children: [] };
    parent.children.push(node);
    byPath.set(path, node);
  }
  for (const path of unlisted) {
    const node = byPath.get(path);
    if (node !== undefined) {
      node.failure ??= { code: "Unlisted", message: "the members of this group could not be listed (the server offers no S3 or HTML listing, and there is no consolidated metadata)", path, key: null };
    }
  }
  for (const node of byPath.values()) node.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { url, zom, root, byPath, problems, errors, unlisted, consolidated };
}

/** "256 × 256" */
export function shapeText(shape: unknown): string {
  return Array.isArray(shape) ? (shape.length === 0 ? "scalar" : shape.join(" × ")) : "?";
}

/** The data type of an array node, short: "uint16", "datetime64[s]", "struct{id, temp, ok}", "<f8". */
export function dtypeText(zom: ZomNode): string {
  const dt = zom.zarr_format === 2 ? zom.dtype : zom.data_type;
  if (typeof dt === "string") return dt;
  if (Array.isArray(dt)) return `struct{${dt.map((f) => (Array.isArray(f) ? String(f[0]) : "?")).join(", ")}}`;
  const o = (dt ?? {}) as { name?: unknown; configuration?: { unit?: unknown; fields?: unknown; length_bytes?: unknown } };
  const name = typeof o.name === "string" ? o.name.replace(/^numpy\./, "") : "?";
  const c = o.configuration ?? {};
  if (typeof c.unit === "string") return `${name}[${c.unit}]`;
  if (Array.isArray(c.fields)) return `${name}{${c.fields.map((f) => (Array.isArray(f) ? String(f[0]) : String((f as { name?: unknown }).name))).join(", ")}}`;
  if (typeof c.length_bytes === "number") return `${name}[${c.length_bytes}]`;
  return name;
}

/** The chunk shapes of an array node: inner chunks and shards (v3 sharding), or v2 chunks. */
export function chunking(zom: ZomNode): { chunks: number[] | null; shards: number[] | null } {
  const numbers = (x: unknown): number[] | null => (Array.isArray(x) && x.every((n) => typeof n === "number") ? (x as number[]) : null);
  if (zom.zarr_format === 2) return { chunks: numbers(zom.chunks), shards: null };
  const grid = numbers((zom.chunk_grid as { configuration?: { chunk_shape?: unknown } } | undefined)?.configuration?.chunk_shape);
  const first = Array.isArray(zom.codecs) ? (zom.codecs[0] as { name?: unknown; configuration?: { chunk_shape?: unknown } } | undefined) : undefined;
  if (first?.name === "sharding_indexed") return { chunks: numbers(first.configuration?.chunk_shape), shards: grid };
  return { chunks: grid, shards: null };
}

/** The codec pipeline of an array node as text: "sharding_indexed(bytes → zstd)". */
export function codecText(zom: ZomNode): string {
  const name = (c: unknown): string => {
    if (typeof c === "string") return c;
    const o = (c ?? {}) as { name?: unknown; id?: unknown; configuration?: { codecs?: unknown } };
    const n = String(o.name ?? o.id ?? "?");
    const inner = o.configuration?.codecs;
    return Array.isArray(inner) ? `${n}(${inner.map(name).join(" → ")})` : n;
  };
  if (zom.zarr_format === 2) {
    const list = [...(Array.isArray(zom.filters) ? zom.filters : []), ...(zom.compressor ? [zom.compressor] : [])];
    return list.length ? list.map(name).join(" → ") : "none";
  }
  return Array.isArray(zom.codecs) ? zom.codecs.map(name).join(" → ") : "?";
}
