// bench/first/first.mjs's "viewer" page with zarrita's API: a viewer's first paint of an OME-Zarr 0.5
// image fitted into a 512×512 viewport. Open the image group, read its multiscales, take the
// lowest-resolution level (the one a fitted view shows: 512² here), open that array and read
// the tiles the viewport shows (bench/lib/tiles.js visibleTiles: the 2×2 block of 256²
// chunks at the level's centre, all of it here), each with getChunk, all at once. Bundled as
// it is for "zarrita" and with "zom/zarrita" in place of "zarrita".
import * as zarr from "zarrita";
import { checksum, visibleTiles } from "../lib/tiles.js";
import { dataUrl, report, tileSums } from "./first-page.js";

report(
  async () => {
    const group = await zarr.open(new zarr.FetchStore(dataUrl("/data/pyramid")), { kind: "group" });
    const datasets = group.attrs.ome.multiscales[0].datasets;
    const arr = await zarr.open(group.resolve(datasets.at(-1).path), { kind: "array" });
    const coords = visibleTiles(arr.shape, arr.chunks);
    const tiles = await Promise.all(coords.map((c) => arr.getChunk(c)));
    return { coords, datas: tiles.map((t) => t.data) };
  },
  ({ coords, datas }) => ({ tiles: tileSums(coords, datas, checksum) }),
);
