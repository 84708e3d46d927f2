// bench/first/first.mjs's "viewer" page with zom: a viewer's first paint of an OME-Zarr 0.5 image
// fitted into a 512×512 viewport. Open the image group, read its multiscales, take the
// lowest-resolution level (the one a fitted view shows: 512² here), open that array and read
// the tiles the viewport shows (bench/lib/tiles.js visibleTiles: the 2×2 block of 256²
// chunks at the level's centre, all of it here) with getChunks, as viewers read with zom.
import { FetchStore, openGroup } from "zom";
import { checksum, visibleTiles } from "../lib/tiles.js";
import { dataUrl, report, tileSums } from "./first-page.js";

report(
  async () => {
    const group = await openGroup(new FetchStore(dataUrl("/data/pyramid")));
    const datasets = group.attributes.ome.multiscales[0].datasets;
    const arr = await group.open(datasets.at(-1).path, { kind: "array" });
    const coords = visibleTiles(arr.shape, arr.chunks);
    const datas = [];
    for await (const tile of arr.getChunks(coords)) {
      if (tile.error) throw tile.error;
      datas[tile.index] = tile.chunk.data;
    }
    return { coords, datas };
  },
  ({ coords, datas }) => ({ tiles: tileSums(coords, datas, checksum) }),
);
