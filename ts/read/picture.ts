/**
 * Pictures of what a hierarchy holds, read the way viewers read them: an OME-Zarr image as the
 * composite of its active channels in their colours and windows, at the lowest level that fills
 * the picture, its labels over it on request; a CF variable's 2-D plane, decoded, north up,
 * with its coordinates at the edges. The reading (which nodes, which selection) is the reader's;
 * what the metadata means, the level, the decoding and the pixels come from the views part
 * ({@link loadViews}). Chunks decode in the reader's workers.
 * @module
 */

import { ZomError } from "../shared/errors.js";
import type { Zom } from "../shared/types.js";
import type { ChannelStyle, DatasetVariable, DatasetView, ImageChannel, ImageView, Samples, Views } from "../shared/views.js";
import { loadViews } from "../shared/views.js";
import type { StoreInput } from "../store/readable.js";
import { ZarrArray } from "./array.js";
import type { OpenOptions } from "./hierarchy.js";
import { open, openArray, ZarrGroup } from "./hierarchy.js";
import type { DimSelection } from "./slice.js";
import { slice } from "./slice.js";

/** What {@link imagePicture} draws. */
export interface ImagePictureOptions {
  /** The picture's size: the lowest level at least this large is read (default 512 × 512). */
  width?: number;
  height?: number;
  /** The level to read instead (an index of the image's levels). */
  level?: number;
  /** The hierarchy's ZOM (from a walk), holding the image's levels: no request for metadata. */
  zom?: object;
  /** Each channel's settings in place of the metadata's (by index; missing fields kept). */
  channels?: (Partial<Pick<ImageChannel, "active" | "color" | "window" | "inverted">> | undefined)[];
  /** The time point and z plane (default the metadata's defaultT / defaultZ, else 0 and the middle plane). */
  t?: number;
  z?: number;
  /** A label image's name to lay over the picture. */
  labels?: string | null;
  /** The labels' opacity (default 0.5). */
  labelOpacity?: number;
  /** Options of the opens (a chunk cache, a signal). */
  open?: OpenOptions;
}

/** An image's picture. */
export interface ImagePicture {
  /** RGBA, `width × height × 4`, row by row from the top. */
  rgba: Uint8ClampedArray;
  width: number;
  height: number;
  /** The level read (an index of `view.levels`). */
  level: number;
  view: ImageView;
  /** The channels drawn, with the settings used. */
  channels: ImageChannel[];
}

const join = (...parts: string[]): string => parts.filter((p) => p !== "").join("/");

/**
 * The ZOM of the OME-Zarr image group at `path` with what its views need: its levels' arrays
 * (their shapes pick the level a picture reads) and, with `labels`, its `labels` group (an
 * image need not have one, and no metadata says: finding out is a request). The group is
 * opened with `open`'s options, or given as `group` (its ZOM, opened already); NotFound /
 * InvalidMetadata when it is no image.
 */
export async function openImage(
  store: StoreInput,
  path: string,
  options: { labels?: boolean; levels?: boolean; open?: OpenOptions; group?: object } = {},
): Promise<object> {
  const views = await loadViews();
  let opened = options.group;
  if (opened === undefined) {
    const group = await open(store, path, { ...options.open, kind: "group" });
    if (!(group instanceof ZarrGroup)) throw new ZomError("NotFound", `no group at /${path}`, { path });
    opened = group.zom as object;
  }
  const zom = { ...opened, members: { ...((opened as { members?: object }).members ?? {}) } as { [name: string]: unknown } };
  const view = views.describe(zom, "").view;
  if (view?.kind !== "image") throw new ZomError("InvalidMetadata", `/${path} is no OME-Zarr image`, { path });
  const [arrays, labels] = await Promise.all([
    Promise.all(options.levels === false ? [] : view.levels.map((l) => openArray(store, join(path, l.path), options.open))),
    options.labels ? open(store, join(path, "labels"), { ...options.open, kind: "group" }).catch(() => null) : null,
  ]);
  arrays.forEach((a, i) => {
    place(zom, view.levels[i]!.path, a.zom);
  });
  if (labels instanceof ZarrGroup) place(zom, "labels", { ...(labels.zom as object), members: {} });
  return zom;
}

/**
 * The image's node with its levels: from `options.zom` when it holds them, else opened. With
 * `size`, only the levels a picture of that size depends on (the views part says which, from
 * the smallest up): a thumbnail of a pyramid reads one level's metadata, not every level's.
 */
async function imageZom(
  store: StoreInput,
  path: string,
  views: Views,
  options: ImagePictureOptions,
  size?: readonly [number, number],
): Promise<{ zom: object; at: string }> {
  let zom: object | undefined;
  if (options.zom !== undefined) {
    const view = views.describe(options.zom, path).view;
    if (view?.kind === "image" && view.levels.every((l) => l.shape !== null)) return { zom: options.zom, at: path };
    const node = view?.kind === "image" && size !== undefined ? nodeAt(options.zom, path) : null;
    if (node !== null) zom = { ...node, members: { ...((node as { members?: object }).members ?? {}) } };
  }
  zom ??= await openImage(store, path, { labels: Boolean(options.labels), levels: size === undefined, open: options.open });
  if (size === undefined) return { zom, at: "" };
  const asked = new Set<number>();
  for (
    let i = views.levelToOpen(zom, "", size[0], size[1]);
    i !== null && !asked.has(i);
    i = views.levelToOpen(zom, "", size[0], size[1])
  ) {
    asked.add(i);
    const level = (views.describe(zom, "").view as ImageView).levels[i]!.path;
    place(zom, level, (await openArray(store, join(path, level), options.open)).zom);
  }
  return { zom, at: "" };
}

/** The node at `path` of `zom`, or null. */
function nodeAt(zom: object, path: string): object | null {
  let node: unknown = zom;
  for (const name of path.split("/").filter((n) => n !== ""))
    node = (node as { members?: { [name: string]: unknown } } | null)?.members?.[name];
  return node !== null && typeof node === "object" ? node : null;
}

/**
 * The level array `level` of the image at `path`, whose node is at `at` of `zom`: from the ZOM
 * when it holds the array (no request), else opened.
 */
async function levelArray(
  store: StoreInput,
  path: string,
  zom: object,
  at: string,
  level: string,
  options?: OpenOptions,
): Promise<ZarrArray> {
  const node = nodeAt(zom, at);
  if (node !== null) {
    const opened = await new ZarrGroup(store, path, node as Zom, true).open(level, options);
    if (opened instanceof ZarrArray) return opened;
  }
  return openArray(store, join(path, level), options);
}

/** Puts `node` at `relative` below `zom`, making the groups between. */
function place(zom: object, relative: string, node: unknown): void {
  const names = relative.split("/").filter((n) => n !== "" && n !== ".");
  let at = zom as { members?: { [name: string]: unknown } };
  names.forEach((name, i) => {
    at.members ??= {};
    if (i === names.length - 1) at.members[name] = node;
    else {
      at.members[name] ??= { zarr_format: 3, node_type: "group", attributes: {}, members: {} };
      at = at.members[name] as typeof at;
    }
  });
}

/** The selection of one plane: `fixed` axes at their indices, y and x whole. */
function planeSelection(view: ImageView, shape: number[], fixed: Map<number, number>): DimSelection[] {
  return shape.map((n, d) => {
    if (d === view.y_axis || d === view.x_axis) return slice(null);
    return Math.min(Math.max(0, fixed.get(d) ?? 0), Math.max(0, n - 1));
  });
}

/**
 * The picture of the OME-Zarr image at `path`: its active channels composited in their colours
 * and windows at the lowest level at least `width × height`, optionally a label image over it.
 */
export async function imagePicture(store: StoreInput, path: string, options: ImagePictureOptions = {}): Promise<ImagePicture> {
  const views = await loadViews();
  const size = [options.width ?? 512, options.height ?? 512] as const;
  const { zom, at } = await imageZom(store, path, views, options, options.level === undefined ? size : undefined);
  const view = views.describe(zom, at).view;
  if (view?.kind !== "image") throw new ZomError("InvalidMetadata", `/${path} is no OME-Zarr image`, { path });
  const level = options.level ?? views.levelFor(zom, at, size[0], size[1]) ?? 0;
  const info = view.levels[level];
  if (info === undefined) throw new ZomError("InvalidArgument", `the image at /${path} has no level ${level}`, { path });
  const arr = await levelArray(store, path, zom, at, info.path, options.open);
  const fixed = new Map<number, number>();
  if (view.time_axis !== null) fixed.set(view.time_axis, options.t ?? view.default_t ?? 0);
  if (view.z_axis !== null) fixed.set(view.z_axis, options.z ?? view.default_z ?? Math.floor((arr.shape[view.z_axis] ?? 1) / 2));
  const channels = view.channels.map((c, i) => ({ ...c, ...options.channels?.[i] }));
  const drawn = channels.filter((c) => c.active);
  const planes = await Promise.all(
    (view.channel_axis === null ? [undefined] : drawn.map((c) => c.index)).map(async (c) => {
      const at = new Map(fixed);
      if (c !== undefined && view.channel_axis !== null) at.set(view.channel_axis, c);
      return (await arr.get(planeSelection(view, arr.shape, at))).data as Samples;
    }),
  );
  const height = view.y_axis === null ? 1 : (arr.shape[view.y_axis] ?? 1);
  const width = view.x_axis === null ? 1 : (arr.shape[view.x_axis] ?? 1);
  const styles: ChannelStyle[] = (view.channel_axis === null ? channels.slice(0, 1) : drawn).map((c) => ({
    color: c.color,
    window: c.window === null ? null : [c.window.start, c.window.end],
    inverted: c.inverted,
  }));
  const rgba = views.composite(planes, styles, width, height);
  if (options.labels) await overlay(store, path, at, views, view, options, { rgba, width, height, fixed });
  return { rgba, width, height, level, view, channels: view.channel_axis === null ? channels.slice(0, 1) : drawn };
}

/** Lays the image's label image `options.labels` over the picture, read at the level of the picture's size. */
async function overlay(
  store: StoreInput,
  path: string,
  at: string,
  views: Views,
  image: ImageView,
  options: ImagePictureOptions,
  picture: { rgba: Uint8ClampedArray; width: number; height: number; fixed: Map<number, number> },
): Promise<void> {
  const ref = image.labels.find((l) => l.name === options.labels);
  if (ref === undefined)
    throw new ZomError("NotFound", `the image at /${path} has no label image ${JSON.stringify(options.labels)}`, { path });
  // The image's node paths are the hierarchy's, or, for an image opened alone (`at` ""), its own.
  const relative = at === "" ? join(path, ref.node) : ref.node;
  const labelPicture = await imageZom(store, relative, views, { ...options, zom: options.zom });
  const view = views.describe(labelPicture.zom, labelPicture.at).view;
  if (view?.kind !== "image" || view.label === null)
    throw new ZomError("InvalidMetadata", `/${relative} is no label image`, { path: relative });
  const level = view.levels.findIndex(
    (l) =>
      l.shape !== null &&
      view.y_axis !== null &&
      view.x_axis !== null &&
      l.shape[view.y_axis] === picture.height &&
      l.shape[view.x_axis] === picture.width,
  );
  if (level < 0)
    throw new ZomError("InvalidMetadata", `the label image /${relative} has no level of ${picture.width} × ${picture.height}`, {
      path: relative,
    });
  const arr = await levelArray(store, relative, labelPicture.zom, labelPicture.at, view.levels[level]!.path, options.open);
  const fixed = new Map<number, number>();
  if (view.time_axis !== null && image.time_axis !== null) fixed.set(view.time_axis, picture.fixed.get(image.time_axis) ?? 0);
  if (view.z_axis !== null && image.z_axis !== null) fixed.set(view.z_axis, picture.fixed.get(image.z_axis) ?? 0);
  const { data } = await arr.get(planeSelection(view, arr.shape, fixed));
  views.overlayLabels(picture.rgba, data as Samples, view.label.colors, options.labelOpacity ?? 0.5);
}

/** A coordinate along one edge of a variable's plane. */
export interface PlaneAxis {
  /** The dimension's name. */
  name: string;
  /** The coordinate variable, when the dataset has one. */
  coordinate: DatasetVariable | null;
  /** Its values in the picture's order (left to right, top to bottom); null without a coordinate. */
  values: Float64Array | null;
  /** True when the picture reversed the stored order (a latitude running south to north). */
  flipped: boolean;
}

/** A CF variable's 2-D plane. */
export interface VariablePlane {
  /** Decoded values (scale, offset, masks: NaN), row by row from the top: north up, east right. */
  values: Float64Array;
  /** The stored values in the same order. */
  stored: Float64Array;
  width: number;
  height: number;
  variable: DatasetVariable;
  /** The leading dimensions' indices used. */
  indices: number[];
  y: PlaneAxis;
  x: PlaneAxis;
}

/**
 * The plane of the variable `name` of the xarray / CF dataset at `path` (a ZOM holding it
 * from a walk, or opened): its last two dimensions at `indices` of the leading ones, decoded
 * and turned north up and east right.
 */
export async function variablePlane(
  store: StoreInput,
  path: string,
  name: string,
  options: { zom?: object; indices?: number[]; open?: OpenOptions } = {},
): Promise<VariablePlane> {
  const views = await loadViews();
  const zom = options.zom ?? ((await open(store, path, { ...options.open, kind: "group" })) as ZarrGroup).zom;
  const view = views.describe(zom, options.zom !== undefined ? path : "").view;
  if (view?.kind !== "dataset") throw new ZomError("InvalidMetadata", `/${path} is no xarray / CF dataset`, { path });
  const variable = [...view.data_variables, ...view.coordinates].find((v) => v.name === name);
  if (variable === undefined || variable.dims.length < 2)
    throw new ZomError("InvalidArgument", `the dataset at /${path} has no 2-D variable ${JSON.stringify(name)}`, { path });
  const rank = variable.dims.length;
  const indices = variable.shape.slice(0, rank - 2).map((n, d) => Math.min(Math.max(0, options.indices?.[d] ?? 0), Math.max(0, n - 1)));
  const arr = await openArray(store, join(path, variable.name), options.open);
  const [yAxis, xAxis] = await Promise.all(
    variable.dims.slice(rank - 2).map((dim) => planeAxis(store, path, views, view, dim, options.open)),
  );
  const { data, shape } = await arr.get([...indices, slice(null), slice(null)]);
  const height = shape[0] ?? 0;
  const width = shape[1] ?? 0;
  const raw = Float64Array.from(data as ArrayLike<number>, Number);
  const stored = views.oriented(raw, width, height, yAxis!.flipped, xAxis!.flipped);
  return { values: views.unpack(variable.packing, stored), stored, width, height, variable, indices, y: yAxis!, x: xAxis! };
}

/** A plane edge's coordinate: a latitude put north to south, anything else west to east (ascending). */
async function planeAxis(
  store: StoreInput,
  path: string,
  views: Views,
  dataset: DatasetView,
  dim: string,
  options?: OpenOptions,
): Promise<PlaneAxis> {
  const coordinate = dataset.coordinates.find((c) => c.name === dim && c.dims.length === 1 && c.dims[0] === dim) ?? null;
  if (coordinate === null) return { name: dim, coordinate, values: null, flipped: false };
  const { data } = await (await openArray(store, join(path, coordinate.name), options)).get();
  const stored = views.unpack(coordinate.packing, data as ArrayLike<number>);
  const up = views.ascending(stored);
  const flipped = coordinate.axis === "latitude" ? up === true : up === false;
  return { name: dim, coordinate, values: flipped ? stored.slice().reverse() : stored, flipped };
}
