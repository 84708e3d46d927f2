/**
 * An OME-Zarr image's page: its picture (the active channels in their colours and windows,
 * composited by zom), a toggle, colour and window per channel, a level picker, its labels over
 * it, sliders over time and z, the levels with their physical sizes, and links that open the
 * image in the web viewers. The worker reads and composites; this module draws.
 * @module
 */
import type { ImageChannel, ImageView } from "zom/manual";
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { h, replace, settle } from "./dom.js";
import { failureBox } from "./failure.js";
import { shapeText } from "./model.js";
import type { PictureRequest, PictureResult } from "./protocol.js";

/** The largest size a picture is drawn at, in CSS pixels. */
const BOX = { width: 640, height: 480 };

/** The CSS pixels per picture pixel that show a `width` × `height` picture at most `box` large (small pictures enlarged up to 16×). */
export function fitScale(width: number, height: number, box: { width: number; height: number }): number {
  return Math.min(box.width / width, box.height / height, 16);
}

/** Draws RGBA into a new canvas at its own size, shown at most `box` large (small pictures enlarged). */
export function pictureCanvas(
  rgba: Uint8ClampedArray,
  width: number,
  height: number,
  box: { width: number; height: number },
  cls = "canvas.image",
): HTMLCanvasElement {
  const canvas = h(cls as "canvas.image", { width, height });
  const ctx = canvas.getContext("2d");
  if (ctx !== null && width > 0 && height > 0) ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba), width, height), 0, 0);
  const scale = fitScale(width, height, box);
  canvas.style.width = `${Math.max(1, Math.round(width * scale))}px`;
  canvas.style.height = `${Math.max(1, Math.round(height * scale))}px`;
  return canvas;
}

/** The web viewers that open an OME-Zarr image from its URL, and how. */
const VIEWERS: { name: string; link: (url: string, v3: boolean) => string }[] = [
  { name: "vizarr", link: (url) => `https://hms-dbmi.github.io/vizarr/?source=${encodeURIComponent(url)}` },
  {
    name: "neuroglancer",
    link: (url, v3) =>
      `https://neuroglancer-demo.appspot.com/#!${encodeURIComponent(JSON.stringify({ layers: [{ type: "image", source: `${v3 ? "zarr3" : "zarr2"}://${url}`, name: "image" }] }))}`,
  },
  { name: "itk-vtk-viewer", link: (url) => `https://kitware.github.io/itk-vtk-viewer/app/?image=${encodeURIComponent(url)}` },
  { name: "Vol-E", link: (url) => `https://vole.allencell.org/viewer?url=${encodeURIComponent(url)}` },
  { name: "ome-ngff-validator", link: (url) => `https://ome.github.io/ome-ngff-validator/?source=${encodeURIComponent(url)}` },
];

/** "Open in" links for an image at `url` (http(s) only: a viewer cannot reach local data). */
export function openInLinks(url: string | null, v3: boolean): HTMLElement | null {
  if (url === null || !/^https?:\/\//i.test(url)) return null;
  return h(
    "p.open-in",
    null,
    "Open in ",
    VIEWERS.flatMap((v, i) => [
      i > 0 ? " · " : "",
      h("a", { href: v.link(url, v3), target: "_blank", rel: "noopener", dataset: { viewer: v.name } }, v.name),
    ]),
  );
}

/** A physical size: "0.5 µm". */
function physical(value: number, unit: string | null): string {
  const n = Number.parseFloat(value.toPrecision(6));
  const units: { [u: string]: string } = {
    micrometer: "µm",
    nanometer: "nm",
    millimeter: "mm",
    centimeter: "cm",
    meter: "m",
    angstrom: "Å",
    second: "s",
    millisecond: "ms",
  };
  return unit === null ? String(n) : `${n} ${units[unit] ?? unit}`;
}

/** The levels table: path, shape, chunks, data type, pixel size per space axis. */
function levelsTable(view: ImageView): HTMLElement {
  const space = view.axes.map((a, d) => ({ a, d })).filter(({ a }) => a.type === "space");
  return h(
    "table.levels",
    null,
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", null, "level"),
        h("th", null, "shape"),
        h("th", null, "chunks"),
        h("th", null, "data type"),
        space.map(({ a }) => h("th", null, `${a.name} pixel`)),
        h("th", null, "translation"),
      ),
    ),
    h(
      "tbody",
      null,
      view.levels.map((l, i) =>
        h(
          "tr",
          { dataset: { level: i } },
          h("td", null, h("code", null, l.path)),
          h("td", null, l.shape === null ? "—" : shapeText(l.shape)),
          h("td", null, l.chunks === null ? "—" : shapeText(l.chunks)),
          h("td", null, l.data_type ?? "—"),
          space.map(({ a, d }) => h("td", null, physical(l.scale[d] ?? 1, a.unit))),
          h("td", null, l.translation.map((t, d) => physical(t, view.axes[d]?.unit ?? null)).join(", ")),
        ),
      ),
    ),
  );
}

/** "RRGGBB" ↔ "#rrggbb" for colour inputs. */
const toCss = (c: string): string => `#${c.toLowerCase()}`;
const fromCss = (c: string): string => c.replace(/^#/, "").toUpperCase();

/**
 * Builds the image page of the image at `path` into `root`: `url` the hierarchy's URL (for
 * the viewer links) and `v3` its format.
 */
export function renderImageView(
  root: HTMLElement,
  path: string,
  view: ImageView,
  worker: ZomWorker,
  url: string | null,
  v3: boolean,
): void {
  const channels: ImageChannel[] = view.channels.map((c) => ({ ...c }));
  const level0 = view.levels[0]?.shape ?? null;
  const fixed: { t: number | null; z: number | null } = { t: null, z: null };
  let level: number | null = null;
  let labels: string | null = null;
  let generation = 0;
  const status = h("div.preview-status", { "aria-live": "polite" });
  const output = h("div.picture", { id: "image-picture" });

  const channelRows = channels.map((c, i) => {
    const on = h("input", { type: "checkbox", checked: c.active, "aria-label": `show ${c.label}`, dataset: { channel: i } });
    const colour = h("input", { type: "color", value: toCss(c.color), "aria-label": `${c.label} colour` });
    const start = h("input.window", {
      type: "number",
      value: c.window?.start ?? "",
      placeholder: "min",
      "aria-label": `${c.label} window start`,
    });
    const end = h("input.window", {
      type: "number",
      value: c.window?.end ?? "",
      placeholder: "max",
      "aria-label": `${c.label} window end`,
    });
    const changed = (): void => {
      c.active = on.checked;
      c.color = fromCss(colour.value);
      const [s, e] = [Number.parseFloat(start.value), Number.parseFloat(end.value)];
      c.window =
        Number.isFinite(s) && Number.isFinite(e) ? { start: s, end: e, min: c.window?.min ?? null, max: c.window?.max ?? null } : null;
      schedule();
    };
    for (const input of [on, colour, start, end]) input.addEventListener("change", changed);
    return h("label.channel", { dataset: { channel: i } }, on, colour, h("span.channel-label", null, c.label), start, "–", end);
  });

  const levelPick = h(
    "select",
    { id: "level-pick", "aria-label": "level" },
    h("option", { value: "" }, "fit"),
    view.levels.map((l, i) => h("option", { value: i }, `${l.path}${l.shape === null ? "" : ` (${shapeText(l.shape)})`}`)),
  );
  levelPick.addEventListener("change", () => {
    level = levelPick.value === "" ? null : Number(levelPick.value);
    schedule();
  });
  const labelPick =
    view.labels.length > 0 &&
    h(
      "select",
      { id: "labels-pick", "aria-label": "labels" },
      h("option", { value: "" }, "no labels"),
      view.labels.map((l) => h("option", { value: l.name }, `labels: ${l.name}`)),
    );
  if (labelPick) {
    labelPick.addEventListener("change", () => {
      labels = labelPick.value === "" ? null : labelPick.value;
      schedule();
    });
  }
  const slider = (axis: number | null, which: "t" | "z", initial: number | null): HTMLElement | null => {
    const n = axis === null || level0 === null ? 0 : (level0[axis] ?? 0);
    if (axis === null || n <= 1) return null;
    const start = Math.min(initial ?? (which === "z" ? Math.floor(n / 2) : 0), n - 1);
    fixed[which] = start;
    const value = h("output.slider-value", null, `${start} / ${n - 1}`);
    const input = h("input", {
      type: "range",
      min: 0,
      max: n - 1,
      value: start,
      step: 1,
      "aria-label": view.axes[axis]?.name ?? which,
      dataset: { axis: which },
    });
    input.addEventListener("input", () => {
      fixed[which] = Number(input.value);
      value.textContent = `${input.value} / ${n - 1}`;
      schedule();
    });
    return h("label.slider", null, h("span.slider-name", null, view.axes[axis]?.name ?? which), input, value);
  };
  const controls = h(
    "div.image-controls",
    null,
    h("div.channels", null, channelRows),
    h(
      "div.preview-controls",
      null,
      h("label.toggle", null, "level ", levelPick),
      labelPick,
      slider(view.time_axis, "t", view.default_t),
      slider(view.z_axis, "z", view.default_z),
    ),
  );
  replace(
    root,
    controls,
    status,
    output,
    h("h4", null, "Levels"),
    levelsTable(view),
    openInLinks(url === null ? null : new URL(path === "" ? "." : `${path}/`, url.endsWith("/") ? url : `${url}/`).href, v3),
  );

  let timer: number | undefined;
  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void draw(), 60);
  }

  async function draw(): Promise<void> {
    const mine = ++generation;
    status.textContent = "reading…";
    status.classList.add("busy");
    const t0 = performance.now();
    const request: PictureRequest = {
      path,
      width: BOX.width,
      height: BOX.height,
      level,
      labels,
      t: fixed.t,
      z: fixed.z,
      channels: channels.map((c) => ({ active: c.active, color: c.color, window: c.window })),
    };
    try {
      const { result } = await worker.call<"picture">({ type: "picture", ...request });
      if (mine !== generation) return;
      status.classList.remove("busy");
      drawPicture(result, Math.round(performance.now() - t0));
    } catch (e) {
      if (mine !== generation) return;
      status.classList.remove("busy");
      status.textContent = "";
      const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path, key: null };
      replace(output, failureBox(f, "Could not draw the image"));
    }
    settle(root);
  }

  function drawPicture(r: PictureResult, ms: number): void {
    const canvas = pictureCanvas(r.rgba, r.width, r.height, BOX);
    canvas.id = "image-canvas";
    canvas.dataset.level = String(r.level);
    const info = r.view.levels[r.level];
    const legend = h(
      "div.channel-legend",
      null,
      r.channels.map((c) =>
        h(
          "span.channel-key",
          null,
          h("span.swatch", { style: `background: #${c.color}` }),
          c.label,
          c.window === null ? "" : ` ${c.window.start}–${c.window.end}`,
        ),
      ),
    );
    replace(output, h("div.canvas-wrap", null, canvas), legend);
    status.textContent = `level ${info?.path ?? r.level} (${r.height} × ${r.width}), ${r.channels.length} channel${r.channels.length === 1 ? "" : "s"}${labels ? `, labels ${labels}` : ""}, read and composited in the worker in ${ms} ms`;
    root.dataset.drawn = String(generation);
  }

  void draw();
}
