// What the explorer tests check the same way in every engine: the tree's node paths (and its
// rows, read in the page by scrolling through them: only the rows in view are in the DOM),
// and the preview of an image (what the canvas holds, read in the page, and what it must be
// for the array's values).
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fixtures } from "../js/helpers.mjs";

/** Node paths of a fixture hierarchy: every directory holding a zarr.json ("" for the root). */
export function nodePaths(name) {
  const dir = join(fixtures, name);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === "zarr.json")
    .map((e) =>
      relative(dir, e.parentPath ?? e.path)
        .split(sep)
        .join("/"),
    )
    .sort();
}

/**
 * Runs in the page: every row of the explorer's tree in the order shown, as { path, kind, text,
 * level }. The tree keeps only the rows in view in the DOM (www/src/tree.ts), so it is scrolled
 * from top to bottom a screenful at a time, each row read once it is drawn; the scroll is put
 * back. Rows hidden in folded groups are not rows.
 */
export async function treeRows() {
  const scroller = document.getElementById("tree");
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const start = scroller.scrollTop;
  const seen = new Map();
  const collect = () => {
    for (const b of scroller.querySelectorAll("button.node")) {
      const li = b.closest("[role=treeitem]");
      if (!seen.has(b.dataset.path))
        seen.set(b.dataset.path, {
          path: b.dataset.path,
          kind: b.dataset.kind,
          text: b.innerText,
          level: Number(li.getAttribute("aria-level")),
          top: li.offsetTop,
        });
    }
  };
  scroller.scrollTop = 0;
  await frame();
  collect();
  for (;;) {
    const before = scroller.scrollTop;
    scroller.scrollTop = before + Math.max(1, scroller.clientHeight - 40);
    await frame();
    collect();
    if (scroller.scrollTop <= before) break;
  }
  scroller.scrollTop = start;
  await frame();
  return [...seen.values()].sort((a, b) => a.top - b.top).map(({ top, ...row }) => row);
}

/**
 * Runs in the page: the preview canvas's size, how many pixels are opaque, how many colours,
 * the RGBA at each [x, y] of `points`, and every pixel's RGBA (base64, row by row).
 */
export function previewPixels(points) {
  const canvas = document.getElementById("preview-canvas");
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const colours = new Set();
  let opaque = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 255) opaque++;
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  const at = ([x, y]) => Array.from(data.slice((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 4));
  let text = "";
  for (let i = 0; i < data.length; i += 0x8000) text += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return { width: canvas.width, height: canvas.height, opaque, colours: colours.size, points: points.map(at), rgba: btoa(text) };
}

/** The points {@link previewPixels} reads for a 2-D array: where its minimum and its maximum are. */
export function extremePoints(values, [, w]) {
  const at = (i) => [i % w, Math.floor(i / w)];
  const finite = values.filter(Number.isFinite);
  return [at(values.indexOf(Math.min(...finite))), at(values.indexOf(Math.max(...finite)))];
}

/** Values as zarr-python's values files hold them ("NaN", "Infinity", "-Infinity" as text) made numbers. */
export const numbers = (values) => values.map((v) => (typeof v === "string" ? Number(v) : v));

/**
 * viridis as the previews draw it: matplotlib's colours at eight evenly spaced points (R's
 * viridisLite lists the same), interpolated into 256 RGB steps.
 */
export const VIRIDIS = (() => {
  const stops = [
    [0x44, 0x01, 0x54],
    [0x46, 0x32, 0x7e],
    [0x36, 0x5c, 0x8d],
    [0x27, 0x7f, 0x8e],
    [0x1f, 0xa1, 0x87],
    [0x4a, 0xc1, 0x6d],
    [0xa0, 0xda, 0x39],
    [0xfd, 0xe7, 0x25],
  ];
  return Array.from({ length: 256 }, (_, i) => {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(Math.floor(t), stops.length - 2);
    return [0, 1, 2].map((c) => Math.round(stops[k][c] * (1 - (t - k)) + stops[k + 1][c] * (t - k)));
  });
})();

/**
 * What the explorer draws for a 2-D slice, computed here from the values: each finite value the
 * colour of step round(255·(v − min)/(max − min)) of {@link VIRIDIS}, opaque; NaN and ±∞
 * transparent black.
 */
export function expectedPreview(values) {
  const finite = values.filter(Number.isFinite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const out = new Uint8Array(values.length * 4);
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    out.set(VIRIDIS[max > min ? Math.round(((v - min) / (max - min)) * 255) : 128], i * 4);
    out[i * 4 + 3] = 255;
  });
  return out;
}

/**
 * Asserts the preview of a `shape` array of `values` (row-major numbers): the canvas the array's
 * size, every pixel the colour {@link expectedPreview} gives its value, so that a flipped,
 * transposed, shifted or rescaled picture fails; the extremes in viridis' end colours.
 */
export function assertPreview(pixels, [h, w], values) {
  assert.deepEqual([pixels.width, pixels.height], [w, h]);
  assert.equal(pixels.opaque, values.filter(Number.isFinite).length, "every finite value's pixel drawn");
  assert.deepEqual(pixels.points[0], [0x44, 0x01, 0x54, 255], "the minimum in viridis' first colour");
  assert.deepEqual(pixels.points[1], [0xfd, 0xe7, 0x25, 255], "the maximum in viridis' last colour");
  const drawn = Buffer.from(pixels.rgba, "base64");
  const want = expectedPreview(values);
  assert.equal(drawn.length, want.length, "RGBA bytes");
  const wrong = [];
  for (let i = 0; i < want.length; i += 4) {
    if (drawn[i] !== want[i] || drawn[i + 1] !== want[i + 1] || drawn[i + 2] !== want[i + 2] || drawn[i + 3] !== want[i + 3])
      wrong.push(i / 4);
  }
  const where = (p) =>
    `(${p % w}, ${Math.floor(p / w)}) drawn ${[...drawn.subarray(p * 4, p * 4 + 4)]}, expected ${[...want.subarray(p * 4, p * 4 + 4)]}`;
  assert.equal(
    wrong.length,
    0,
    `${wrong.length} of ${w * h} pixels differ from the values' colours, first ${wrong.slice(0, 3).map(where).join("; ")}`,
  );
}
