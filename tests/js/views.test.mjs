// The views part through the public API in Node, on data written by ome-zarr-py 0.21,
// ngff-zarr 0.50 and xarray 2026.9 (tests/fixtures/views/) served over HTTP without listing:
// imagePicture against the picture reference.py computes with zarr-python (±2 per channel),
// labels over it too; variablePlane against zarr-python's values, CF-decoded and north up;
// decodeTimes against xarray's decode_cf; describe of a plate and a dataset; check's problems
// in a validation; the part loaded once, and bad input refused with ZomErrors.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FetchStore, imagePicture, isZomError, loadViews, openImage, variablePlane } from "zom";
import { detectConventions, validateHierarchy, walk } from "zom/validate";
import { PYTHON } from "../../scripts/setup.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures } from "./helpers.mjs";

const views = join(fixtures, "views");
const expected = JSON.parse(readFileSync(join(views, "expected.json"), "utf8"));
let server;

before(async () => {
  server = await startServer({ root: views });
});
after(() => server?.close());

const store = (name) => new FetchStore(`${server.url}/${name}/`);

function reference(hierarchy, image, level, labels) {
  const args = [join(views, "reference.py"), join(views, hierarchy), image, level, ...(labels ? ["--labels", labels] : [])];
  const out = JSON.parse(execFileSync(PYTHON, args, { encoding: "utf8", maxBuffer: 64 << 20, timeout: 60_000 }));
  return { width: out.width, height: out.height, rgba: Buffer.from(out.rgba, "base64") };
}

function assertSame(got, want, what) {
  assert.equal(got.width, want.width, `${what}: width`);
  assert.equal(got.height, want.height, `${what}: height`);
  let worst = 0;
  for (let i = 0; i < want.rgba.length; i++) worst = Math.max(worst, Math.abs(got.rgba[i] - want.rgba[i]));
  assert.ok(worst <= 2, `${what}: a channel differs by ${worst}`);
}

test("imagePicture: the active channels in their omero colours at the lowest level that fills the picture, labels over them", async () => {
  for (const hierarchy of ["ome-0.5-image", "ome-0.4-image"]) {
    const pic = await imagePicture(store(hierarchy), "", { width: 100, height: 100 });
    assert.equal(pic.level, 1, `${hierarchy}: 128² is the lowest level at least 100² (levels 256², 128², 64²)`);
    assert.deepEqual(
      pic.channels.map((c) => c.label),
      ["DAPI", "GFP"],
      "mCherry is inactive",
    );
    assertSame(pic, reference(hierarchy, "", "s1"), `${hierarchy} at s1`);
    const labelled = await imagePicture(store(hierarchy), "", { width: 60, height: 60, labels: "cells" });
    assert.equal(labelled.level, 2);
    assertSame(labelled, reference(hierarchy, "", "s2", "cells"), `${hierarchy} at s2 with labels`);
  }
  const ngff = await imagePicture(store("ngff-zarr-0.5-image"), "", { width: 128, height: 128 });
  assertSame(ngff, reference("ngff-zarr-0.5-image", "", "scale0/image"), "ngff-zarr's image");
  // A field of a plate, with a channel switched off: only the other is drawn.
  const field = await imagePicture(store("ome-0.5-plate"), "B/3/0", { width: 32, height: 32, channels: [{ active: false }] });
  assert.equal(field.channels.length, 1);
  assert.equal(field.channels[0].color, "FF00FF");
});

test("imagePicture opened alone reads the metadata of the levels its size depends on, from the smallest up", async () => {
  // Levels 256², 128², 64²: a 60² picture needs s2's shape only, 100² s2's and s1's, 200² all three.
  // ome-0.4-image is zarr v2 (.zarray, chunks "0.0.0").
  for (const [hierarchy, size, level, read] of [
    ["ome-0.5-image", 60, 2, ["s2"]],
    ["ome-0.5-image", 100, 1, ["s1", "s2"]],
    ["ome-0.5-image", 200, 0, ["s0", "s1", "s2"]],
    ["ome-0.4-image", 60, 2, ["s2"]],
  ]) {
    server.resetStats();
    const pic = await imagePicture(store(hierarchy), "", { width: size, height: size });
    assert.equal(pic.level, level, `${size}²`);
    const paths = server.stats.log.map((e) => decodeURIComponent(new URL(e.url, "http://x").pathname).replace(`/${hierarchy}/`, ""));
    const levelDocs = [...new Set(paths.filter((p) => /^s\d\/(zarr\.json|\.zarray|\.zattrs)$/.test(p)).map((p) => p.split("/")[0]))];
    assert.deepEqual(levelDocs.sort(), read, `${hierarchy} ${size}²: the level documents read`);
    assert.ok(
      paths.every((p) => /^(zarr\.json|\.zgroup|\.zattrs|\.zmetadata)$/.test(p) || /^s\d\//.test(p)),
      `${hierarchy} ${size}²: nothing but the image's and its levels' keys: ${paths}`,
    );
    assert.ok(
      paths.some((p) => /^s\d\/(c\/)?\d/.test(p) && p.startsWith(`s${level}/`)),
      `${hierarchy} ${size}²: chunks of s${level} read`,
    );
    assertSame(pic, reference(hierarchy, "", `s${level}`), `${hierarchy} ${size}² at s${level}`);
  }
});

test("openImage holds the levels' arrays, and the labels group when asked", async () => {
  const zom = await openImage(store("ome-0.5-image"), "", { labels: true });
  assert.deepEqual(Object.keys(zom.members).sort(), ["labels", "s0", "s1", "s2"]);
  const view = (await loadViews()).describe(zom, "").view;
  assert.deepEqual(
    view.levels.map((l) => l.shape),
    [
      [3, 256, 256],
      [3, 128, 128],
      [3, 64, 64],
    ],
  );
  assert.deepEqual(view.labels, [{ name: "cells", node: "labels/cells", present: false }]);
  await assert.rejects(openImage(store("xarray-tas"), ""), (e) => isZomError(e) && e.code === "InvalidMetadata");
});

test("variablePlane: CF-decoded values, north up, with their coordinates", async () => {
  const plane = await variablePlane(store("xarray-tas"), "", "pr", { indices: [0] });
  assert.equal(plane.y.flipped, true, "latitude stored south to north");
  assert.equal(plane.y.values[0], 87.5);
  assert.equal(plane.x.values[0], 0);
  const samples = expected["xarray-tas"].samples.pr.values;
  assert.ok(
    samples.some((s) => s.value === null),
    "a masked sample among them",
  );
  for (const {
    index: [, lat, lon],
    value: want,
  } of samples) {
    const row = plane.height - 1 - lat;
    const got = plane.values[row * plane.width + lon];
    if (want === null) assert.ok(Number.isNaN(got), `pr[0, ${lat}, ${lon}] is masked`);
    else assert.ok(Math.abs(got - want) < 1e-9, `pr[0, ${lat}, ${lon}]: ${got}, xarray ${want}`);
  }
  const tos = await variablePlane(store("xarray-noleap"), "", "tos");
  assert.equal(tos.y.flipped, false, "latitude stored north to south");
  assert.equal(tos.y.values[0], 87.5);
});

test("decodeTimes: the dates xarray decodes, in their calendars", async () => {
  const v = await loadViews();
  for (const [hierarchy, times] of Object.entries({ "xarray-tas": ["time"], "xarray-noleap": ["time", "time360"] })) {
    for (const name of times) {
      const t = expected[hierarchy].times[name];
      const stored = JSON.parse(
        execFileSync(
          PYTHON,
          [
            "-c",
            "import json,sys,zarr; print(json.dumps([int(x) for x in zarr.open_array(sys.argv[1], mode='r')[:]]))",
            join(views, hierarchy, name),
          ],
          { encoding: "utf8" },
        ),
      );
      assert.deepEqual(
        v.decodeTimes(stored, t.units, t.calendar),
        t.values.map((d) => d.replace(" ", "T")),
        `${hierarchy} ${name}`,
      );
    }
  }
  assert.throws(
    () => v.decodeTimes([1], "fortnights since 2000-01-01", "standard"),
    (e) => isZomError(e) && e.code === "InvalidMetadata",
  );
  assert.throws(
    () => v.decodeTimes([1], "days since 2000-01-01", "martian"),
    (e) => isZomError(e) && e.code === "InvalidMetadata",
  );
});

test("describe: a plate's wells placed from its metadata, a dataset's summary; check adds what the pictures depend on", async () => {
  const v = await loadViews();
  assert.equal(await loadViews(), v, "loaded once");
  const plate = await walk(store("ome-0.5-plate"));
  const { view, problems } = v.describe(plate, "");
  assert.equal(view.kind, "plate");
  assert.deepEqual(
    view.wells.map((w) => [w.path, w.row, w.column, w.present]),
    [
      ["A/1", 0, 0, true],
      ["A/2", 0, 1, true],
      ["A/3", 0, 2, true],
      ["B/1", 1, 0, true],
      ["B/2", 1, 1, true],
      ["B/3", 1, 2, true],
    ],
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(
    v.describe(plate, "A/1").view.images.map((f) => f.node),
    ["A/1/0", "A/1/1"],
  );
  const tas = await walk(store("xarray-tas"));
  const dataset = v.describe(tas, "").view;
  assert.deepEqual(dataset.dimensions, [
    { name: "time", size: 12 },
    { name: "lat", size: 36 },
    { name: "lon", size: 72 },
  ]);
  assert.deepEqual(
    dataset.data_variables.map((d) => [d.name, d.units]),
    [
      ["pr", "mm/day"],
      ["tas", "K"],
    ],
  );
  // A calendar that cannot be decoded: located at the time coordinate's attribute, credited to xarray.
  tas.members.time.attributes.calendar = "martian";
  const report = validateHierarchy(tas, { specs: "auto" });
  const added = v.check(tas, detectConventions(tas), report.problems);
  assert.equal(added.length, 1, JSON.stringify(added));
  assert.equal(added[0].path, "time");
  assert.deepEqual(added[0].loc, ["attributes", "calendar"]);
  assert.equal(added[0].rule, "view");
  assert.match(added[0].spec, /^xarray/);
});

test("the pixels' functions refuse what does not fit, with ZomErrors", async () => {
  const v = await loadViews();
  assert.throws(
    () => v.composite([new Uint16Array(3)], [{ color: "FF0000" }], 2, 2),
    (e) => isZomError(e) && e.code === "InvalidArgument",
  );
  assert.throws(
    () => v.composite([new Uint8Array(4)], [{ color: "red" }], 2, 2),
    (e) => isZomError(e) && e.code === "InvalidArgument",
  );
  const rgba = v.composite([new Uint8Array([0, 255])], [{ color: "00FF00", window: [0, 255] }], 2, 1);
  assert.deepEqual([...rgba], [0, 0, 0, 255, 0, 255, 0, 255]);
  v.overlayLabels(rgba, new Uint8Array([1, 0]), [{ label_value: 1, rgba: [255, 0, 0, 255] }], 1);
  assert.deepEqual([...rgba], [255, 0, 0, 255, 0, 255, 0, 255]);
  // Hostile metadata is described, never thrown on.
  const hostile = v.describe({
    zarr_format: 3,
    node_type: "group",
    attributes: { ome: { version: "0.5", multiscales: [{ axes: 7, datasets: [{ path: {} }] }], omero: { channels: "x" } } },
  });
  assert.ok(Array.isArray(hostile.problems));
});
