/**
 * The `zom` commands: tree, validate, get, info and schema. Each reads a hierarchy through
 * the package's public API (FetchStore for http(s) URLs, FsStore for directories, ZipStore for
 * .zip and .ozx files, ReferenceStore for kerchunk reference JSON) and writes
 * text or, with `--json`, JSON.
 * @module
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { METADATA_DOCUMENTS } from "../generated/boundary.js";
import type { IcechunkRef, Readable, StoreInput, ZarrArray } from "../node.js";
import {
  ChunkDecoder,
  icechunkAt,
  isReferenceName,
  isZipName,
  isZomError,
  open,
  openArray,
  ReferenceStore,
  storeFromUrl,
  ZipStore,
  ZomError,
} from "../node.js";
import type { CompareOptions, DetectedConvention, Difference, HierarchySpec, JsonValue, SpecInput, Zom } from "../shared/types.js";
import { showBytes } from "../shared/units.js";
import { loadViews } from "../shared/views.js";
import { FsStore, openZip, referenceStoreFromFile } from "../store/fs.js";
import type { WalkResult } from "../validate.js";
import {
  detectConventions,
  diff,
  jsonSchema,
  parseJson,
  stringify,
  summarize,
  validateAttributes,
  validateHierarchy,
  walk,
} from "../validate.js";
import { specNames } from "../validator/api.js";
import {
  countNodes,
  describe,
  escapeControls,
  membersOf,
  plural,
  showClaim,
  showDifference,
  showError,
  showPath,
  showProblem,
  summariseClaims,
  textValues,
  treeLines,
  valuesOf,
} from "./format.js";
import type { ProgressSink } from "./progress.js";
import { Progress } from "./progress.js";
import { parseSelection, SelectionSyntaxError, toSelection } from "./selection.js";

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
interface Target {
  store: StoreInput;
  /** What counts the HTTP requests (a FetchStore, or the store over one). */
  fetch: { stats: { requests: number; bytes: number } } | null;
  fs: FsStore | null;
}

function positiveInt(ctx: Context, name: string): number | undefined {
  const v = ctx.options.get(name);
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} needs a non-negative integer, got '${String(v)}'`);
  }
  return Number(v);
}

/** --concurrency (at least 1), if given. */
function concurrencyOf(ctx: Context): { concurrency?: number } {
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
async function target(ctx: Context, text: string): Promise<Target> {
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
function traffic(t: Target): string {
  return t.fetch ? `, ${plural(t.fetch.stats.requests, "request")}, ${showBytes(t.fetch.stats.bytes)}` : "";
}

const json = (ctx: Context, value: unknown): void => {
  ctx.stdout.write(`${stringify(value, 2)}\n`);
};

/** Walks TARGET with progress lines; warns on stderr about nodes it could not read or list. */
async function walkTarget(ctx: Context, t: Target, depth?: number, follow?: SpecInput[]): Promise<WalkResult> {
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
function warnUnread(ctx: Context, tree: WalkResult): void {
  for (const e of tree.errors) ctx.stderr.write(`zom: unreadable node: ${showError(e)}\n`);
  for (const p of tree.unlisted) {
    ctx.stderr.write(
      `zom: note: the members of ${showPath(p)} could not be listed (no consolidated metadata, and the store offers no listing)\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

const tree: Command = {
  name: "tree",
  arity: [1, 1],
  options: ["json", "depth", "progress", "no-progress", "concurrency", "ref"],
  help: `Usage: zom tree TARGET [--json] [--depth N] [--progress]

Walks the hierarchy (consolidated metadata when present, else the store's listing) and prints
one line per node: kind, format, and for arrays shape, data type, chunks and codecs. --json
prints the ZOM instead (pydantic-zarr's JSON; usable as 'zom validate --spec'). --depth N stops
N levels below the root. Nodes that cannot be read are listed on stderr; the exit code is then 1.
`,
  async run(ctx) {
    const t = await target(ctx, ctx.args[0] ?? "");
    const result = await walkTarget(ctx, t, positiveInt(ctx, "depth"));
    if (ctx.options.has("json")) json(ctx, result);
    else ctx.stdout.write(`${treeLines(result).join("\n")}\n`);
    warnUnread(ctx, result);
    return result.errors.length ? 1 : 0;
  },
};

/**
 * What --spec names: a built-in convention (or "auto"), a hierarchy spec file (JSON with
 * `zom_spec`), or an expected ZOM file (anything else), told apart by content.
 */
type SpecOption = { kind: "specs"; specs: SpecInput } | { kind: "expected"; expected: Zom };

async function readSpecOption(file: string): Promise<SpecOption> {
  // The names the core takes ("auto", the built-ins) win over files of the same name.
  if (specNames().includes(file)) return { kind: "specs", specs: file };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new ZomError("NotFound", `cannot read the spec file ${file}: ${e instanceof Error ? e.message : String(e)}`, { key: file });
  }
  const value = parseJson(text);
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "zom_spec" in value) {
    return { kind: "specs", specs: value as unknown as HierarchySpec };
  }
  return { kind: "expected", expected: value as unknown as Zom };
}

/** diff's field selectors from --include / --exclude (comma-separated). */
function compareOptions(ctx: Context): CompareOptions {
  const fields = (name: string): string[] | undefined => {
    const v = ctx.options.get(name);
    if (v === undefined) return undefined;
    if (!ctx.options.has("spec")) throw new UsageError(`--${name} only applies with --spec`);
    return String(v)
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f !== "");
  };
  const include = fields("include");
  const exclude = fields("exclude");
  return { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) };
}

const validate: Command = {
  name: "validate",
  arity: [1, 1],
  options: [
    "json",
    "spec",
    "include",
    "exclude",
    "strict",
    "verdict",
    "verbose",
    "attributes",
    "progress",
    "no-progress",
    "concurrency",
    "ref",
  ],
  help: `Usage: zom validate TARGET [--spec ome-zarr|xarray|auto|FILE [--include F,…] [--exclude F,…]]
                           [--strict] [--json] [--verdict] [--verbose]
       zom validate --attributes FILE [--spec NAME|FILE] [--strict] [--json] [--verdict]

Walks the hierarchy and checks every node against the Zarr spec, listing every problem with its
node path and location. Members are found from consolidated metadata, from what the metadata
names (an OME-Zarr image's datasets and labels, a plate's wells, a well's fields, the series of a
bioformats2raw collection; a spec FILE's members and references too), and from the host's
listing where it has one: a plain HTTP host that only answers the paths asked for is enough. --strict also reports, as warnings, what the spec says SHOULD NOT be
there (and what a convention's spec marks as recommended).

--spec also checks the hierarchy against a convention: ome-zarr (OME-Zarr 0.4, 0.5 and 0.6rc0
images, labels, plates, wells and 0.6 scenes, each node by the version it claims; or one version:
ome-zarr-0.4, ome-zarr-0.5, ome-zarr-0.6), xarray (xarray's Zarr encoding), or auto (every
built-in convention the hierarchy claims). A named convention must be claimed by
some node; the conventions: line counts each spec's claims by kind (--verbose lists every
node that claims one). --spec FILE reads a hierarchy spec of your own (JSON with "zom_spec": 1), or else an
expected ZOM (JSON, e.g. from 'zom tree --json'), told apart by content: the hierarchy is
compared with it and every difference listed; --include and --exclude take comma-separated
field selectors (attributes, codecs.*.configuration, members.a) to compare only some fields, or
to ignore some.

Exit code 1 when anything is wrong: a problem of severity error (the Zarr spec's or a
convention's), a node that could not be read, a difference from the expected ZOM; with --strict
also a warning or a group whose members could not be listed. Otherwise 0. --verdict: exit 0
whenever a verdict was reached, valid or not (read it from the output, e.g. --json's "valid"),
for harnesses that run a command per case; exit 2 still means it could not run (a bad option
or spec file, a target that cannot be opened); a root whose metadata is not valid metadata
(broken JSON) is then a verdict, invalid. --json prints
{valid, nodes, errors, warnings, conventions, problems, unreadable, unlisted, differences}.

--attributes FILE checks a group's attributes alone (a JSON file, such as a test case or what
a zarr.json holds under "attributes") against the conventions of --spec (default auto): what
the attributes decide — their schemas and the rules over their lists — without the nodes they
name, which are not there. The group is read as Zarr 3 when its attributes have an "ome"
object, else as Zarr 2.
`,
  async run(ctx) {
    const specFile = ctx.options.get("spec");
    // The spec is read first: a bad spec file fails before a long walk.
    const spec = typeof specFile === "string" ? await readSpecOption(specFile) : null;
    if (ctx.options.has("attributes")) return validateAttributesFile(ctx, ctx.args[0] ?? "", spec);
    const selectors = compareOptions(ctx);
    if (spec?.kind === "specs" && (ctx.options.has("include") || ctx.options.has("exclude"))) {
      throw new UsageError("--include and --exclude apply when --spec is an expected ZOM, not a convention");
    }
    const t = await target(ctx, ctx.args[0] ?? "");
    const verdict = ctx.options.has("verdict");
    let result: WalkResult;
    try {
      // A spec of the user's names members too: the walk follows it beside the built-in ones.
      const follow = spec?.kind === "specs" && typeof spec.specs === "object" ? ["auto", spec.specs] : undefined;
      result = await walkTarget(ctx, t, undefined, follow);
    } catch (e) {
      // A root whose metadata is not metadata (broken JSON, no zarr_format): with --verdict that
      // is a verdict, invalid, rather than a failure to run.
      if (!verdict || !isZomError(e) || e.code !== "InvalidMetadata") throw e;
      return rootUnreadable(ctx, e);
    }
    const strict = ctx.options.has("strict");
    const specs = spec?.kind === "specs" ? spec.specs : undefined;
    const report = validateHierarchy(result, { strict, ...(specs === undefined ? {} : { specs }) });
    const claims: DetectedConvention[] | null = specs === undefined ? null : detectConventions(result, specs);
    // What the conventions' pictures depend on: the views part's checks.
    if (claims !== null && claims.length > 0) report.problems.push(...(await loadViews()).check(result, claims, report.problems));
    const differences: Difference[] | null = spec?.kind === "expected" ? diff(spec.expected, result, selectors) : null;
    const errors = report.problems.filter((p) => p.severity === "error").length;
    const warnings = report.problems.length - errors;
    const failed =
      errors > 0 || result.errors.length > 0 || (differences?.length ?? 0) > 0 || (strict && (warnings > 0 || result.unlisted.length > 0));
    const nodes = countNodes(result);
    // --verdict: the exit code says only whether a verdict was reached.
    const exit = failed && !verdict ? 1 : 0;
    if (ctx.options.has("json")) {
      json(ctx, {
        valid: !failed,
        nodes,
        errors,
        warnings,
        conventions: claims,
        problems: report.problems,
        unreadable: result.errors.map((e) => ({ code: e.code, message: e.message, path: e.path, key: e.key })),
        unlisted: result.unlisted,
        differences,
      });
      return exit;
    }
    const out: string[] = [];
    if (claims !== null) {
      out.push(claims.length === 0 ? "conventions: none claimed" : `conventions: ${summariseClaims(claims)}`);
      if (ctx.options.has("verbose")) for (const c of claims) out.push(`claim ${showClaim(c)}`);
    }
    for (const p of report.problems) out.push(showProblem(p));
    for (const e of result.errors) out.push(`unreadable ${showError(e)}`);
    for (const p of result.unlisted) out.push(`${strict ? "warning" : "note"} unlisted at ${showPath(p)}: the members could not be listed`);
    if (differences !== null) {
      for (const d of differences) out.push(`difference ${showDifference(d)}`);
    }
    const summary = [
      plural(errors, "error"),
      plural(warnings, "warning"),
      `${result.errors.length} unreadable`,
      ...(differences === null ? [] : [`${plural(differences.length, "difference")} from ${escapeControls(String(specFile))}`]),
    ];
    out.push(`${failed ? "INVALID" : "valid"}: ${plural(nodes, "node")} checked, ${summary.join(", ")}`);
    ctx.stdout.write(`${out.join("\n")}\n`);
    return exit;
  },
};

/** `zom validate --verdict` on a root whose metadata cannot be read as metadata: invalid. */
/** `validate --attributes FILE`: a group's attributes checked alone against conventions. */
async function validateAttributesFile(ctx: Context, file: string, spec: SpecOption | null): Promise<number> {
  if (spec?.kind === "expected") throw new UsageError("--attributes takes a convention or a spec file as --spec, not an expected ZOM");
  if (ctx.options.has("include") || ctx.options.has("exclude"))
    throw new UsageError("--include and --exclude do not apply with --attributes");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new ZomError("NotFound", `cannot read the attributes file ${file}: ${e instanceof Error ? e.message : String(e)}`, { key: file });
  }
  const strict = ctx.options.has("strict");
  const report = validateAttributes(text, { strict, specs: spec?.kind === "specs" ? spec.specs : "auto" });
  const errors = report.problems.filter((p) => p.severity === "error").length;
  const warnings = report.problems.length - errors;
  const failed = errors > 0 || (strict && warnings > 0);
  const code = failed && !ctx.options.has("verdict") ? 1 : 0;
  if (ctx.options.has("json")) {
    json(ctx, {
      valid: !failed,
      nodes: 1,
      errors,
      warnings,
      conventions: null,
      problems: report.problems,
      unreadable: [],
      unlisted: [],
      differences: null,
    });
    return code;
  }
  const out = report.problems.map(showProblem);
  out.push(
    `${failed ? "INVALID" : "valid"}: the attributes of ${escapeControls(file)}, ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
  );
  ctx.stdout.write(`${out.join("\n")}\n`);
  return code;
}

function rootUnreadable(ctx: Context, e: ZomError): number {
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

const get: Command = {
  name: "get",
  arity: [2, 3],
  options: ["json", "progress", "no-progress", "concurrency", "ref"],
  help: `Usage: zom get TARGET PATH [SELECTION] [--json] [--progress]

Reads the array at PATH, or the part SELECTION names, written like NumPy's indexing: entries
separated by commas, each an index (3, -1), a slice start:stop:step with parts left out
(0:10, ::2, -5:, :), or ... for all remaining dimensions; missing trailing entries select
whole dimensions. Only the chunks the selection touches are read.

Prints the values as NumPy does (summarised beyond 1000 elements). --json prints
{path, dtype, shape, values}: every value, flat in C order, NaN and infinities as strings,
complex numbers as [re, im], byte strings as base64, datetimes as integer counts of their unit.
`,
  async run(ctx) {
    const [where = "", path = "", selectionText = ""] = ctx.args;
    let parsed: ReturnType<typeof parseSelection>;
    try {
      parsed = parseSelection(selectionText);
    } catch (e) {
      if (e instanceof SelectionSyntaxError) throw new UsageError(e.message);
      throw e;
    }
    const t = await target(ctx, where);
    const arr: ZarrArray = await openArray(t.store, path);
    if (arr.readError) throw arr.readError;
    const progress = new Progress(ctx.progressTo, ctx.progress);
    let result: Awaited<ReturnType<ZarrArray["get"]>>;
    try {
      result = await arr.get(toSelection(parsed, arr.shape.length), {
        ...concurrencyOf(ctx),
        onProgress: (p) => progress.update(() => `reading: ${p.done}/${plural(p.total, "chunk")}${traffic(t)}`),
      });
    } catch (e) {
      progress.clear();
      throw e;
    }
    progress.done(`read shape [${result.shape.join(", ")}]${traffic(t)}`);
    const values = valuesOf(result.data, arr.dtype);
    if (ctx.options.has("json")) {
      // One line, the values written directly: they may be millions.
      const head = stringify({ path: arr.path, dtype: arr.dtype, shape: result.shape });
      ctx.stdout.write(`${head.slice(0, -1)},"values":${values.json()}}\n`);
    } else {
      ctx.stdout.write(`${textValues(values, result.shape, arr.dtype)}\n`);
    }
    return 0;
  },
};

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

const info: Command = {
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

const schema: Command = {
  name: "schema",
  arity: [1, 1],
  options: [],
  help: `Usage: zom schema 2|3

Prints the JSON Schema (draft 2020-12) of a Zarr v2 or v3 ZOM.
`,
  async run(ctx) {
    const v = ctx.args[0];
    if (v !== "2" && v !== "3") throw new UsageError(`zom schema takes 2 or 3, got '${String(v)}'`);
    json(ctx, jsonSchema(v === "2" ? 2 : 3));
    return 0;
  },
};

/** Every command, in the order the help lists them. */
export const COMMANDS: Command[] = [tree, validate, get, info, schema];
