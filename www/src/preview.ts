/**
 * The array preview: a 2-D slice of numbers drawn on a canvas in viridis with its min and max,
 * a slider per leading dimension, the chunk grid on demand and the value under the pointer; a
 * table for 1-D arrays, strings, datetimes, structs and complex numbers. The worker reads and
 * colours; this module only draws.
 * @module
 */
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { gradientCss } from "./colour.js";
import { h, replace } from "./dom.js";
import { failureBox } from "./failure.js";
import type { TreeNode, ZomNode } from "./model.js";
import type { ImageResult, TableResult } from "./protocol.js";

/** The largest size an image is drawn at on the page, in CSS pixels. */
const BOX = { width: 720, height: 480 };

/** Builds the preview of an array node (`zom`: its ZOM) into `root`, and starts its first read. */
export function renderPreview(root: HTMLElement, node: TreeNode, zom: ZomNode, worker: ZomWorker): void {
  const shape = Array.isArray(zom.shape) ? (zom.shape as number[]) : [];
  const names = Array.isArray(zom.dimension_names) ? (zom.dimension_names as (string | null)[]) : [];
  const leading = Math.max(0, shape.length - 2);
  const indices = new Array<number>(leading).fill(0);
  const dimLabel = (d: number): string => (names[d] ? `${names[d]} (dim ${d})` : `dim ${d}`);

  const status = h("div.preview-status", { "aria-live": "polite" });
  const output = h("div.preview-output");
  let showGrid = false;
  let last: ImageResult | null = null;
  let generation = 0;

  const sliders = indices.map((_, d) => {
    const max = Math.max(0, (shape[d] ?? 1) - 1);
    const value = h("output.slider-value", null, `0 / ${max}`);
    const input = h("input", {
      type: "range",
      min: 0,
      max,
      value: 0,
      step: 1,
      disabled: max === 0,
      "aria-label": dimLabel(d),
      dataset: { dim: d },
    });
    input.addEventListener("input", () => {
      indices[d] = Number(input.value);
      value.textContent = `${input.value} / ${max}`;
      schedule();
    });
    return h("label.slider", null, h("span.slider-name", null, dimLabel(d)), input, value);
  });
  const gridToggle = h("input", { type: "checkbox", id: "grid-toggle" });
  gridToggle.addEventListener("change", () => {
    showGrid = gridToggle.checked;
    if (last !== null) drawGrid(last);
  });
  const controls = h("div.preview-controls", null, sliders, shape.length >= 2 && h("label.toggle", null, gridToggle, " chunk grid"));
  replace(root, controls, status, output);

  let timer: number | undefined;
  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void read(), 60);
  }

  async function read(): Promise<void> {
    const mine = ++generation;
    status.textContent = "reading…";
    status.classList.add("busy");
    const t0 = performance.now();
    try {
      const { result } = await worker.call<"read">({ type: "read", path: node.path, indices: [...indices] });
      if (mine !== generation) return;
      const ms = Math.round(performance.now() - t0);
      status.classList.remove("busy");
      if (result.kind === "image") {
        last = result;
        drawImage(result);
        const plane = shape.slice(-2).join(" × ");
        const stride = result.window
          ? ` (the top-left corner of ${plane})`
          : result.step[0] > 1
            ? ` (every ${ordinal(result.step[0])} row and column of ${plane})`
            : "";
        const where = result.decodedInWorkers > 0 ? `, ${result.decodedInWorkers} chunks by zom's decode workers` : "";
        status.textContent = `${result.height} × ${result.width} values${stride}, read and decoded in the worker in ${ms} ms${where}`;
      } else {
        last = null;
        drawTable(result);
        const shown = result.rows.length < result.total ? ` (first ${result.rows.length} shown)` : "";
        status.textContent = `${result.total} value${result.total === 1 ? "" : "s"}${shown}, read in ${ms} ms`;
      }
    } catch (e) {
      if (mine !== generation) return;
      status.classList.remove("busy");
      status.textContent = "";
      const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path: node.path, key: null };
      replace(output, failureBox(f, "Could not read the values"));
    }
  }

  let overlay: HTMLCanvasElement | null = null;
  let scale = 1;

  function drawImage(r: ImageResult): void {
    const canvas = h("canvas.image", { id: "preview-canvas", width: r.width, height: r.height });
    const ctx = canvas.getContext("2d");
    if (ctx !== null && r.width > 0 && r.height > 0)
      ctx.putImageData(new ImageData(new Uint8ClampedArray(r.rgba), r.width, r.height), 0, 0);
    // Small slices are enlarged (pixelated), up to 64 screen pixels per value.
    scale = Math.min(BOX.width / r.width, BOX.height / r.height, 64);
    const w = Math.max(1, Math.round(r.width * scale));
    const hgt = Math.max(1, Math.round(r.height * scale));
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hgt}px`;
    overlay = h("canvas.overlay", { width: Math.round(w * devicePixelRatio), height: Math.round(hgt * devicePixelRatio) });
    overlay.style.width = `${w}px`;
    overlay.style.height = `${hgt}px`;
    const readout = h("div.readout", null, "point at the image for values");
    overlay.addEventListener("pointermove", (e) => {
      const x = Math.floor(e.offsetX / scale);
      const y = Math.floor(e.offsetY / scale);
      if (x < 0 || y < 0 || x >= r.width || y >= r.height) return;
      const v = r.values[y * r.width + x];
      readout.textContent = `[${[...indices, y * r.step[0], x * r.step[1]].join(", ")}] = ${v}`;
    });
    const rank = shape.length;
    const axes = [rank - 2, rank - 1].map(dimLabel);
    const legend = h(
      "div.legend",
      null,
      h("span.legend-min", { title: "minimum" }, r.min === null ? "—" : fmt(r.min)),
      h("span.legend-bar", { style: `background: ${gradientCss()}` }),
      h("span.legend-max", { title: "maximum" }, r.max === null ? "—" : fmt(r.max)),
      r.nonFinite > 0 && h("span.legend-nan", null, h("span.swatch.checker"), ` NaN/±∞: ${r.nonFinite}`),
    );
    replace(
      output,
      h("div.axes", null, `rows: ${axes[0]} · columns: ${axes[1]}`),
      h("div.canvas-wrap", null, canvas, overlay),
      legend,
      readout,
    );
    drawGrid(r);
  }

  function drawGrid(r: ImageResult): void {
    if (overlay === null) return;
    const ctx = overlay.getContext("2d");
    if (ctx === null) return;
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    if (!showGrid) return;
    const { chunks, shards } = node.summary ?? { chunks: null, shards: null };
    const px = (i: number, axis: 0 | 1): number => (i / r.step[axis]) * scale * devicePixelRatio;
    const lines = (sizes: number[] | null, width: number, colour: string): void => {
      if (sizes === null || sizes.length !== shape.length) return;
      const [cy, cx] = [sizes[shape.length - 2] ?? 0, sizes[shape.length - 1] ?? 0];
      const [ny, nx] = [shape[shape.length - 2] ?? 0, shape[shape.length - 1] ?? 0];
      if (cy <= 0 || cx <= 0) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = width * devicePixelRatio;
      ctx.beginPath();
      for (let y = cy; y < ny; y += cy) {
        ctx.moveTo(0, px(y, 0));
        ctx.lineTo(overlay!.width, px(y, 0));
      }
      for (let x = cx; x < nx; x += cx) {
        ctx.moveTo(px(x, 1), 0);
        ctx.lineTo(px(x, 1), overlay!.height);
      }
      ctx.stroke();
    };
    lines(chunks, 1, "rgba(255, 255, 255, 0.75)");
    lines(shards, 3, "rgba(255, 90, 60, 0.95)");
  }

  function drawTable(r: TableResult): void {
    const indexCols = r.rows[0]?.index.length ?? 0;
    const head = h(
      "tr",
      null,
      Array.from({ length: indexCols }, (_, d) => h("th.index", null, names[d] ?? `i${d}`)),
      r.columns.map((c) => h("th", null, c)),
    );
    const body = r.rows.map((row) =>
      h(
        "tr",
        null,
        row.index.map((i) => h("td.index", null, String(i))),
        row.cells.map((c) => h("td", null, c)),
      ),
    );
    replace(output, h("div.table-wrap", null, h("table.values", null, h("thead", null, head), h("tbody", null, body))));
  }

  void read();
}

/** 2 → "2nd", 3 → "3rd", 11 → "11th". */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number.parseFloat(v.toPrecision(6)));
}
