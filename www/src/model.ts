/**
 * The hierarchy as the page shows it: tree nodes made from the walk's node paths, then zom's
 * summaries of the nodes (the page never holds the whole ZOM: the worker keeps it and answers
 * for one node at a time), with the nodes the walk could not read placed under their parents,
 * and the validation problems per node, counted once per hierarchy.
 * @module
 */
import type { NodeSummary } from "zom/manual";
import type { Claim, Failure, Problem } from "./protocol.js";

/** A ZOM node as plain JSON (BigInts possible). */
export type ZomNode = { [key: string]: unknown };

/** A node of the tree: a group, an array, a node that failed to load, or (until its summary comes) a node. */
export interface TreeNode {
  /** Node path, "" for the root. */
  path: string;
  name: string;
  /** "node" until zom's summary of the node has come. */
  kind: "group" | "array" | "failed" | "node";
  /** zom's summary of the node (kind, format, data type, chunks, shards, codecs); null for failed nodes, and until it has come. */
  summary: NodeSummary | null;
  /** The failure of a failed node, or of listing this group. */
  failure: Failure | null;
  /** Sorted by name. */
  children: TreeNode[];
  parent: TreeNode | null;
  /** 0 for the root. */
  depth: number;
  /** Its place among its parent's children, from 0. */
  position: number;
  /** A number of its own in the hierarchy (the tree's row ids). */
  index: number;
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
  root: TreeNode;
  byPath: Map<string, TreeNode>;
  /** The nodes with a failure (failed nodes, groups that could not be listed). */
  failed: TreeNode[];
  /** Null until the worker has validated the hierarchy (the tree shows before). */
  problems: Problem[] | null;
  /** Problems at each node path. */
  problemsAt: Map<string, number>;
  /** Problems strictly below each group path. */
  problemsBelow: Map<string, number>;
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

/** The parent path of a node path ("" for a member of the root; null for the root). */
export const parentPath = (path: string): string | null => (path === "" ? null : path.slice(0, Math.max(0, path.lastIndexOf("/"))));

/** What the worker sends for the tree as soon as the walk ends: the paths of the nodes read, and the walk's failures. */
export interface WalkedTree {
  url: string;
  paths: string[];
  errors: Failure[];
  unlisted: string[];
  consolidated: boolean;
}

/** What validation adds: the problems, and the conventions claimed. */
export interface Validated {
  problems: Problem[];
  claims: Claim[];
  specTitles: { [spec: string]: string };
}

const byName = (a: TreeNode, b: TreeNode): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The tree of a walk's results, without summaries and problems yet (see {@link addSummaries}, {@link addValidation}). */
export function hierarchy(walked: WalkedTree): Hierarchy {
  const { url, paths, errors, unlisted, consolidated } = walked;
  const byPath = new Map<string, TreeNode>();
  let count = 0;
  const make = (path: string, failure: Failure | null): TreeNode => {
    const name = path === "" ? "/" : path.slice(path.lastIndexOf("/") + 1);
    const node: TreeNode = {
      path,
      name,
      kind: failure === null ? "node" : "failed",
      summary: null,
      failure,
      children: [],
      parent: null,
      depth: 0,
      position: 0,
      index: count++,
    };
    byPath.set(path, node);
    return node;
  };
  for (const path of paths) make(path, null);
  const root = byPath.get("") ?? make("", null);
  // Parents first: a node whose parent was not read hangs under its nearest read ancestor.
  const attach = (node: TreeNode): void => {
    let up = parentPath(node.path);
    let parent: TreeNode | undefined;
    while (up !== null) {
      parent = byPath.get(up);
      if (parent !== undefined) break;
      up = parentPath(up);
    }
    node.parent = parent ?? root;
    node.parent.children.push(node);
  };
  for (const node of byPath.values()) if (node !== root) attach(node);
  for (const error of errors) {
    const path = (error.path ?? "").replace(/^\/+|\/+$/g, "");
    const existing = byPath.get(path);
    if (existing !== undefined) {
      existing.failure ??= error;
      continue;
    }
    attach(make(path, error));
  }
  for (const path of unlisted) {
    const node = byPath.get(path);
    if (node !== undefined) {
      node.failure ??= {
        code: "Unlisted",
        message:
          "the members of this group could not be listed (the server offers no S3 or HTML listing, and there is no consolidated metadata)",
        path,
        key: null,
      };
    }
  }
  // Depths, sorted children and their places, from the root down (no recursion: deep trees are fine).
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    node.children.sort(byName);
    node.children.forEach((c, i) => {
      c.depth = node.depth + 1;
      c.position = i;
      stack.push(c);
    });
  }
  const failed = [...byPath.values()].filter((n) => n.failure !== null);
  return {
    url,
    root,
    byPath,
    failed,
    problems: null,
    problemsAt: new Map(),
    problemsBelow: new Map(),
    conventions: [],
    errors,
    unlisted,
    consolidated,
  };
}

/** Adds zom's summaries of the nodes (by path) to `hier`: each node's kind, format, shape, data type, codecs. */
export function addSummaries(hier: Hierarchy, summaries: { [path: string]: NodeSummary }): void {
  for (const [path, summary] of Object.entries(summaries)) {
    const node = hier.byPath.get(path);
    if (node === undefined || node.kind === "failed") continue;
    node.summary = summary;
    node.kind = summary.kind;
  }
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

/**
 * Adds the worker's validation to `hier`: its problems, counted per node and below each group
 * in one pass (each problem counts at its node and at every ancestor of it), and the
 * conventions.
 */
export function addValidation(hier: Hierarchy, validated: Validated): void {
  const at = new Map<string, number>();
  const below = new Map<string, number>();
  for (const p of validated.problems) {
    at.set(p.path, (at.get(p.path) ?? 0) + 1);
    for (let up = parentPath(p.path); up !== null; up = parentPath(up)) below.set(up, (below.get(up) ?? 0) + 1);
  }
  hier.problems = validated.problems;
  hier.problemsAt = at;
  hier.problemsBelow = below;
  hier.conventions = conventionsOf(validated.claims, validated.specTitles, validated.problems);
}

/** "256 × 256" */
export function shapeText(shape: unknown): string {
  return Array.isArray(shape) ? (shape.length === 0 ? "scalar" : shape.join(" × ")) : "?";
}
