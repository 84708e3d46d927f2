// The explorer's views in three engines — Chromium, Firefox ESR and WebKit (engines.mjs) — on
// data written by ome-zarr-py 0.21, ngff-zarr 0.50 and xarray 2026.9 (tests/fixtures/views/),
// served by a plain static host on another origin (no listing, CORS):
//   image    the OME-Zarr 0.5 image (3 channels, the third inactive; labels) drawn in its
//            channels' colours and windows: every pixel within ±2 of the picture
//            tests/fixtures/views/reference.py computes with zarr-python from the same level and
//            omero settings; then with its labels over it, the same; the levels table and the
//            "open in" links; the same for OME-Zarr 0.4 (zarr v2) and ngff-zarr's image
//   plate    the 2 × 3 plate as a grid of wells from its metadata, each well's first field
//            drawn, a well's picture equal to the reference of its field
//   dataset  xarray's tas(time, lat, lon): north up (the top row is the cold north pole), the
//            latitude's values at the edges (87.5 at the top), the time slider in the dates
//            xarray's decode_cf gives, the value under the pointer in K; a noleap dataset with
//            latitude running north to south (not flipped) and a 360_day variable's dates
// Screenshots of each view (Chromium's go to docs/, the others' to test-output/views/).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PYTHON } from "../../scripts/setup.mjs";
import { serveExplorer } from "../../scripts/start.mjs";
import { wwwDist } from "../../www/build.mjs";
import { repoRoot } from "../js/helpers.mjs";
import { startServer } from "../server/server.mjs";
import { ENGINES, launchEngine, missing } from "./engines.mjs";
import { VIRIDIS } from "./explorer-checks.mjs";

const views = join(repoRoot, "tests", "fixtures", "views");
const shots = join(repoRoot, "test-output", "views");
const docs = join(repoRoot, "docs", "images");
const expected = JSON.parse(readFileSync(join(views, "expected.json"), "utf8"));
/** The dates xarray decoded (cftime writes a space where ISO 8601 and zom write "T"). */
const dates = (hierarchy, coordinate) => expected[hierarchy].times[coordinate].values.map((d) => d.replace(" ", "T"));

let explorer;
let data;

before(async () => {
  assert.ok(existsSync(join(wwwDist, "index.html")), "www/dist is missing: run `npm run build` first");
  mkdirSync(shots, { recursive: true });
  mkdirSync(docs, { recursive: true });
  explorer = await serveExplorer({ port: 0 });
  // Another origin, as a user's data host: no listing, no consolidated metadata but what the writers wrote.
  data = await startServer({ root: join(repoRoot, "tests", "fixtures") });
});

after(async () => {
  await Promise.all([explorer?.close(), data?.close()]);
});

/** The reference RGBA of an image level, from zarr-python (reference.py). */
function reference(hierarchy, image, level, labels) {
  const args = [join(views, "reference.py"), join(views, hierarchy), image, level];
  if (labels) args.push("--labels", labels);
  const out = JSON.parse(execFileSync(PYTHON, args, { encoding: "utf8", maxBuffer: 64 << 20, timeout: 60_000 }));
  return { width: out.width, height: out.height, rgba: Buffer.from(out.rgba, "base64") };
}

/** Asserts two RGBA pictures are equal within ±2 per channel; says where the first difference is. */
function assertSamePicture(actual, want, what) {
  assert.equal(actual.width, want.width, `${what}: width`);
  assert.equal(actual.height, want.height, `${what}: height`);
  assert.equal(actual.rgba.length, want.rgba.length, `${what}: bytes`);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.rgba.length; i++) {
    const d = Math.abs(actual.rgba[i] - want.rgba[i]);
    if (d > worst) [worst, at] = [d, i];
  }
  const px = at >> 2;
  assert.ok(
    worst <= 2,
    `${what}: pixel (${px % want.width}, ${Math.floor(px / want.width)}) channel ${at & 3} is ${actual.rgba[at]}, the reference ${want.rgba[at]}`,
  );
  // Not a blank picture: the reference has structure, and so must what was drawn.
  assert.ok(
    new Set(Array.from({ length: want.width * want.height }, (_, p) => actual.rgba.readUInt32LE(p * 4))).size > 8,
    `${what}: fewer than 9 colours`,
  );
}

/**
 * The reference map of a variable's first plane: its values as xarray decodes them (zarr-python
 * reads, CF's scale, offset and fill applied here), rows reversed when asked, in viridis from
 * the least to the greatest finite value; masked values transparent.
 */
function mapReference(hierarchy, name, { flipRows }) {
  const script = [
    "import json, sys, numpy as np, zarr",
    "a = zarr.open_array(sys.argv[1], mode='r')",
    "v = np.asarray(a[(0,) * (a.ndim - 2)], dtype='float64')",
    "attrs = dict(a.attrs)",
    "fill = attrs.get('_FillValue', a.metadata.fill_value if a.metadata.zarr_format == 2 else None)",
    "mask = np.isnan(v) if fill is None or isinstance(fill, str) else (v == float(fill)) | np.isnan(v)",
    "v = v * attrs.get('scale_factor', 1.0) + attrs.get('add_offset', 0.0)",
    "v[mask] = np.nan",
    "print(json.dumps({'shape': list(v.shape), 'values': [None if np.isnan(x) else float(x) for x in v.ravel()]}))",
  ].join("\n");
  const out = JSON.parse(
    execFileSync(PYTHON, ["-c", script, join(views, hierarchy, name)], { encoding: "utf8", maxBuffer: 64 << 20, timeout: 60_000 }),
  );
  const [height, width] = out.shape;
  const finite = out.values.filter((v) => v !== null);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const from = flipRows ? height - 1 - y : y;
    for (let x = 0; x < width; x++) {
      const v = out.values[from * width + x];
      if (v === null) continue;
      const colour = VIRIDIS[max > min ? Math.round(((v - min) / (max - min)) * 255) : 128];
      rgba.set([...colour, 255], (y * width + x) * 4);
    }
  }
  return { width, height, rgba };
}

/** The pixels of the canvas matching `selector`, read in the page. */
async function canvasPixels(e, selector) {
  const got = await e.evaluate((sel) => {
    const canvas = document.querySelector(sel);
    if (!(canvas instanceof HTMLCanvasElement)) return null;
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let binary = "";
    for (let i = 0; i < data.length; i++) binary += String.fromCharCode(data[i]);
    return { width: canvas.width, height: canvas.height, rgba: btoa(binary), level: canvas.dataset.level ?? null };
  }, selector);
  assert.ok(got !== null, `no canvas ${selector}`);
  return { ...got, rgba: Buffer.from(got.rgba, "base64") };
}

/** Opens the explorer on a hierarchy of tests/fixtures/views/ on the data host, at a node path. */
async function openHierarchy(e, name, path = "") {
  await openFixture(e, `views/${name}`, path);
}

/** Opens the explorer on a hierarchy of tests/fixtures/ on the data host, at a node path. */
async function openFixture(e, dir, path = "") {
  await e.open(`${explorer.url}?url=${encodeURIComponent(`${data.url}/${dir}/`)}#/${path}`);
}

/** Waits for the View card's `count` pictured images (at least one), all drawn; gives their nodes. */
async function cardsDrawn(e, what, count = null) {
  await waitForView(e, ".cards", what);
  await e.waitFor(
    (n) => {
      const slots = [...document.querySelectorAll("#view .card-image .thumb-slot")];
      return slots.length > 0 && (n === null || slots.length === n) && slots.every((s) => s.dataset.state === "drawn");
    },
    count,
    { what: `${what}: every picture drawn` },
  );
  return e.evaluate(() => [...document.querySelectorAll("#view .card-image")].map((c) => c.dataset.node));
}

/** Waits for `selector` in the View card; fails at once, with what the card says, when it shows a failure instead. */
async function waitForView(e, selector, what) {
  const got = await e.waitFor(
    (sel) => {
      const card = document.querySelector("#view");
      if (card?.querySelector(sel)) return "drawn";
      const failure = card?.querySelector(".failure-message");
      return failure ? `failed: ${failure.textContent}` : null;
    },
    selector,
    { what, timeout: 60_000 },
  );
  assert.equal(got, "drawn", `${what}: ${got}`);
}

const drawnCount = () => document.querySelector("#view .view-body")?.dataset.drawn ?? null;

async function imageJourney(e, { hierarchy, levels }) {
  await openHierarchy(e, hierarchy);
  await e.waitFor(() => document.querySelector("#image-canvas") !== null && document.body.dataset.state === "ready", null, {
    what: `${hierarchy}: the image drawn and the walk done`,
    timeout: 60_000,
  });
  await e.waitFor(() => document.querySelector("#view .view-body")?.dataset.drawn !== undefined, null, { what: "the picture" });
  const drawn = await canvasPixels(e, "#image-canvas");
  const level = levels[Number(drawn.level)];
  assert.ok(level !== undefined, `${hierarchy}: the page drew level ${drawn.level}`);
  assertSamePicture(drawn, reference(hierarchy, "", level), `${hierarchy} at ${level}`);
  const facts = await e.evaluate(() => ({
    levels: [...document.querySelectorAll("table.levels tbody tr td:first-child")].map((td) => td.textContent),
    viewers: [...document.querySelectorAll(".open-in a")].map((a) => a.dataset.viewer),
    labels: [...document.querySelectorAll("#labels-pick option")].map((o) => o.value),
  }));
  assert.deepEqual(facts.levels, levels, `${hierarchy}: the levels table`);
  assert.ok(facts.viewers.includes("vizarr") && facts.viewers.includes("neuroglancer"), `${hierarchy}: open-in links ${facts.viewers}`);
  return { drawn, level, labels: facts.labels };
}

async function labelsJourney(e, hierarchy, level) {
  const before = await e.evaluate(drawnCount);
  await e.evaluate(() => {
    const pick = document.querySelector("#labels-pick");
    pick.value = "cells";
    pick.dispatchEvent(new Event("change"));
  });
  await e.waitFor((was) => (document.querySelector("#view .view-body")?.dataset.drawn ?? null) !== was, before, {
    what: "the picture with labels",
  });
  assertSamePicture(await canvasPixels(e, "#image-canvas"), reference(hierarchy, "", level, "cells"), `${hierarchy} with labels`);
}

async function plateJourney(e) {
  await openHierarchy(e, "ome-0.5-plate");
  await e.waitFor(() => document.querySelectorAll("#plate-grid .thumb-slot[data-state=drawn]").length === 6, null, {
    what: "six wells drawn",
    timeout: 60_000,
  });
  const wells = await e.evaluate(() => [...document.querySelectorAll("#plate-grid .well")].map((w) => w.dataset.well));
  assert.deepEqual(wells, ["A/1", "A/2", "A/3", "B/1", "B/2", "B/3"]);
  const slot = await e.evaluate(() => {
    const s = document.querySelector('#plate-grid .well[data-well="B/3"] .thumb-slot');
    s.querySelector("canvas").id = "well-b3";
    return { image: s.dataset.image, level: s.dataset.level };
  });
  assert.equal(slot.image, "B/3/0", "a well shows its first field");
  const levelPath = expected["ome-0.5-plate"].fields["B/3/0"].levels[Number(slot.level)].path;
  assertSamePicture(await canvasPixels(e, "#well-b3"), reference("ome-0.5-plate", "B/3/0", levelPath), "well B/3's first field");
  await e.waitFor(() => document.body.dataset.state === "ready", null, { what: "the plate's walk" });
  await e.waitFor(() => document.querySelectorAll("#plate-grid .mark[data-verdict=good]").length === 6, null, { what: "six valid marks" });
}

/** Picks the variable `name` in the map's picker and waits for its map. */
async function pickVariable(e, name) {
  const before = await e.evaluate(drawnCount);
  await e.evaluate((n) => {
    const pick = document.querySelector("#variable-pick");
    pick.value = n;
    pick.dispatchEvent(new Event("change"));
  }, name);
  await e.waitFor(
    ([was, n]) => {
      const body = document.querySelector("#view .view-body");
      return body !== null && body.dataset.variable === n && body.dataset.drawn !== was;
    },
    [before, name],
    { what: `${name} drawn` },
  );
}

async function datasetJourney(e) {
  await openHierarchy(e, "xarray-tas");
  await waitForView(e, "#plane-canvas", "the first variable drawn");
  // The panel is drawn again as the walk's tree, summaries and verdict arrive: then it stays.
  await e.waitFor(() => document.body.dataset.state === "ready", null, { what: "the walk" });
  await pickVariable(e, "tas");
  const times = dates("xarray-tas", "time");
  const page = await e.evaluate(() => ({
    y: [...document.querySelectorAll(".axis-y span")].map((s) => s.textContent),
    x: [...document.querySelectorAll(".axis-x span")].map((s) => s.textContent),
    time: document.querySelector('output.slider-value[data-dim="time"]')?.textContent,
    summary: document.querySelector("#dataset-summary")?.textContent ?? "",
  }));
  assert.deepEqual(page.y, ["87.5", "lat (degrees_north)", "-87.5"], "north up, latitudes at the edges");
  assert.deepEqual(page.x, ["0", "lon (degrees_east)", "355"], "east right, longitudes at the edges");
  assert.equal(page.time, times[0], "the time slider shows the first date");
  assert.match(page.summary, /Dimensions: \(time: 12, lat: 36, lon: 72\)/);
  // Every pixel: zarr-python's tas[0], its rows reversed (the latitudes run south to north), in viridis.
  assertSamePicture(
    await canvasPixels(e, "#plane-canvas"),
    mapReference("xarray-tas", "tas", { flipRows: true }),
    "tas at the first time, north up",
  );
  // The last time step's date.
  await e.evaluate(() => {
    const input = document.querySelector('input[data-dim="time"]');
    input.value = input.max;
    input.dispatchEvent(new Event("input"));
  });
  await e.waitFor((want) => document.querySelector('output.slider-value[data-dim="time"]')?.textContent === want, times.at(-1), {
    what: "the last date",
  });
  // The value under the pointer, in kelvin.
  const readout = await e.evaluate(() => {
    const canvas = document.querySelector("#plane-canvas");
    const r = canvas.getBoundingClientRect();
    canvas.dispatchEvent(new PointerEvent("pointermove", { clientX: r.left + 2, clientY: r.top + 2, bubbles: true }));
    return document.querySelector("#plane-readout")?.textContent ?? "";
  });
  assert.match(readout, /^lat 87\.5 degrees_north · lon 0 degrees_east · tas = [\d.]+ K \(stored [\d.]+\)$/);

  await openHierarchy(e, "xarray-noleap");
  await waitForView(e, "#plane-canvas", "the first variable drawn");
  await e.waitFor(() => document.body.dataset.state === "ready", null, { what: "the walk" });
  await pickVariable(e, "tos");
  assertSamePicture(
    await canvasPixels(e, "#plane-canvas"),
    mapReference("xarray-noleap", "tos", { flipRows: false }),
    "tos, as stored (north first)",
  );
  const y = await e.evaluate(() => [...document.querySelectorAll(".axis-y span")].map((s) => s.textContent));
  assert.deepEqual(y, ["87.5", "lat (degrees_north)", "-87.5"], "latitude stored north to south, not flipped");
  assert.equal(
    await e.evaluate(() => document.querySelector('output.slider-value[data-dim="time"]')?.textContent),
    dates("xarray-noleap", "time")[0],
  );
  await pickVariable(e, "sos");
  // Stored north to south: drawn as stored; the packed int16 decoded (scale 0.001, offset 30), the masked box transparent.
  assertSamePicture(await canvasPixels(e, "#plane-canvas"), mapReference("xarray-noleap", "sos", { flipRows: false }), "sos, as stored");
  await e.evaluate(() => {
    const input = document.querySelector('input[data-dim="time360"]');
    input.value = "1";
    input.dispatchEvent(new Event("input"));
  });
  await e.waitFor(
    (want) => document.querySelector('output.slider-value[data-dim="time360"]')?.textContent === want,
    dates("xarray-noleap", "time360")[1],
    { what: "the 360_day date 2026-02-30" },
  );
}

async function collectionsJourney(e) {
  // A well opened from the address before the walk ends: its two fields, pictured.
  await openHierarchy(e, "ome-0.5-plate", "B/2");
  assert.deepEqual(await cardsDrawn(e, "well B/2's fields", 2), ["B/2/0", "B/2/1"]);
  // bioformats2raw's series (metadata only: the pictures are of the fill value) and a 0.6 scene's images.
  await openFixture(e, "conventions/ome-0.5-bioformats2raw");
  assert.deepEqual(await cardsDrawn(e, "the bioformats2raw series", 2), ["0", "1"]);
  await openFixture(e, "conventions-0.6/ome-0.6-scene");
  assert.ok((await cardsDrawn(e, "the scene's images")).length >= 1);
}

for (const engine of ENGINES) {
  const reason = missing(engine);
  describe(`views in ${engine}`, { skip: reason ?? false, timeout: 600_000 }, () => {
    let e;
    const shot = (name) => e.screenshot(engine === "chromium" ? join(docs, `explorer-${name}.png`) : join(shots, `${engine}-${name}.png`));
    before(async () => {
      e = await launchEngine(engine, { prefix: "zom-views-", viewport: { width: 1280, height: 900 } });
    });
    after(async () => {
      await e?.close();
    });

    test("an OME-Zarr 0.5 image in its channels' colours, then with its labels", async () => {
      const { level } = await imageJourney(e, { hierarchy: "ome-0.5-image", levels: ["s0", "s1", "s2"] });
      await labelsJourney(e, "ome-0.5-image", level);
      await shot("image");
    });
    test("an OME-Zarr 0.4 image (zarr v2) and ngff-zarr's image", async () => {
      await imageJourney(e, { hierarchy: "ome-0.4-image", levels: ["s0", "s1", "s2"] });
      await imageJourney(e, { hierarchy: "ngff-zarr-0.5-image", levels: ["scale0/image", "scale1/image"] });
    });
    test("a plate as a grid of wells, each its first field", async () => {
      await plateJourney(e);
      await shot("plate");
    });
    test("a well's fields, bioformats2raw's series and a 0.6 scene's images, pictured", async () => {
      await collectionsJourney(e);
      await openHierarchy(e, "ome-0.5-plate", "A/3");
      await cardsDrawn(e, "well A/3's fields", 2);
      await e.waitFor(() => document.body.dataset.state === "ready", null, { what: "the plate's walk" });
      await shot("well");
    });
    test("xarray datasets as maps, north up, with dates", async () => {
      await datasetJourney(e);
      await openHierarchy(e, "xarray-tas");
      await waitForView(e, "#plane-canvas", "the first variable drawn");
      await pickVariable(e, "tas");
      await e.waitFor(() => document.body.dataset.state === "ready", null, { what: "the walk" });
      await shot("dataset");
    });
    test("no console error", async () => {
      assert.deepEqual(await e.consoleErrors(), []);
    });
  });
}
