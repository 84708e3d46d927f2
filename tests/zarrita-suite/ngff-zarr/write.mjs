// What ngff-zarr writes: OME-Zarr 0.4 and 0.5 images (3-d and 5-d uint16 ramps, two levels)
// written by @fideus-labs/ngff-zarr (zarrSet, toMultiscales, toNgffZarr, through the zarrita it
// ships with) into DIR, for read.mjs to open. Node has no Web Worker, which ngff-zarr's downsampling
// and writing workers (fizarrita) need: web-worker provides one over worker_threads.
//
//   node write.mjs DIR

import { createNgffImage, terminateWorkerPool, toMultiscales, toNgffZarr, zarrSet } from "@fideus-labs/ngff-zarr";
import Worker from "web-worker";

globalThis.Worker ??= Worker;
const [dir] = process.argv.slice(2);
const IMAGES = {
  cyx: { shape: [2, 64, 48], dims: ["c", "y", "x"] },
  tczyx: { shape: [2, 2, 3, 16, 12], dims: ["t", "c", "z", "y", "x"] },
};
for (const version of ["0.4", "0.5"]) {
  for (const [name, { shape, dims }] of Object.entries(IMAGES)) {
    const scale = Object.fromEntries(dims.map((d) => [d, d === "x" || d === "y" ? 0.5 : 1]));
    const translation = Object.fromEntries(dims.map((d) => [d, 0]));
    const image = await createNgffImage(null, shape, "uint16", dims, scale, translation, name);
    const n = shape.reduce((a, b) => a * b, 1);
    const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    await zarrSet(image.data, null, { data: new Uint16Array(n).map((_, i) => (i * 37) % 65521), shape, stride });
    const multiscales = await toMultiscales(image, { scaleFactors: [2] });
    await toNgffZarr(`${dir}/ngff-zarr-${version}-${name}.ome.zarr`, multiscales, { version });
  }
}
await terminateWorkerPool?.();
process.exit(0);
