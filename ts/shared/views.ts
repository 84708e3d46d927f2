/**
 * Views: what a node means under the convention it follows — an OME-Zarr image, a plate, a
 * well, a bioformats2raw collection, a 0.6 scene, an xarray / CF dataset — as data a page draws,
 * with the problems the pictures depend on; CF decoding of times and values; and the pixels of
 * pictures. Every rule is zom's Rust (`src/view/`), in a WebAssembly part of its own
 * (`pkg/zom_views_bg.wasm`) that {@link loadViews} loads the first time a page asks: the reader
 * and the validator do not carry it.
 * @module
 */
import { lazyPart } from "../parts/carried.js";
import type * as Glue from "../zom_views.js";
import { toZomError } from "./errors.js";
import type { Problem } from "./types.js";

/** One axis of an OME-Zarr image. */
export interface ViewAxis {
  name: string;
  /** "space", "time", "channel", or another the metadata names; null when none. */
  type: string | null;
  unit: string | null;
}

/** One resolution level of an image. */
export interface ImageLevel {
  /** As the metadata writes it ("s0", "0"). */
  path: string;
  /** The array's node path in the hierarchy. */
  node: string;
  /** The array's shape, when the hierarchy described holds the array. */
  shape: number[] | null;
  chunks: number[] | null;
  data_type: string | null;
  /** Per axis: the product of the image's and the level's scale transformations. */
  scale: number[];
  translation: number[];
}

/** A channel's rendering window (omero). */
export interface ChannelWindow {
  start: number;
  end: number;
  min: number | null;
  max: number | null;
}

/** How a channel is drawn: `omero`'s settings, or the defaults viewers use where it is absent. */
export interface ImageChannel {
  index: number;
  label: string;
  /** "RRGGBB". */
  color: string;
  /** null: windowed from the data. */
  window: ChannelWindow | null;
  active: boolean;
  inverted: boolean;
  coefficient: number;
  family: string;
}

/** A label value's colour (`image-label.colors`). */
export interface ViewLabelColor {
  label_value: number;
  rgba: [number, number, number, number];
}

/** What a label image says of itself (`image-label`). */
export interface LabelInfo {
  colors: ViewLabelColor[];
  properties: { [key: string]: unknown }[];
  /** The node path of the image it labels, when it says and that is inside the hierarchy. */
  source_image: string | null;
}

/** An OME-Zarr multiscale image. */
export interface ImageView {
  kind: "image";
  version: string | null;
  name: string | null;
  axes: ViewAxis[];
  channel_axis: number | null;
  time_axis: number | null;
  z_axis: number | null;
  y_axis: number | null;
  x_axis: number | null;
  levels: ImageLevel[];
  channels: ImageChannel[];
  /** The image's label images: name and node path. */
  labels: { name: string; node: string }[];
  /** Set when this image is a label image. */
  label: LabelInfo | null;
  default_z: number | null;
  default_t: number | null;
}

/** An OME-Zarr plate. */
export interface PlateView {
  kind: "plate";
  version: string | null;
  name: string | null;
  rows: string[];
  columns: string[];
  /** `row` and `column` index `rows` and `columns`; `present` when the hierarchy holds the well. */
  wells: { path: string; node: string; row: number; column: number; present: boolean }[];
  acquisitions: { id: number; name: string | null; maximum_field_count: number | null }[];
  field_count: number | null;
}

/** An OME-Zarr well: its fields. */
export interface WellView {
  kind: "well";
  version: string | null;
  images: { path: string; node: string; acquisition: number | null }[];
}

/** A bioformats2raw collection: the node paths of its images. */
export interface SeriesView {
  kind: "series";
  images: string[];
}

/** An OME-Zarr 0.6 scene. */
export interface SceneView {
  kind: "scene";
  version: string | null;
  coordinate_systems: unknown[];
  images: { node: string; transforms: unknown[]; input: string | null; output: string | null }[];
}

/** How a CF variable's stored values become physical ones. */
export interface Packing {
  scale_factor: number | null;
  add_offset: number | null;
  /** NaN fill values cross as null. */
  fill_values: (number | null)[];
  valid_min: number | null;
  valid_max: number | null;
}

/** A CF time coordinate's encoding. */
export interface TimeEncoding {
  units: string;
  calendar: string;
  unit: string;
  /** ISO text of the reference date. */
  epoch: string;
}

/** One variable of an xarray / CF dataset. */
export interface DatasetVariable {
  name: string;
  node: string;
  dims: string[];
  shape: number[];
  data_type: string;
  units: string | null;
  long_name: string | null;
  standard_name: string | null;
  /** For coordinates: "latitude", "longitude", "time", "vertical", "x", "y", or null. */
  axis: string | null;
  /** For data variables: the coordinates it names. */
  coordinates: string[];
  packing: Packing;
  time: TimeEncoding | null;
  grid_mapping: string | null;
  bounds: string | null;
}

/** An xarray / CF dataset. */
export interface DatasetView {
  kind: "dataset";
  dimensions: { name: string; size: number }[];
  coordinates: DatasetVariable[];
  data_variables: DatasetVariable[];
  attributes: { [key: string]: unknown };
}

/** What a node is. */
export type View = ImageView | PlateView | WellView | SeriesView | SceneView | DatasetView;

/** A node's view and the problems it depends on. */
export interface Description {
  path: string;
  view: View | null;
  problems: Problem[];
}

/** How one channel is drawn in {@link Views.composite}. */
export interface ChannelStyle {
  /** "RRGGBB". */
  color: string;
  /** [start, end]; null or absent: the plane's least and greatest finite values. */
  window?: [number, number] | null;
  inverted?: boolean;
}

/** Samples a picture is drawn from: any numeric typed array a read gives. */
export type Samples =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** The views part's functions, once loaded. */
export interface Views {
  /** The view of the node at `path` ("" the root) of a ZOM that holds its members. */
  describe(zom: object, path?: string): Description;
  /**
   * The problems the pictures of the claimed nodes depend on, as a validation adds them (rule
   * `"view"`, credited to the claimed spec): `claims` as `detectConventions` gives them,
   * `found` the validation's problems, where a problem at the same place is not repeated.
   * `validateHierarchy` leaves them out, since the validator's part carries no views.
   */
  check(zom: object, claims: readonly { path: string; spec: string }[], found: readonly Pick<Problem, "path" | "loc">[]): Problem[];
  /** The level of the image at `path` to read for a picture of `width` × `height`; null when it is no image. */
  levelFor(zom: object, path: string, width: number, height: number): number | null;
  /** The level whose array must be opened (put in the ZOM) before `levelFor` can answer, from the smallest up; null when the known shapes settle it. */
  levelToOpen(zom: object, path: string, width: number, height: number): number | null;
  /** CF time offsets as ISO dates in their calendar (null for a missing value); throws when units or calendar cannot be read. */
  decodeTimes(values: ArrayLike<number | bigint>, units: string, calendar?: string | null): (string | null)[];
  /** Stored values decoded as CF says: masked ones NaN. */
  unpack(packing: Packing, stored: ArrayLike<number | bigint>): Float64Array;
  /** Whether a coordinate's values increase; null when fewer than two are finite. */
  ascending(values: ArrayLike<number | bigint>): boolean | null;
  /** A plane with its rows and/or columns reversed. */
  oriented(values: Float64Array, width: number, height: number, flipRows: boolean, flipColumns: boolean): Float64Array;
  /** The additive composite of planes of `width × height` samples in their styles, as RGBA. */
  composite(planes: Samples[], styles: ChannelStyle[], width: number, height: number): Uint8ClampedArray;
  /** Lays a label plane over `rgba` in its colours (others get zom's fixed colour per value) at `opacity`. */
  overlayLabels(rgba: Uint8ClampedArray, labels: Samples, colors: ViewLabelColor[], opacity: number): void;
}

/** Loads the views part once. */
const viewsPart = /* @__PURE__ */ lazyPart(() => Promise.all([import("../zom_views.js"), import("../zom_views_inline.js")]));
let views: Views | undefined;

/**
 * Loads the views part once (its module read and compiled off the main thread, started on
 * this thread) and resolves with its functions.
 */
export async function loadViews(): Promise<Views> {
  views ??= bind(await viewsPart());
  return views;
}

/** The element kind zom names a typed array's samples by. */
function kindOf(samples: Samples): string {
  if (samples instanceof Uint8Array) return "uint8";
  if (samples instanceof Int8Array) return "int8";
  if (samples instanceof Uint16Array) return "uint16";
  if (samples instanceof Int16Array) return "int16";
  if (samples instanceof Uint32Array) return "uint32";
  if (samples instanceof Int32Array) return "int32";
  if (samples instanceof Float32Array) return "float32";
  if (samples instanceof Float64Array) return "float64";
  if (samples instanceof BigInt64Array) return "int64";
  return "uint64";
}

const bytesOf = (samples: Samples): Uint8Array => new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
const numbers = (values: ArrayLike<number | bigint>): Float64Array =>
  values instanceof Float64Array ? values : Float64Array.from(values as ArrayLike<number>, Number);

/** Calls into the part, its throws as ZomErrors. */
function guarded<A extends unknown[], R>(f: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    try {
      return f(...args);
    } catch (e) {
      throw toZomError(e);
    }
  };
}

function bind(glue: typeof Glue): Views {
  return {
    describe: guarded((zom: object, path = "") => glue.describe(zom, path) as Description),
    check: guarded(
      (zom: object, claims: readonly { path: string; spec: string }[], found: readonly Pick<Problem, "path" | "loc">[]) =>
        glue.check(zom, claims, found) as Problem[],
    ),
    levelFor: guarded((zom: object, path: string, width: number, height: number) => glue.levelFor(zom, path, width, height) ?? null),
    levelToOpen: guarded((zom: object, path: string, width: number, height: number) => glue.levelToOpen(zom, path, width, height) ?? null),
    decodeTimes: guarded(
      (values: ArrayLike<number | bigint>, units: string, calendar?: string | null) =>
        glue.decodeTimes(numbers(values), units, calendar ?? "standard") as (string | null)[],
    ),
    unpack: guarded((packing: Packing, stored: ArrayLike<number | bigint>) => glue.unpack(packing, numbers(stored))),
    ascending: guarded((values: ArrayLike<number | bigint>) => glue.ascending(numbers(values)) ?? null),
    oriented: guarded((values: Float64Array, width: number, height: number, flipRows: boolean, flipColumns: boolean) =>
      glue.oriented(values, width, height, flipRows, flipColumns),
    ),
    composite: guarded((planes: Samples[], styles: ChannelStyle[], width: number, height: number) => {
      const rgba = glue.composite(planes.map(bytesOf), planes.map(kindOf), styles, width, height);
      return new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength);
    }),
    overlayLabels: guarded((rgba: Uint8ClampedArray, labels: Samples, colors: ViewLabelColor[], opacity: number) => {
      const bytes = new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength);
      glue.overlayLabels(bytes, bytesOf(labels), kindOf(labels), colors, opacity);
    }),
  };
}
