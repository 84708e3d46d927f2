// bench/first.mjs's "app" page with zom: open a 512² uint16 array (Zarr v3, zstd, 256² chunks)
// and read it whole.
import { FetchStore, openArray } from "zom";
import { dataUrl, report } from "./first-page.js";
import { checksum } from "./viewer-tiles.js";

report(
  async () => {
    const arr = await openArray(new FetchStore(dataUrl("/data/app")));
    return (await arr.get()).data;
  },
  (data) => ({ checksum: checksum(data) }),
);
