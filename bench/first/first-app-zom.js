// bench/first/first.mjs's "app" and "tile" pages with zom: open a 512² uint16 array (Zarr v3, zstd, 256² chunks)
// and read it whole.
import { FetchStore, openArray } from "zom";
import { checksum } from "../lib/tiles.js";
import { dataUrl, report } from "./first-page.js";

/** The array: /data/app, or the one the page's URL names (`?data=/data/tile`: the "tile" page). */
const DATA = new URLSearchParams(location.search).get("data") ?? "/data/app";

report(
  async () => {
    const arr = await openArray(new FetchStore(dataUrl(DATA)));
    return (await arr.get()).data;
  },
  (data) => ({ checksum: checksum(data) }),
);
