/**
 * The worker's side of the views: what a node means (zom's views part), the pictures of
 * images, wells and series (composited by zom in the channels' colours), and the planes of
 * xarray / CF variables with their coordinates (decoded, north up). Before the walk ends the
 * nodes are opened on their own, so a view and its pictures come first; after it, the walked
 * ZOM answers without a request.
 * @module
 */

import type { ChunkCache, DatasetVariable, Description, StoreInput, Views } from "zom/manual";
import { imagePicture, loadViews, open, openArray, openImage, variablePlane, ZarrGroup } from "zom/manual";
import { colourise } from "./colour.js";
import type { PictureRequest, PictureResult, PlaneResult } from "./protocol.js";

/** What the worker holds of the hierarchy shown. */
export interface Shown {
  store: StoreInput;
  cache: ChunkCache;
  /** The walked ZOM, once the walk has ended. */
  zom: object | null;
}

/** Most elements of a coordinate read to label a slider or an axis. */
const COORDINATE_LIMIT = 1_000_000;

/** Groups opened before the walk ended, placed at their paths under an otherwise empty root. */
const looked = new Map<string, Promise<object>>();

/** Forgets what was opened for the last hierarchy. */
export function forget(): void {
  looked.clear();
}

type Json = { [key: string]: unknown };

/** `node` at `path` under a root that holds only the groups on the way to it. */
function rootedAt(path: string, node: object): object {
  const names = path.split("/").filter((n) => n !== "");
  if (names.length === 0) return node;
  const format = (node as { zarr_format?: unknown }).zarr_format;
  const group = (): Json => ({ zarr_format: format, node_type: "group", attributes: {}, members: {} });
  const root = group();
  let at = root;
  names.forEach((name, i) => {
    const members = at.members as Json;
    members[name] = i === names.length - 1 ? node : group();
    at = members[name] as Json;
  });
  return root;
}

/**
 * The node at `path` opened alone (its consolidated members with it), at its path; an image
 * with its levels' arrays, and with `labels` its labels group (a panel lists them; a picture
 * of a well's field does not need them).
 */
function opened(shown: Shown, path: string, labels: boolean): Promise<object> {
  const key = `${labels ? "+" : "-"}${path}`;
  // What was opened with labels serves without too.
  let got = looked.get(key) ?? (labels ? undefined : looked.get(`+${path}`));
  if (got === undefined) {
    got = (async () => {
      const node = await open(shown.store, path, { cache: shown.cache });
      const zom = node instanceof ZarrGroup ? node.zom : node.zom;
      const views = await loadViews();
      const kind = views.describe(zom, "").view?.kind;
      if (kind === "image") return rootedAt(path, await openImage(shown.store, path, { labels, open: { cache: shown.cache }, group: zom }));
      if (kind === "series") {
        // bioformats2raw lists its series in the OME group's attributes.
        const ome = await open(shown.store, path === "" ? "OME" : `${path}/OME`, { cache: shown.cache, kind: "group" }).catch(() => null);
        if (ome instanceof ZarrGroup)
          return rootedAt(path, { ...(zom as object), members: { ...((zom as { members?: object }).members ?? {}), OME: ome.zom } });
      }
      return rootedAt(path, zom);
    })();
    got.catch(() => looked.delete(key));
    looked.set(key, got);
  }
  return got;
}

/**
 * The ZOM a view of `path` is read from: the walked node's subtree at its path (the views part
 * is handed that much, not the whole hierarchy), else the node opened alone.
 */
async function zomFor(shown: Shown, path: string, labels = true): Promise<object> {
  if (shown.zom === null) return opened(shown, path, labels);
  let node: unknown = shown.zom;
  for (const name of path.split("/").filter((n) => n !== "")) node = (node as { members?: Json } | null)?.members?.[name];
  return node !== null && typeof node === "object" ? rootedAt(path, node) : opened(shown, path, labels);
}

/** The view of the node at `path`. */
export async function describe(shown: Shown, path: string): Promise<Description> {
  const views = await loadViews();
  return views.describe(await zomFor(shown, path), path);
}

/**
 * The ZOM a picture of the image at `path` reads its levels from: the walked one, or the
 * image as a panel opened it; else none, and the picture opens the image with only the levels
 * it depends on (a well's thumbnail reads one level's metadata, not the pyramid's).
 */
function pictureZom(shown: Shown, path: string, labels: boolean): Promise<object> | undefined {
  if (shown.zom !== null) return zomFor(shown, path, labels);
  return looked.get(`+${path}`) ?? (labels ? undefined : looked.get(`-${path}`));
}

/** The image a picture of `path` shows: the node itself, a well's first field, a collection's first image. */
async function imageOf(shown: Shown, views: Views, path: string): Promise<string> {
  const view = views.describe(await zomFor(shown, path, false), path).view;
  if (view?.kind === "well" && view.images[0] !== undefined) return view.images[0].node;
  if (view?.kind === "series" && view.images[0] !== undefined) return view.images[0];
  return path;
}

/** The picture of the image (or well, or series) at `request.path`. */
export async function picture(shown: Shown, request: PictureRequest): Promise<PictureResult> {
  const views = await loadViews();
  const image = await imageOf(shown, views, request.path);
  const drawn = await imagePicture(shown.store, image, {
    width: request.width,
    height: request.height,
    level: request.level ?? undefined,
    channels: request.channels ?? undefined,
    labels: request.labels ?? null,
    t: request.t ?? undefined,
    z: request.z ?? undefined,
    zom: await pictureZom(shown, image, Boolean(request.labels)),
    open: { cache: shown.cache },
  });
  return {
    path: request.path,
    image,
    rgba: drawn.rgba,
    width: drawn.width,
    height: drawn.height,
    level: drawn.level,
    view: drawn.view,
    channels: drawn.channels,
  };
}

/** A coordinate's labels: decoded dates for a CF time, else its values (at most COORDINATE_LIMIT). */
async function coordinateLabels(
  shown: Shown,
  views: Views,
  variable: DatasetVariable,
): Promise<{ labels: string[]; values: number[] } | null> {
  const count = variable.shape.reduce((a, b) => a * b, 1);
  if (variable.dims.length !== 1 || count > COORDINATE_LIMIT) return null;
  const { data } = await (await openArray(shown.store, variable.node, { cache: shown.cache })).get();
  const stored = Float64Array.from(data as ArrayLike<number>, Number);
  if (variable.time !== null) {
    try {
      const dates = views.decodeTimes(stored, variable.time.units, variable.time.calendar);
      return { labels: dates.map((d) => d ?? "NaT"), values: Array.from(stored) };
    } catch {
      // Undecodable units are a located problem of the view: the stored values stand.
    }
  }
  const values = Array.from(views.unpack(variable.packing, stored));
  return { labels: values.map((v) => String(v)), values };
}

/** The plane of the variable `name` of the dataset at `path` at `indices`, coloured, with its axes' and leading dimensions' coordinates. */
export async function plane(shown: Shown, path: string, name: string, indices: number[]): Promise<PlaneResult> {
  const views = await loadViews();
  const zom = await zomFor(shown, path);
  const got = await variablePlane(shown.store, path, name, { zom, indices, open: { cache: shown.cache } });
  const view = views.describe(zom, path).view;
  const coordinates = view?.kind === "dataset" ? view.coordinates : [];
  const rank = got.variable.dims.length;
  const leading = await Promise.all(
    got.variable.dims.slice(0, rank - 2).map(async (dim, d) => {
      const coordinate = coordinates.find((c) => c.name === dim && c.dims.length === 1) ?? null;
      const labels = coordinate === null ? null : await coordinateLabels(shown, views, coordinate);
      return {
        name: dim,
        size: got.variable.shape[d] ?? 0,
        units: coordinate?.time !== null ? null : (coordinate?.units ?? null),
        labels: labels?.labels ?? null,
        axis: coordinate?.axis ?? null,
      };
    }),
  );
  const { rgba, min, max, nonFinite } = colourise(got.values);
  const axis = (a: typeof got.x) => ({
    name: a.name,
    units: a.coordinate?.units ?? null,
    axis: a.coordinate?.axis ?? null,
    values: a.values === null ? null : Array.from(a.values),
    flipped: a.flipped,
  });
  return {
    path,
    name,
    indices: got.indices,
    width: got.width,
    height: got.height,
    rgba,
    values: got.values,
    stored: got.stored,
    min,
    max,
    nonFinite,
    variable: got.variable,
    x: axis(got.x),
    y: axis(got.y),
    leading,
  };
}
