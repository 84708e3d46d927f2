// What an app built on @fideus-labs/ngff-zarr reads: fromNgffZarr of each image over HTTP, then
// every level with zarrita's `get` and with ngff-zarr's `zarrGet` (fizarrita's decode workers,
// which build their codec pipelines from zarrita's `registry`). Prints one JSON line: each
// level's dims, shape, dtype, scale, translation and a SHA-256 of what each read gave (bytes
// and strides), so that a run through zarrita and one with "zarrita" sent to zom/zarrita
// (../viv/alias.mjs, in the workers too) can be compared.
//
//   node [--import ../viv/alias.mjs] read.mjs BASE_URL image-path…

import { createHash } from "node:crypto";
import { fromNgffZarr, terminateWorkerPool, zarrGet } from "@fideus-labs/ngff-zarr";
import Worker from "web-worker";
import * as zarr from "zarrita";

globalThis.Worker ??= Worker;
const [base, ...images] = process.argv.slice(2);

/** A SHA-256 of a read: its strides and bytes. */
function digest({ data, stride }) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return createHash("sha256").update(`${stride} ${data.constructor.name} `).update(bytes).digest("hex").slice(0, 16);
}

const out = { zarrita: import.meta.resolve("zarrita"), images: {} };
for (const image of images) {
  const multiscales = await fromNgffZarr(new URL(image, base).href);
  const levels = [];
  for (const level of multiscales.images) {
    const arr = level.data;
    levels.push({
      dims: level.dims,
      shape: arr.shape,
      dtype: arr.dtype,
      scale: level.scale,
      translation: level.translation,
      get: digest(await zarr.get(arr)),
      zarrGet: digest(await zarrGet(arr)),
    });
  }
  out.images[image] = { version: multiscales.metadata.version ?? null, axes: multiscales.metadata.axes, levels };
}
console.log(JSON.stringify(out));
await terminateWorkerPool?.();
process.exit(0);
