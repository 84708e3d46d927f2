/**
 * The messages between the page (main.ts) and its worker (worker.ts). Every zom call — the
 * walk, validation, opening and reading arrays, diff, stringify — runs in the worker; the page
 * only draws. Values cross by structured clone (BigInts included).
 * @module
 */
import type { DatasetVariable, Description, DetectedConvention, ImageChannel, ImagePictureOptions, ImageView } from "zom/manual";

/** A failure, as the page shows it: zom's error code, node path and store key when known. */
export interface Failure {
  code: string;
  message: string;
  path: string | null;
  key: string | null;
}

/** One validation problem or diff entry location. */
export type Loc = (string | number)[];

/** A validation problem (zom's Problem). */
export interface Problem {
  path: string;
  loc: Loc;
  kind: string;
  message: string;
  severity: "error" | "warning";
  /** The hierarchy spec (convention) that found it; absent for the Zarr spec's own problems. */
  spec?: string;
  /** The spec's rule that failed. */
  rule?: string;
}

/** A convention a node of the hierarchy claims (zom's DetectedConvention). */
export type Claim = DetectedConvention;

/** One difference (zom's Difference). */
export interface Difference {
  path: string;
  loc: Loc;
  kind: string;
  expected?: unknown;
  actual?: unknown;
  message: string;
}

/**
 * Where a hierarchy is: a URL (a folder, a .zip or .ozx archive), or what the user handed the
 * page: a dropped or chosen archive, a folder's files (`<input webkitdirectory>`), a folder
 * handle (File System Access API). Files and handles cross to the worker by structured clone.
 */
export type Source =
  /** `ref`: an Icechunk repository's snapshot (a branch, a tag or a snapshot id). */
  | { kind: "url"; url: string; ref?: IcechunkRef }
  | { kind: "zip"; file: File }
  | { kind: "files"; files: File[] }
  | { kind: "directory"; handle: FileSystemDirectoryHandle };

/** Requests from the page. */
export type Request =
  | { id: number; type: "walk"; source: Source }
  /** Reads what the preview of an array shows; `indices` fix the dimensions before the last two. */
  | { id: number; type: "read"; path: string; indices: number[] }
  | { id: number; type: "diff"; expected: string; exclude: string[] }
  | { id: number; type: "stringify" }
  /** One node's ZOM without its members: what its panel shows. */
  | { id: number; type: "node"; path: string }
  /** The JSON text of a node's ZOM with its subtree, cut after `limit` characters. */
  | { id: number; type: "zomText"; path: string; limit: number }
  /** The first view's pictures in view are drawn (or it has none): the walk may start. No answer. */
  | { id: 0; type: "viewed" }
  /** What a node means under its convention (before the walk ends too: the node is then opened alone). */
  | { id: number; type: "describe"; path: string }
  | ({ id: number; type: "picture" } & PictureRequest)
  /** A 2-D plane of the variable `name` of the dataset at `path`, leading dimensions at `indices`. */
  | { id: number; type: "plane"; path: string; name: string; indices: number[] };

/** The picture of an image, or of a well's first field, or a collection's first image. */
export interface PictureRequest {
  path: string;
  /** The least size wanted: the lowest level at least this large is read. */
  width: number;
  height: number;
  level?: number | null;
  /** Settings in place of the metadata's, by channel index. */
  channels?: ImagePictureOptions["channels"] | null;
  labels?: string | null;
  t?: number | null;
  z?: number | null;
}

/** A picture: RGBA of the level read, with the image's view and the channels drawn. */
export interface PictureResult {
  /** The node asked for. */
  path: string;
  /** The image drawn (a well's first field, for a well). */
  image: string;
  rgba: Uint8ClampedArray;
  width: number;
  height: number;
  level: number;
  view: ImageView;
  channels: ImageChannel[];
}

/** One edge of a plane: its dimension and coordinate values in the picture's order. */
export interface PlaneAxisResult {
  name: string;
  units: string | null;
  axis: string | null;
  values: number[] | null;
  flipped: boolean;
}

/** A variable's plane, decoded (CF) and oriented north up, coloured in viridis. */
export interface PlaneResult {
  path: string;
  name: string;
  indices: number[];
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
  /** Decoded values, the picture's order. */
  values: Float64Array;
  /** The stored values, the same order. */
  stored: Float64Array;
  min: number | null;
  max: number | null;
  nonFinite: number;
  variable: DatasetVariable;
  x: PlaneAxisResult;
  y: PlaneAxisResult;
  /** The dimensions before the plane's two: their coordinates' labels (dates for a CF time). */
  leading: { name: string; size: number; units: string | null; labels: string[] | null; axis: string | null }[];
}

/** How an array's values are shown. */
export interface ArrayInfo {
  path: string;
  shape: number[];
  /** Inner chunk shape (what reads are made of); null when the array cannot be read. */
  chunks: number[] | null;
  /** Shard shape of a sharded array. */
  shards: number[] | null;
  dtype: unknown;
  /** Why the array cannot be read, or null. */
  readError: Failure | null;
}

/** A 2-D numeric slice, coloured. */
export interface ImageResult {
  kind: "image";
  info: ArrayInfo;
  /** Pixels of the slice after striding (`step` per axis). */
  width: number;
  height: number;
  /** Every `step[i]`-th element along the two shown axes. */
  step: [number, number];
  /** True when only the top-left window of the plane was read (the plane is too large to stride). */
  window: boolean;
  /** Chunks of this read decoded by zom's decode workers (0: decoded in the explorer's worker itself). */
  decodedInWorkers: number;
  /** RGBA, width × height × 4, viridis from min to max; non-finite values transparent. */
  rgba: Uint8ClampedArray;
  /** The values as numbers (for the readout under the pointer). */
  values: Float64Array;
  min: number | null;
  max: number | null;
  /** Values that are NaN or ±∞. */
  nonFinite: number;
}

/** Values shown as a table (1-D arrays, strings, datetimes, structs, complex numbers). */
export interface TableResult {
  kind: "table";
  info: ArrayInfo;
  /** The shape of what was read. */
  shape: number[];
  /** Column names: "value", or one per struct field. */
  columns: string[];
  /** Rows: the element's index, then one text per column. */
  rows: { index: number[]; cells: string[] }[];
  /** Elements read in all (rows may hold fewer). */
  total: number;
}

/** Which snapshot of an Icechunk repository: a branch's tip, a tag, a snapshot id. */
export type IcechunkRef = { branch: string } | { tag: string } | { snapshot: string };

/** An Icechunk repository opened at a snapshot: its refs and the snapshot's history. */
export interface IcechunkInfo {
  snapshot: string;
  specVersion: number;
  branches: { name: string; snapshot: string }[];
  tags: { name: string; snapshot: string }[];
  /** Newest first; `message` and `time` (ms since the epoch) where the repository records them. */
  history: { id: string; message: string | null; time: number | null }[];
  /** Why the refs could not be listed (a spec version 1 repository over plain HTTP), or null. */
  refsError: string | null;
}

/** Answers and notices from the worker. */
export type Response =
  | { id: number; type: "error"; error: Failure }
  /** The store is open: the page asks for the first view now; the walk starts when the page says it is drawn ("viewed"). */
  | { id: number; type: "opened"; url: string }
  /** The source is an Icechunk repository: sent before the walk's first notice. */
  | { id: number; type: "icechunk"; info: IcechunkInfo }
  | { id: number; type: "progress"; nodes: number; pending: number; errors: number; found: string[] }
  /**
   * The walk's tree, sent as soon as the walk ends: the node paths (the ZOM stays in the worker;
   * see the "node" and "zomText" requests). Then come the nodes' summaries, then the validation.
   */
  | {
      id: number;
      type: "tree";
      /** The hierarchy's URL, or for local data "local:" and the file or folder name. */
      url: string;
      /** Every node the walk read, "" for the root. */
      paths: string[];
      errors: Failure[];
      unlisted: string[];
      consolidated: boolean;
      version: string;
      /** When the worker's steps ended (ms since the epoch: performance.timeOrigin + now()), for the page's performance marks. */
      timings: { [step: string]: number };
    }
  /** zom's summary of every node of the tree sent before. */
  | {
      id: number;
      type: "summaries";
      /**
       * By node path (what the tree and the panel print), as JSON text: for 10,000 nodes the
       * page parses it in a third of the time a structured clone of the objects takes.
       */
      summaries: string;
      timings: { [step: string]: number };
    }
  /** The end of a walk: the validation of the tree sent before. */
  | {
      id: number;
      type: "walked";
      /** Validated against the Zarr spec and every convention a node claims (`specs: "auto"`). */
      problems: Problem[];
      /** What `detectConventions` found. */
      claims: Claim[];
      /** Each claimed spec's title (`ome-zarr-0.5` → "OME-Zarr 0.5"). */
      specTitles: { [spec: string]: string };
      timings: { [step: string]: number };
    }
  | { id: number; type: "node"; zom: unknown }
  /** `text` is whole when `total` equals its length. */
  | { id: number; type: "zomText"; text: string; total: number }
  | { id: number; type: "read"; result: ImageResult | TableResult }
  | { id: number; type: "diff"; differences: Difference[] }
  | { id: number; type: "stringify"; text: string }
  | { id: number; type: "describe"; description: Description }
  | { id: number; type: "picture"; result: PictureResult }
  | { id: number; type: "plane"; result: PlaneResult }
  /** The store's HTTP counters, and the decoded-chunk cache's hits and misses. */
  | { id: 0; type: "stats"; requests: number; bytes: number; cacheHits: number; cacheMisses: number; decodeWorkers: number }
  | { id: 0; type: "fatal"; error: Failure };
