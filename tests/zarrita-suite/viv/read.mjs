// What a viv-based viewer does with an OME-Zarr image, through @vivjs/loaders (its zarr loader,
// built on zarrita): loadOmeZarr, then every tile of every level and channel with getTile, and
// one getRaster per level. Prints one JSON line: the loader's view of each image (shape, dtype,
// labels, tile size) and a SHA-256 of every tile's dimensions and bytes, so that two runs — one
// through zarrita, one with "zarrita" sent to zom/zarrita (alias.mjs) — can be compared tile by
// tile; plus which module "zarrita" was and how long the reads took.
//
//   node [--import ./alias.mjs] read.mjs BASE_URL image-path…
import { createHash } from "node:crypto";
import { loadOmeZarr } from "@vivjs/loaders";

const [base, ...images] = process.argv.slice(2);

/** The hex SHA-256 of a tile: its width, height, typed array class and bytes. */
function digest({ data, width, height }) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return createHash("sha256").update(`${width}x${height} ${data.constructor.name} `).update(bytes).digest("hex").slice(0, 16);
}

/** Every selection of the non-spatial axes: one per channel (and t, z at 0). */
function selections(source) {
  const labels = source.labels;
  const c = labels.indexOf("c");
  const channels = c === -1 ? 1 : source.shape[c];
  return Array.from({ length: channels }, (_, i) =>
    Object.fromEntries(labels.filter((l) => l !== "x" && l !== "y").map((l) => [l, l === "c" ? i : 0])),
  );
}

const t0 = performance.now();
const out = { zarrita: import.meta.resolve("zarrita"), images: {} };
for (const image of images) {
  const { data: levels, metadata } = await loadOmeZarr(new URL(image, base).href, { type: "multiscales" });
  const result = { name: metadata.multiscales?.[0]?.name ?? null, levels: [] };
  for (const source of levels) {
    const level = { shape: source.shape, dtype: source.dtype, labels: source.labels, tileSize: source.tileSize, tiles: {}, rasters: [] };
    const width = source.shape[source.labels.indexOf("x")];
    const height = source.shape[source.labels.indexOf("y")];
    for (const selection of selections(source)) {
      const key = JSON.stringify(selection);
      const tiles = [];
      for (let y = 0; y * source.tileSize < height; y++) {
        for (let x = 0; x * source.tileSize < width; x++)
          tiles.push(source.getTile({ x, y, selection }).then((t) => `${x},${y}:${digest(t)}`));
      }
      level.tiles[key] = await Promise.all(tiles);
      level.rasters.push(digest(await source.getRaster({ selection })));
    }
    result.levels.push(level);
  }
  out.images[image] = result;
}
out.ms = performance.now() - t0;
console.log(JSON.stringify(out));
