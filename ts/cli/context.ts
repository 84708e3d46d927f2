import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { IcechunkRef, Readable, StoreInput } from "../node.js";
import { icechunkAt, isReferenceName, isZipName, ReferenceStore, storeFromUrl, ZipStore, ZomError } from "../node.js";
import type { SpecInput } from "../shared/types.js";
import { showBytes } from "../shared/units.js";
import { FsStore, openZip, referenceStoreFromFile } from "../store/fs.js";
import type { WalkResult } from "../validate.js";
import { stringify, walk } from "../validate.js";
import { countNodes, plural, showError, showPath } from "./format.js";
import type { ProgressSink } from "./progress.js";
import { Progress } from "./progress.js";

/** A command line the CLI cannot run (exit code 2); `help` is shown after the message. */
export class UsageError extends Error {
  /** The usage text to show after the message, if any. */
  readonly help: string | undefined;

  constructor(message: string, help?: string) {
    super(message);
    this.name = "UsageError";
    this.help = help;
  }
}

/** What a command gets: its positional arguments, its options and where to write. */
export interface Context {
  args: string[];
  options: Map<string, string | true>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** Whether to show progress on stderr. */
  progress: boolean;
  /**
   * Where progress lines go: stderr as it is, since on a terminal they redraw their line with
   * control codes of their own (`stdout` and `stderr` above may escape controls).
   */
  progressTo: ProgressSink;
}

/** One command: its name, how many positional arguments it takes, its options and help. */
export interface Command {
  name: string;
  arity: [number, number];
  options: string[];
  help: string;
  run(ctx: Context): Promise<number>;
}

/** A store for TARGET, and what the progress lines need to know about it. */
export interface Target {
  store: StoreInput;
  /** What counts the HTTP requests (a FetchStore, or the store over one). */
  fetch: { stats: { requests: number; bytes: number } } | null;
  fs: FsStore | null;
}

export function positiveInt(ctx: Context, name: string): number | undefined {
  const v = ctx.options.get(name);
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} needs a non-negative integer, got '${String(v)}'`);
  }
  return Number(v);
}

/** --concurrency (at least 1), if given. */
export function concurrencyOf(ctx: Context): { concurrency?: number } {
  const n = positiveInt(ctx, "concurrency");
  return n === undefined ? {} : { concurrency: Math.max(1, n) };
}

/**
 * TARGET's store: an http(s) URL through FetchStore, a directory or file: URL through FsStore,
 * a .zip or .ozx (URL or path) through ZipStore, kerchunk references (a .json URL or path)
 * through ReferenceStore.
 */
async function plainTarget(ctx: Context, text: string): Promise<Target> {
  if (/^https?:\/\//i.test(text)) {
    const store = await storeFromUrl(text, concurrencyOf(ctx));
    return { store, fetch: store, fs: null };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !/^file:/i.test(text)) {
    throw new UsageError(`'${text}': only directories, file: URLs and http(s) URLs can be read`);
  }
  const dir = /^file:/i.test(text) ? fileURLToPath(text) : text;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(dir);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ENOENT") throw e;
    throw new ZomError("NotFound", `no directory ${resolve(dir)}`);
  }
  if (info.isFile() && isZipName(dir)) return { store: await openZip(dir), fetch: null, fs: null };
  if (info.isFile() && isReferenceName(dir)) {
    const refs = await referenceStoreFromFile(dir);
    return { store: refs, fetch: refs, fs: null };
  }
  if (!info.isDirectory()) {
    throw new ZomError("NotFound", `${resolve(dir)} is not a directory (give the hierarchy's root directory, a .zip or an .ozx)`);
  }
  const fs = new FsStore(dir);
  return { store: fs, fetch: null, fs };
}

/** `--ref`: `main` or `branch:main`, `tag:v1`, `snapshot:ID`. */
function refOf(text: string): IcechunkRef {
  const colon = text.indexOf(":");
  const [kind, name] = colon < 0 ? ["branch", text] : [text.slice(0, colon), text.slice(colon + 1)];
  if (name === "" || !["branch", "tag", "snapshot"].includes(kind)) {
    throw new UsageError(`--ref takes a branch (main, branch:dev), a tag (tag:v1) or a snapshot id (snapshot:ID), not '${text}'`);
  }
  return { [kind]: name } as IcechunkRef;
}

/**
 * Opens TARGET (see {@link plainTarget}); an Icechunk repository at the snapshot `--ref` names
 * when `--ref` is given, or when the root has no zarr.json and the Icechunk part reads a
 * repository there (the tip of main).
 */
export async function target(ctx: Context, text: string): Promise<Target> {
  const plain = await plainTarget(ctx, text);
  const ref = ctx.options.get("ref");
  if (ref === true) throw new UsageError("--ref needs a value");
  const isStore = typeof plain.store === "object" && plain.store !== null && "get" in plain.store;
  if (!isStore || plain.store instanceof ZipStore || plain.store instanceof ReferenceStore) {
    if (ref !== undefined) throw new UsageError("--ref reads an Icechunk repository: a directory or an http(s) URL");
    return plain;
  }
  const icechunk = await icechunkAt(plain.store as Readable, ref === undefined ? undefined : refOf(ref));
  return icechunk === null ? plain : { store: icechunk, fetch: plain.fetch, fs: null };
}

/** Requests and bytes so far, for an HTTP target. */
export function traffic(t: Target): string {
  return t.fetch ? `, ${plural(t.fetch.stats.requests, "request")}, ${showBytes(t.fetch.stats.bytes)}` : "";
}

export const json = (ctx: Context, value: unknown): void => {
  ctx.stdout.write(`${stringify(value, 2)}\n`);
};

/** Walks TARGET with progress lines; warns on stderr about nodes it could not read or list. */
export async function walkTarget(ctx: Context, t: Target, depth?: number, follow?: SpecInput[]): Promise<WalkResult> {
  const progress = new Progress(ctx.progressTo, ctx.progress);
  let tree: WalkResult;
  try {
    tree = await walk(t.store, {
      ...(depth === undefined ? {} : { depth }),
      ...(follow === undefined ? {} : { follow }),
      ...concurrencyOf(ctx),
      onProgress: (p) =>
        progress.update(() => `walking: ${plural(p.nodes, "node")}, ${p.pending} pending, ${plural(p.errors, "error")}${traffic(t)}`),
    });
  } catch (e) {
    progress.clear();
    throw e;
  }
  progress.done(
    `walked ${plural(countNodes(tree), "node")}${tree.errors.length ? ` (${tree.errors.length} unreadable)` : ""}${traffic(t)}`,
  );
  return tree;
}

/** Lists on stderr the nodes a walk could not read and the groups it could not list. */
export function warnUnread(ctx: Context, tree: WalkResult): void {
  for (const e of tree.errors) ctx.stderr.write(`zom: unreadable node: ${showError(e)}\n`);
  for (const p of tree.unlisted) {
    ctx.stderr.write(
      `zom: note: the members of ${showPath(p)} could not be listed (no consolidated metadata, and the store offers no listing)\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

export function rootUnreadable(ctx: Context, e: ZomError): number {
  const unreadable = [{ code: e.code, message: e.message, path: e.path, key: e.key }];
  if (ctx.options.has("json")) {
    json(ctx, {
      valid: false,
      nodes: 0,
      errors: 0,
      warnings: 0,
      conventions: null,
      problems: [],
      unreadable,
      unlisted: [],
      differences: null,
    });
  } else {
    ctx.stdout.write(`unreadable ${showError(e)}\nINVALID: the root could not be read, 1 unreadable\n`);
  }
  return 0;
}
