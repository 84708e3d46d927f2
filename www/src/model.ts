/**
 * The hierarchy as the page shows it: tree nodes made from the walked ZOM, with the nodes the
 * walk could not read placed under their parents, and the validation problems per node.
 * @module
 */
import type { NodeSummary } from "zom/manual";
import type { Claim, Failure, Problem } from "./protocol.js";

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
  /** zom's summary of the node (kind, data type, chunks, shards, codecs); null for failed nodes. */
  summary: NodeSummary | null;
  /** The failure of a failed node, or of listing this group. */
  failure: Failure | null;
  children: TreeNode[];
}

/** One convention spec the hierarchy claims, with how it fared. */
export interface Convention {
  /** The spec's name, e.g. `ome-zarr-0.5`. */
  spec: string;
  /** Its title, e.g. "OME-Zarr 0.5". */
  title: string;
  /** The nodes that claim it, and as what. */
  claims: Claim[];
  /** Problems the spec found, by severity. */
  errors: number;
  warnings: number;
}

/** The whole walked hierarchy. */
export interface Hierarchy {
  url: string;
  zom: ZomNode;
  root: TreeNode;
  byPath: Map<string, TreeNode>;
  problems: Problem[];
  /** The conventions its nodes claim, in the order first claimed. */
  conventions: Convention[];
  errors: Failure[];
  unlisted: string[];
  consolidated: boolean;
}

/** Joins a parent path and a member name. */
export const child = (parent: string, name: string): string => (parent === "" ? name : `${parent}/${name}`);

/** True when `path` is `root` or lies below it. */
export const within = (path: string, root: string): boolean => root === "" || path === root || path.startsWith(`${root}/`);

function build(zom: ZomNode, path: string, name: string, summaries: { [path: string]: NodeSummary }, byPath: Map<string, TreeNode>): TreeNode {
  const summary = summaries[path] ?? null;
  const node: TreeNode = { path, name, kind: summary?.kind ?? "failed", zom, summary, failure: null, children: [] };
  byPath.set(path, node);
  const members = zom.members;
  if (members !== null && typeof members === "object" && node.kind === "group") {
    for (const [m, sub] of Object.entries(members as object)) {
      node.children.push(build(sub as ZomNode, child(path, m), m, summaries, byPath));
    }
  }
  return node;
}

/** What the walk in the worker found: the ZOM, summaries, problems, claims and failures. */
export interface Walked {
  url: string;
  zom: ZomNode;
  summaries: { [path: string]: NodeSummary };
  problems: Problem[];
  claims: Claim[];
  specTitles: { [spec: string]: string };
  errors: Failure[];
  unlisted: string[];
  consolidated: boolean;
}

/** Groups claims by spec and counts each spec's problems. */
function conventionsOf(claims: Claim[], titles: { [spec: string]: string }, problems: Problem[]): Convention[] {
  const bySpec = new Map<string, Convention>();
  for (const claim of claims) {
    let c = bySpec.get(claim.spec);
    if (c === undefined) {
      c = { spec: claim.spec, title: titles[claim.spec] ?? claim.spec, claims: [], errors: 0, warnings: 0 };
      bySpec.set(claim.spec, c);
    }
    c.claims.push(claim);
  }
  for (const p of problems) {
    const c = p.spec === undefined ? undefined : bySpec.get(p.spec);
    if (c === undefined) continue;
    if (p.severity === "error") c.errors++;
    else c.warnings++;
  }
  return [...bySpec.values()];
}

/** The tree of a walk's results. */
export function hierarchy(walked: Walked): Hierarchy {
  const { url, zom, summaries, problems, errors, unlisted, consolidated } = walked;
  const byPath = new Map<string, TreeNode>();
  const root = build(zom, "", "/", summaries, byPath);
  for (const error of errors) {
    const path = (error.path ?? "").replace(/^\/+|\/+$/g, "");
    const existing = byPath.get(path);
    if (existing !== undefined) {
      existing.failure ??= error;
      continue;
    }
    const cut = path.lastIndexOf("/");
    const parent = byPath.get(cut < 0 ? "" : path.slice(0, cut)) ?? root;
    const node: TreeNode = { path, name: path.slice(cut + 1) || path, kind: "failed", zom: null, summary: null, failure: error, children: [] };
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
  const conventions = conventionsOf(walked.claims, walked.specTitles, problems);
  return { url, zom, root, byPath, problems, conventions, errors, unlisted, consolidated };
}

/** "256 × 256" */
export function shapeText(shape: unknown): string {
  return Array.isArray(shape) ? (shape.length === 0 ? "scalar" : shape.join(" × ")) : "?";
}
