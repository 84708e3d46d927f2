/**
 * An xarray / CF dataset's page: a summary as xarray prints one (dimensions, coordinates, data
 * variables with their units), and a variable's map: north up and east right, the coordinates'
 * values and units at the edges, the leading dimensions' sliders in their coordinates (dates
 * for a CF time), the value under the pointer in its units, CF-decoded, with the stored value
 * beside it. The worker reads and decodes (zom's views part); this module draws.
 * @module
 */
import type { DatasetVariable, DatasetView } from "zom/manual";
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { gradientCss } from "./colour.js";
import { h, replace, settle } from "./dom.js";
import { failureBox } from "./failure.js";
import type { PlaneAxisResult, PlaneResult } from "./protocol.js";
import { fitScale, pictureCanvas } from "./view-image.js";

const BOX = { width: 640, height: 400 };

/** A number as a reader wants it: at most six significant digits. */
function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number.parseFloat(v.toPrecision(6)));
}

/** "(time: 12, lat: 36)". */
const dimsText = (v: DatasetVariable): string => `(${v.dims.join(", ")})`;

/** One variable's row of the summary. */
function variableRow(v: DatasetVariable, plotted: boolean): HTMLElement {
  const about = [
    v.long_name,
    v.units === null ? null : `[${v.units}]`,
    v.axis === null ? null : `${v.axis} axis`,
    v.time === null ? null : `${v.time.calendar} calendar`,
  ]
    .filter((s) => s !== null)
    .join(" ");
  return h(
    "tr",
    { dataset: { variable: v.name } },
    h("td", null, plotted ? "●" : ""),
    h("td", null, h("b", null, v.name)),
    h("td", null, dimsText(v)),
    h("td", null, v.data_type),
    h("td.muted", null, about),
  );
}

/** The summary, as xarray's repr orders it. */
function summary(view: DatasetView): HTMLElement {
  const dims = view.dimensions.map((d) => `${d.name}: ${d.size}`).join(", ");
  const table = (title: string, rows: DatasetVariable[], plotted: boolean) =>
    rows.length > 0 && [
      h("h4", null, title),
      h(
        "table.dataset-vars",
        null,
        h(
          "tbody",
          null,
          rows.map((v) => variableRow(v, plotted && v.name === v.dims[0])),
        ),
      ),
    ];
  const attrs = Object.entries(view.attributes);
  return h(
    "div.dataset-summary",
    { id: "dataset-summary" },
    h("p", null, h("b", null, "Dimensions: "), `(${dims})`),
    table("Coordinates", view.coordinates, true),
    table("Data variables", view.data_variables, false),
    attrs.length > 0 &&
      h(
        "details",
        null,
        h("summary", null, `Attributes (${attrs.length})`),
        h(
          "dl.facts",
          null,
          attrs.flatMap(([k, v]) => [
            h("dt", null, k),
            h("dd", null, typeof v === "string" ? v : JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? x.toString() : x))),
          ]),
        ),
      ),
  );
}

/** An axis's labels at its two ends and its middle, with its name and units. */
function axisLabels(axis: PlaneAxisResult, where: "x" | "y"): HTMLElement {
  const values = axis.values;
  const at = (i: number) => (values === null ? String(i) : fmt(values[i] ?? NaN));
  const n = values?.length ?? 0;
  const name = `${axis.name}${axis.units === null ? "" : ` (${axis.units})`}`;
  return h(
    `div.axis.axis-${where}`,
    { dataset: { axis: axis.name } },
    h("span.axis-start", null, n > 0 ? at(0) : ""),
    h("span.axis-name", null, name),
    h("span.axis-end", null, n > 0 ? at(n - 1) : ""),
  );
}

/** Builds the dataset page into `root`. */
export function renderDatasetView(root: HTMLElement, path: string, view: DatasetView, worker: ZomWorker): void {
  const plottable = [...view.data_variables, ...view.coordinates].filter((v) => v.dims.length >= 2);
  const status = h("div.preview-status", { "aria-live": "polite" });
  const output = h("div.plane", { id: "dataset-plane" });
  const sliders = h("div.preview-controls");
  let name = plottable[0]?.name ?? null;
  let indices: number[] = [];
  let showStored = false;
  let generation = 0;
  const pick = h(
    "select",
    { id: "variable-pick", "aria-label": "variable" },
    plottable.map((v) => h("option", { value: v.name }, `${v.name} ${dimsText(v)}`)),
  );
  pick.addEventListener("change", () => {
    name = pick.value;
    indices = [];
    replace(sliders);
    void draw();
  });
  const stored = h("input", { type: "checkbox", id: "stored-toggle" });
  stored.addEventListener("change", () => {
    showStored = stored.checked;
    if (last !== null) drawPlane(last);
  });
  let last: PlaneResult | null = null;
  replace(
    root,
    summary(view),
    plottable.length > 0 &&
      h("div.preview-controls", null, h("label.toggle", null, "map ", pick), h("label.toggle", null, stored, " stored values")),
    sliders,
    status,
    output,
  );
  if (name === null) {
    settle(root);
    return;
  }

  function buildSliders(r: PlaneResult): void {
    if (sliders.childElementCount > 0) return;
    r.leading.forEach((d, i) => {
      const label = (k: number) => d.labels?.[k] ?? String(k);
      const value = h("output.slider-value", { dataset: { dim: d.name } }, label(r.indices[i] ?? 0));
      const input = h("input", {
        type: "range",
        min: 0,
        max: Math.max(0, d.size - 1),
        value: r.indices[i] ?? 0,
        step: 1,
        disabled: d.size <= 1,
        "aria-label": d.name,
        dataset: { dim: d.name },
      });
      input.addEventListener("input", () => {
        indices[i] = Number(input.value);
        value.textContent = label(indices[i] ?? 0);
        schedule();
      });
      sliders.append(h("label.slider", null, h("span.slider-name", null, d.name), input, value));
    });
  }

  let timer: number | undefined;
  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void draw(), 60);
  }

  async function draw(): Promise<void> {
    if (name === null) {
      settle(root);
      return;
    }
    const mine = ++generation;
    status.textContent = "reading…";
    status.classList.add("busy");
    const t0 = performance.now();
    try {
      const { result } = await worker.call<"plane">({ type: "plane", path, name, indices: [...indices] });
      if (mine !== generation) return;
      status.classList.remove("busy");
      indices = [...result.indices];
      buildSliders(result);
      last = result;
      drawPlane(result);
      status.textContent = `${result.variable.name}: ${result.height} × ${result.width}, read and decoded in the worker in ${Math.round(performance.now() - t0)} ms${result.y.flipped ? "; rows reversed to put north up" : ""}${result.x.flipped ? "; columns reversed to put east right" : ""}`;
      root.dataset.drawn = String(generation);
      root.dataset.variable = result.name;
    } catch (e) {
      if (mine !== generation) return;
      status.classList.remove("busy");
      status.textContent = "";
      const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path, key: null };
      replace(output, failureBox(f, "Could not draw the variable"));
    }
    settle(root);
  }

  function drawPlane(r: PlaneResult): void {
    const canvas = pictureCanvas(r.rgba, r.width, r.height, BOX);
    canvas.id = "plane-canvas";
    const scale = fitScale(r.width, r.height, BOX);
    const units = r.variable.units === null ? "" : ` ${r.variable.units}`;
    const readout = h("div.readout", { id: "plane-readout" }, "point at the map for values");
    canvas.addEventListener("pointermove", (e) => {
      const x = Math.floor(e.offsetX / scale);
      const y = Math.floor(e.offsetY / scale);
      if (x < 0 || y < 0 || x >= r.width || y >= r.height) return;
      const i = y * r.width + x;
      const where = (a: PlaneAxisResult, k: number) =>
        `${a.name} ${a.values === null ? k : fmt(a.values[k] ?? NaN)}${a.units === null ? "" : ` ${a.units}`}`;
      const value = r.values[i] ?? NaN;
      const shown = showStored
        ? `${fmt(r.stored[i] ?? NaN)} stored (decoded ${Number.isNaN(value) ? "masked" : `${fmt(value)}${units}`})`
        : Number.isNaN(value)
          ? `masked (stored ${fmt(r.stored[i] ?? NaN)})`
          : `${fmt(value)}${units} (stored ${fmt(r.stored[i] ?? NaN)})`;
      readout.textContent = `${where(r.y, y)} · ${where(r.x, x)} · ${r.variable.name} = ${shown}`;
    });
    const legend = h(
      "div.legend",
      null,
      h("span.legend-min", null, r.min === null ? "—" : `${fmt(r.min)}${units}`),
      h("span.legend-bar", { style: `background: ${gradientCss()}` }),
      h("span.legend-max", null, r.max === null ? "—" : `${fmt(r.max)}${units}`),
      r.nonFinite > 0 && h("span.legend-nan", null, h("span.swatch.checker"), ` masked: ${r.nonFinite}`),
    );
    replace(output, h("div.map", null, axisLabels(r.y, "y"), h("div.canvas-wrap", null, canvas), axisLabels(r.x, "x")), legend, readout);
  }

  void draw();
}
