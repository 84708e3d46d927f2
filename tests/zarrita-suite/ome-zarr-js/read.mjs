// What an app built on ome-zarr.js does to render an OME-Zarr image: getMultiscaleWithArray (the
// smallest level), getSlices for every channel, zarrita's `get` of each, getMinMaxValues and
// renderTo8bitArray, as its renderImage does before the canvas (ome-zarr.js's PNG encoding does
// not run in Node). Prints one JSON line: each image's level, axes, omero, value ranges and a
// SHA-256 of the rendered RGBA, and which module "zarrita" was.
//
//   node [--import ../viv/alias.mjs] read.mjs BASE_URL image-path…

import { createHash } from "node:crypto";
import { getMinMaxValues, getMultiscaleWithArray, getSlices, renderTo8bitArray } from "ome-zarr.js";
import * as zarr from "zarrita";

const [base, ...images] = process.argv.slice(2);
const COLORS = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
];
const out = { zarrita: import.meta.resolve("zarrita"), images: {} };
for (const image of images) {
  const { arr, shapes, multiscale, omero, scales, zarr_version } = await getMultiscaleWithArray(new URL(image, base).href, -1);
  const axes = multiscale.axes.map((a) => a.name ?? String(a));
  const c = axes.indexOf("c");
  const channels = Array.from({ length: c < 0 ? 1 : arr.shape[c] }, (_, i) => i);
  const planes = await Promise.all(getSlices(channels, arr.shape, axes, {}).map((selection) => zarr.get(arr, selection)));
  const ranges = planes.map((plane) => getMinMaxValues(plane));
  const rgba = renderTo8bitArray(
    planes,
    ranges,
    channels.map((i) => COLORS[i % 3]),
    undefined,
    channels.map(() => false),
    false,
  );
  out.images[image] = {
    shape: arr.shape,
    dtype: arr.dtype,
    shapes,
    scales,
    zarr_version,
    axes,
    omero: omero ?? null,
    ranges,
    pixels: rgba.length / 4,
    rgba: createHash("sha256").update(rgba).digest("hex").slice(0, 16),
  };
}
console.log(JSON.stringify(out));
process.exit(0);
