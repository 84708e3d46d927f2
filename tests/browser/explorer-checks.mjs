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
    .map((e) => relative(dir, e.parentPath ?? e.path).split(sep).join("/"))
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
      if (!seen.has(b.dataset.path)) seen.set(b.dataset.path, { path: b.dataset.path, kind: b.dataset.kind, text: b.innerText, level: Number(li.getAttribute("aria-level")), top: li.offsetTop });
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
 * and the RGBA at each [x, y] of `points`.
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
  return { width: canvas.width, height: canvas.height, opaque, colours: colours.size, points: points.map(at) };
}

/** The points {@link previewPixels} reads for a 2-D array: where its minimum and its maximum are. */
export function extremePoints(values, [, w]) {
  const at = (i) => [i % w, Math.floor(i / w)];
  return [at(values.indexOf(Math.min(...values))), at(values.indexOf(Math.max(...values)))];
}

/** Asserts the preview of a `shape` array: every pixel drawn, many colours, the extremes in viridis' end colours. */
export function assertPreview(pixels, [h, w]) {
  assert.deepEqual([pixels.width, pixels.height], [w, h]);
  assert.equal(pixels.opaque, w * h, "every pixel drawn");
  assert.ok(pixels.colours > 100, `${pixels.colours} colours`);
  assert.deepEqual(pixels.points[0], [0x44, 0x01, 0x54, 255], "the minimum in viridis' first colour");
  assert.deepEqual(pixels.points[1], [0xfd, 0xe7, 0x25, 255], "the maximum in viridis' last colour");
}
