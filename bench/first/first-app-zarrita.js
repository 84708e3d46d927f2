// bench/first/first.mjs's "app" and "tile" pages with zarrita's API: open a 512² uint16 array (Zarr v3, zstd,
// 256² chunks) and read it whole. Bundled as it is for "zarrita" (+ numcodecs, which zarrita
// imports when it meets the codec) and with "zom/zarrita" in place of "zarrita".
import * as zarr from "zarrita";
import { checksum } from "../lib/tiles.js";
import { dataUrl, report } from "./first-page.js";

/** The array: /data/app, or the one the page's URL names (`?data=/data/tile`: the "tile" page). */
const DATA = new URLSearchParams(location.search).get("data") ?? "/data/app";

report(
  async () => {
    const arr = await zarr.open(new zarr.FetchStore(dataUrl(DATA)), { kind: "array" });
    return (await zarr.get(arr)).data;
  },
  (data) => ({ checksum: checksum(data) }),
);
