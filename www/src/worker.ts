/**
 * The explorer's worker: loads zom (the reader's WebAssembly comes from beside this file; the
 * validator's, which walks and validates, is carried by "zom/validate"), walks the
 * hierarchy, validates it, opens and reads arrays, compares with a spec. The page never runs
 * zom itself, so decoding and walking never block drawing. The walked ZOM stays here: the page
 * gets the node paths, then zom's summaries of the nodes, then the validation, and asks for
 * one node's ZOM (or a subtree's JSON text) when it shows that node.
 * @module
 */

import type { DirectoryHandle, IcechunkStore, Selection, StoreInput, ZarrArray, Zom } from "zom/manual";
import {
  ChunkCache,
  DirectoryHandleStore,
  FetchStore,
  FileStore,
  icechunkAt,
  init,
  loadViews,
  open,
  slice,
  storeFromUrl,
  version,
  workerStats,
  ZipStore,
} from "zom/manual";
import { builtinSpec, detectConventions, diff, parseJson, stringify, summarize, validateHierarchy, walk } from "zom/validate";
import { colourise } from "./colour.js";
import { jsonText } from "./json.js";
import type { ArrayInfo, Failure, IcechunkInfo, IcechunkRef, ImageResult, Request, Response, Source, TableResult } from "./protocol.js";
import { formatValue, isComplex, isTemporal, nameOf } from "./values.js";
import type { Shown } from "./worker-views.js";
import { describe, forget, picture, plane } from "./worker-views.js";

/** The worker's global scope, typed without the WebWorker lib (it clashes with DOM's). */
const scope = self as unknown as {
  postMessage(message: Response, transfer?: Transferable[]): void;
  addEventListener(type: "message", listener: (event: MessageEvent<Request>) => void): void;
};

/** Most elements a table shows. */
const TABLE_LIMIT = 1000;
/** Most pixels an image preview reads (larger slices are strided). */
const IMAGE_LIMIT = 1024 * 1024;
/** The largest stride of a whole-plane preview. */
const MAX_STRIDE = 4;

/** Any thrown value as a {@link Failure}. */
function failure(e: unknown): Failure {
  const x = (typeof e === "object" && e !== null ? e : {}) as {
    code?: unknown;
    message?: unknown;
    path?: unknown;
    key?: unknown;
    name?: unknown;
  };
  const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
  return {
    code: text(x.code) ?? text(x.name) ?? "Error",
    message: text(x.message) ?? String(e),
    path: text(x.path),
    key: text(x.key),
  };
}

const post = (message: Response, transfer: Transferable[] = []): void => scope.postMessage(message, transfer);

/** A store that counts its HTTP requests (FetchStore, ZipStore, ReferenceStore). */
interface Counted {
  readonly stats: { requests: number; bytes: number };
}

// The hierarchy being shown: its store, the HTTP store under it (for the request counters;
// null for local data), its walked ZOM, and the arrays opened so far.
let store: StoreInput | null = null;
/**
 * Decoded chunks of the hierarchy shown: moving a slider back, or redrawing a plane, places
 * them again without a request or a decode. A new one per hierarchy.
 */
let cache = new ChunkCache({ maxBytes: 256 * 1024 * 1024 });
let http: Counted | null = null;
let current: { url: string; zom: Zom; format: 2 | 3 } | null = null;
let controller: AbortController | null = null;
const arrays = new Map<string, Promise<ZarrArray>>();

let lastStats = "";
function postStats(): void {
  const { requests, bytes } = http?.stats ?? { requests: 0, bytes: 0 };
  const { hits, misses } = cache.stats;
  const decodeWorkers = workerStats().workers;
  const text = `${requests}/${bytes}/${hits}/${misses}/${decodeWorkers}`;
  if (text === lastStats) return;
  lastStats = text;
  post({ id: 0, type: "stats", requests, bytes, cacheHits: hits, cacheMisses: misses, decodeWorkers });
}
setInterval(postStats, 150);

/** The store of a source, the HTTP store under it (null for local data), and its label. */
/**
 * The Icechunk repository at `fetch`'s root at `ref` (default the tip of main), with its refs
 * and history: when `ref` is given, or when the root has no zarr.json and a repository is
 * there; null otherwise.
 */
async function repositoryAt(fetch: FetchStore, ref: IcechunkRef | undefined): Promise<{ store: IcechunkStore; info: IcechunkInfo } | null> {
  const store = await icechunkAt(fetch, ref);
  if (store === null) return null;
  const history = await store.ancestry();
  let refs: { branches: IcechunkInfo["branches"]; tags: IcechunkInfo["tags"] } = { branches: [], tags: [] };
  let refsError: string | null = null;
  try {
    refs = await store.refs();
  } catch (e) {
    refsError = e instanceof Error ? e.message : String(e);
  }
  return { store, info: { snapshot: store.snapshot, specVersion: store.specVersion, ...refs, history, refsError } };
}

async function storeOf(
  source: Source,
  signal: AbortSignal,
): Promise<{ store: StoreInput; http: Counted | null; url: string; icechunk?: IcechunkInfo }> {
  switch (source.kind) {
    case "url": {
      const opened = await storeFromUrl(source.url, { concurrency: 16, signal });
      const repository = opened instanceof FetchStore ? await repositoryAt(opened, source.ref) : null;
      if (repository !== null) return { store: repository.store, http: opened, url: source.url, icechunk: repository.info };
      return { store: opened, http: opened, url: source.url };
    }
    case "zip":
      return { store: await ZipStore.fromBlob(source.file, { signal }), http: null, url: `local:${source.file.name}` };
    case "files": {
      const first = source.files[0]?.webkitRelativePath.split("/")[0] ?? "folder";
      return { store: FileStore.fromFiles(source.files), http: null, url: `local:${first}` };
    }
    case "directory":
      return {
        store: new DirectoryHandleStore(source.handle as unknown as DirectoryHandle),
        http: null,
        url: `local:${source.handle.name}`,
      };
  }
}

/** Now, in ms since the epoch (the page turns it into a mark on its own timeline). */
const now = (): number => performance.timeOrigin + performance.now();
/** When zom's WebAssembly was ready. */
let readyAt = 0;
/** The least time between two progress notices (the last one always goes). */
const PROGRESS_MS = 50;

async function doWalk(id: number, source: Source): Promise<void> {
  controller?.abort();
  const mine = new AbortController();
  controller = mine;
  arrays.clear();
  forget();
  current = null;
  store = null;
  http = null;
  cache = new ChunkCache({ maxBytes: 256 * 1024 * 1024 });
  lastStats = "";
  postStats();
  const timings: { [step: string]: number } = { "wasm-ready": readyAt, "walk-asked": now() };
  const opened = await storeOf(source, mine.signal);
  if (controller !== mine) return;
  ({ store, http } = opened);
  if (opened.icechunk !== undefined) post({ id, type: "icechunk", info: opened.icechunk });
  const url = opened.url;
  postStats();
  // The page asks for the view and the pictures of the node it shows first; the walk waits
  // until the page says they are drawn, so that over HTTP/1.1 (6 connections a host) it does
  // not hold the connections the pictures on screen need.
  post({ id, type: "opened", url });
  await firstPictures(mine.signal);
  if (controller !== mine) return;
  timings["walk-started"] = now();
  // Progress at most every PROGRESS_MS: a listed walk reports every node, and each notice is
  // work for the page.
  let lastProgress = 0;
  // The nodes found since the last notice: the page shows the tree as it arrives.
  const arrived: string[] = [];
  const tree = await walk(store, {
    signal: mine.signal,
    onProgress: (p) => {
      for (const path of p.found) arrived.push(path);
      const t = performance.now();
      if (t - lastProgress < PROGRESS_MS && p.pending > 0) return;
      lastProgress = t;
      post({ id, type: "progress", nodes: p.nodes, pending: p.pending, errors: p.errors, found: arrived.splice(0) });
    },
  });
  if (controller !== mine) return;
  timings["walk-done"] = now();
  current = { url, zom: tree, format: tree.zarr_format === 2 ? 2 : 3 };
  // The tree first (its paths), then what zom says of each node (for 10,000 nodes a quarter
  // of a second), then the validation: the page draws each as it comes.
  post({
    id,
    type: "tree",
    url,
    paths: nodePaths(tree),
    errors: tree.errors.map(failure),
    unlisted: tree.unlisted,
    consolidated: tree.consolidated,
    version: version(),
    timings,
  });
  // Between the steps, requests the page sent meanwhile (the selected node's ZOM) go first.
  const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
  await nextTask();
  if (controller !== mine) return;
  const summaries = JSON.stringify(summarize(tree));
  post({ id, type: "summaries", summaries, timings: { summarized: now() } });
  await nextTask();
  if (controller !== mine) return;
  // The Zarr spec, and every convention a node claims (OME-Zarr, xarray).
  const report = validateHierarchy(tree, { specs: "auto" });
  const claims = detectConventions(tree);
  // And what the conventions' pictures depend on (the views part's checks).
  report.problems.push(...(await loadViews()).check(tree, claims, report.problems));
  const specTitles: { [spec: string]: string } = {};
  for (const c of claims) specTitles[c.spec] ??= titleOf(c.spec);
  post({ id, type: "walked", problems: report.problems, claims, specTitles, timings: { validated: now() } });
}

/** The walk's wait for the page's first view: resolved by its "viewed" notice. */
let viewed: (() => void) | null = null;
/** The longest the walk waits for the first view's pictures. */
const FIRST_PICTURES_MS = 15_000;

/** Resolves when the page says its first view is drawn, after FIRST_PICTURES_MS, or on abort. */
function firstPictures(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      viewed = null;
      resolve();
    };
    const timer = setTimeout(done, FIRST_PICTURES_MS);
    signal.addEventListener("abort", done);
    viewed = done;
  });
}

/** What the views read: the store, the chunk cache and (once walked) the ZOM. */
function shown(): Shown {
  if (store === null) throw new Error("no hierarchy is open");
  return { store, cache, zom: current?.zom ?? null };
}

/** The paths of a ZOM's nodes ("" for the root). */
function nodePaths(zom: Zom): string[] {
  const paths: string[] = [];
  const stack: [unknown, string][] = [[zom, ""]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, path] = next;
    paths.push(path);
    const members = (node as { members?: unknown }).members;
    if (members !== null && typeof members === "object") {
      for (const [name, member] of Object.entries(members)) stack.push([member, path === "" ? name : `${path}/${name}`]);
    }
  }
  return paths;
}

/** The ZOM node at `path` of the hierarchy shown (with its members). */
function nodeAt(path: string): Zom {
  if (current === null) throw new Error("no hierarchy is open");
  let node = current.zom as unknown as { members?: { [name: string]: unknown } };
  if (path !== "") {
    for (const name of path.split("/")) {
      const next = node.members !== undefined && Object.hasOwn(node.members, name) ? node.members[name] : undefined;
      if (next === undefined || next === null || typeof next !== "object") {
        throw { code: "NotFound", message: `no node /${path} in the walked hierarchy`, path, key: null } satisfies Failure;
      }
      node = next as typeof node;
    }
  }
  return node as unknown as Zom;
}

/** Nodes in a ZOM subtree, counting up to `most` (then stops). */
function countNodes(zom: unknown, most: number): number {
  let n = 0;
  const stack = [zom];
  while (stack.length > 0 && n <= most) {
    const node = stack.pop() as { members?: { [name: string]: unknown } };
    n++;
    if (node.members !== undefined && node.members !== null) for (const m of Object.values(node.members)) stack.push(m);
  }
  return n;
}

/** Subtrees up to this many nodes are written by jsonText (short containers on one line), larger ones by zom's stringify. */
const JSON_TEXT_NODES = 500;

/** A built-in spec's title ("OME-Zarr 0.5"), or its name. */
function titleOf(spec: string): string {
  try {
    return builtinSpec(spec as Parameters<typeof builtinSpec>[0]).title ?? spec;
  } catch {
    return spec;
  }
}

function openArray(path: string): Promise<ZarrArray> {
  if (store === null || current === null) throw new Error("no hierarchy is open");
  let opened = arrays.get(path);
  if (opened === undefined) {
    const hint = { kind: "array" as const, format: current.format };
    opened = open(store, path, { ...hint, cache }) as Promise<ZarrArray>;
    opened.catch(() => arrays.delete(path));
    arrays.set(path, opened);
  }
  return opened;
}

function infoOf(arr: ZarrArray): ArrayInfo {
  return {
    path: arr.path,
    shape: arr.shape,
    chunks: arr.chunks,
    shards: arr.shards,
    dtype: arr.dtype,
    readError: arr.readError === null ? null : failure(arr.readError),
  };
}

/** True when the values of this data type make an image (real numbers and booleans). */
function drawable(dtype: unknown): boolean {
  const name = nameOf(dtype);
  if (isComplex(name) || isTemporal(name)) return false;
  return /^(bool|u?int(8|16|32|64)|float(16|32|64))$/.test(name);
}

/** The C-order index of element `i` of an array of `shape`. */
function unravel(i: number, shape: number[]): number[] {
  const index = new Array<number>(shape.length).fill(0);
  let rest = i;
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d] ?? 1;
    index[d] = n > 0 ? rest % n : 0;
    rest = n > 0 ? Math.floor(rest / n) : 0;
  }
  return index;
}

/** The store key of an array's metadata document. */
function metadataKey(path: string): string {
  const name = current?.format === 2 ? ".zarray" : "zarr.json";
  return path === "" ? name : `${path}/${name}`;
}

/** Failures of the metadata (not of a chunk) name the metadata document when zom gave no key. */
async function doRead(id: number, path: string, indices: number[]): Promise<void> {
  try {
    await read(id, path, indices);
  } catch (e) {
    const f = failure(e);
    const aboutMetadata = ["InvalidMetadata", "UnknownCodec", "UnsupportedExtension"].includes(f.code);
    throw { ...f, path: f.path ?? path, key: f.key ?? (aboutMetadata ? metadataKey(path) : null) };
  }
}

async function read(id: number, path: string, indices: number[]): Promise<void> {
  const arr = await openArray(path);
  const info = infoOf(arr);
  if (arr.readError !== null) throw arr.readError;
  const rank = arr.shape.length;
  const lead = arr.shape.slice(0, Math.max(0, rank - 2)).map((n, d) => Math.min(Math.max(0, indices[d] ?? 0), Math.max(0, n - 1)));
  const [h, w] = rank >= 2 ? [arr.shape[rank - 2] ?? 0, arr.shape[rank - 1] ?? 0] : [0, 0];
  if (rank >= 2 && drawable(arr.dtype) && h > 0 && w > 0) {
    // Up to MAX_STRIDE the whole plane is shown, strided; beyond, a strided read would still
    // fetch and decode every chunk of it, so the top-left window is shown instead.
    let step = Math.max(1, Math.ceil(Math.sqrt((h * w) / IMAGE_LIMIT)));
    const side = Math.floor(Math.sqrt(IMAGE_LIMIT));
    const corner = step > MAX_STRIDE;
    if (corner) step = 1;
    const selection: Selection = corner
      ? [...lead, slice(0, Math.min(h, side)), slice(0, Math.min(w, side))]
      : [...lead, slice(null, null, step), slice(null, null, step)];
    const decodedBefore = workerStats().decoded;
    const { data, shape } = await arr.get(selection);
    const decodedInWorkers = workerStats().decoded - decodedBefore;
    const height = shape[0] ?? 0;
    const width = shape[1] ?? 0;
    const values = Float64Array.from(data as ArrayLike<number | bigint>, Number);
    const { rgba, min, max, nonFinite } = colourise(values);
    const result: ImageResult = {
      kind: "image",
      info,
      width,
      height,
      step: [step, step],
      window: corner,
      decodedInWorkers,
      rgba,
      values,
      min,
      max,
      nonFinite,
    };
    post({ id, type: "read", result }, [rgba.buffer, values.buffer]);
    return;
  }
  let selection: Selection | undefined;
  if (rank === 1) selection = [slice(0, Math.min(arr.shape[0] ?? 0, TABLE_LIMIT))];
  else if (rank >= 2) selection = [...lead, slice(0, Math.min(h, 50)), slice(0, Math.min(w, 20))];
  const { data, shape } = await arr.get(selection);
  const name = nameOf(arr.dtype);
  const complex = isComplex(name);
  const count = shape.reduce((a, b) => a * b, 1);
  const fields = structFields(arr.dtype);
  const rows: TableResult["rows"] = [];
  const values = data as ArrayLike<unknown>;
  for (let i = 0; i < Math.min(count, TABLE_LIMIT); i++) {
    const index = unravel(i, shape);
    let cells: string[];
    if (complex) cells = [formatValue([values[2 * i], values[2 * i + 1]], arr.dtype)];
    else if (fields !== null) {
      const element = values[i] as { [field: string]: unknown } | undefined;
      cells = fields.map(([field, type]) => formatValue(element?.[field], type));
    } else cells = [formatValue(values[i], arr.dtype)];
    rows.push({ index: [...lead, ...index], cells });
  }
  const columns = fields !== null ? fields.map(([f]) => f) : ["value"];
  const result: TableResult = { kind: "table", info, shape, columns, rows, total: count };
  post({ id, type: "read", result });
}

/** The fields of a struct data type (v3 `structured` or zarr-extensions `struct`), else null. */
function structFields(dtype: unknown): [string, unknown][] | null {
  const config = (dtype as { configuration?: { fields?: unknown } } | null)?.configuration;
  const fields = config?.fields;
  if (!Array.isArray(fields)) return null;
  return fields.map((f: unknown): [string, unknown] => {
    if (Array.isArray(f)) return [String(f[0]), f[1]];
    const o = f as { name?: unknown; data_type?: unknown };
    return [String(o.name), o.data_type];
  });
}

async function handle(request: Request): Promise<void> {
  const { id } = request;
  try {
    switch (request.type) {
      case "walk":
        await doWalk(id, request.source);
        break;
      case "read":
        await doRead(id, request.path, request.indices);
        break;
      case "diff": {
        if (current === null) throw new Error("no hierarchy is open");
        let expected: unknown;
        try {
          expected = parseJson(request.expected);
        } catch (e) {
          throw { ...failure(e), code: "InvalidJson", message: `the expected ZOM is not JSON: ${failure(e).message}` };
        }
        if (typeof expected !== "object" || expected === null || Array.isArray(expected)) {
          throw { code: "InvalidArgument", message: "the spec must be a ZOM: a JSON object with zarr_format", path: null, key: null };
        }
        const differences = diff(expected as unknown as Zom, current.zom, { exclude: request.exclude });
        post({ id, type: "diff", differences });
        break;
      }
      case "stringify":
        if (current === null) throw new Error("no hierarchy is open");
        post({ id, type: "stringify", text: stringify(current.zom, 2) });
        break;
      case "node": {
        const { members: _members, ...own } = nodeAt(request.path) as unknown as { [key: string]: unknown };
        post({ id, type: "node", zom: own });
        break;
      }
      case "viewed":
        viewed?.();
        return;
      case "describe":
        post({ id, type: "describe", description: await describe(shown(), request.path) });
        break;
      case "picture": {
        const { id: _id, type: _type, ...asked } = request;
        const result = await picture(shown(), asked);
        post({ id, type: "picture", result }, [result.rgba.buffer]);
        break;
      }
      case "plane": {
        const result = await plane(shown(), request.path, request.name, request.indices);
        post({ id, type: "plane", result }, [result.rgba.buffer, result.values.buffer, result.stored.buffer]);
        break;
      }
      case "zomText": {
        const node = nodeAt(request.path);
        const text = countNodes(node, JSON_TEXT_NODES) <= JSON_TEXT_NODES ? jsonText(node) : stringify(node, 2);
        post({ id, type: "zomText", text: text.length > request.limit ? text.slice(0, request.limit) : text, total: text.length });
        break;
      }
    }
  } catch (e) {
    post({ id, type: "error", error: failure(e) });
  } finally {
    postStats();
  }
}

/**
 * Firefox (153 ESR) at times freezes a module worker for good in `new Worker()` of its second
 * nested worker, so the page waits forever at "Opening…": there, this worker decodes itself.
 */
const NESTED_WORKERS_FREEZE = /\bFirefox\//.test(navigator.userAgent);

// The .wasm beside this bundle (www/build.mjs copies it) compiles while it downloads.
const ready = init({ wasm: new URL("./zom_wasm_bg.wasm", import.meta.url), ...(NESTED_WORKERS_FREEZE ? { workers: 0 } : {}) }).then(
  () => {
    readyAt = now();
    return true;
  },
  (e: unknown) => {
    post({ id: 0, type: "fatal", error: { ...failure(e), message: `zom's WebAssembly did not load: ${failure(e).message}` } });
    return false;
  },
);

scope.addEventListener("message", (event) => {
  void ready.then((ok) => {
    if (ok) void handle(event.data);
    else
      post({
        id: event.data.id,
        type: "error",
        error: { code: "Fatal", message: "zom's WebAssembly did not load", path: null, key: null },
      });
  });
});
