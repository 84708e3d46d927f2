/**
 * Collections of images as their users picture them: a plate as its grid of wells, drawn from
 * the plate's metadata alone, each well's first field pictured as it comes into view and marked
 * by its verdict; a well's fields, a bioformats2raw collection's series and a 0.6 scene's images
 * as a row of pictures. A click opens the node.
 * @module
 */
import type { PlateView, SceneView, SeriesView, WellView } from "zom/manual";
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { h, replace, settle } from "./dom.js";
import { pictureCanvas } from "./view-image.js";

/** A thumbnail's size in CSS pixels, and the least picture size asked for. */
const THUMB = { width: 72, height: 72 };
const CARD = { width: 128, height: 128 };

/** A node's verdict as the page knows it: its problems and those below it (null while validating). */
export type Verdict = (path: string) => { errors: number; warnings: number } | null;

/** A slot that draws its picture when asked. */
type Slot = HTMLElement & { draw?: () => Promise<void> };

/**
 * Pictures `slot` with the picture of the node at `path` when it first comes into view (the
 * card's {@link Pictures}), at least `size` large.
 */
function lazyPicture(slot: Slot, path: string, worker: ZomWorker, size: { width: number; height: number }, pictures: Pictures): void {
  slot.draw = async (): Promise<void> => {
    slot.dataset.state = "reading";
    try {
      const { result } = await worker.call<"picture">({ type: "picture", path, width: size.width, height: size.height });
      replace(slot, pictureCanvas(result.rgba, result.width, result.height, size, "canvas.thumb"));
      slot.dataset.state = "drawn";
      slot.dataset.image = result.image;
      slot.dataset.level = String(result.level);
    } catch (e) {
      const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e) };
      replace(slot, h("span.thumb-failed", { title: `${f.code}: ${f.message}` }, "✗"));
      slot.dataset.state = "failed";
    }
  };
  pictures.add(slot);
}

/**
 * The pictures of one card: each slot drawn once it is within a screen of the view (an
 * IntersectionObserver; all at once where there is none). When the slots in view at first
 * are drawn, the card is settled ({@link settle}): the page's walk may start.
 */
class Pictures {
  readonly #root: HTMLElement;
  readonly #observer: IntersectionObserver | null;
  readonly #slots: Slot[] = [];
  #first = true;

  constructor(root: HTMLElement) {
    this.#root = root;
    this.#observer =
      typeof IntersectionObserver !== "function"
        ? null
        : new IntersectionObserver((entries) => this.#seen(entries.filter((e) => e.isIntersecting).map((e) => e.target as Slot)), {
            rootMargin: "200px",
          });
  }

  /** A slot to draw when it comes into view. */
  add(slot: Slot): void {
    this.#slots.push(slot);
    this.#observer?.observe(slot);
  }

  /** Starts drawing: without an observer every slot at once; a card with no slot is settled. */
  start(): void {
    if (this.#observer === null) this.#seen(this.#slots);
    else if (this.#slots.length === 0) settle(this.#root);
  }

  #seen(slots: Slot[]): void {
    for (const slot of slots) this.#observer?.unobserve(slot);
    const drawing = slots.map((slot) => slot.draw?.());
    if (!this.#first) return;
    this.#first = false;
    void Promise.allSettled(drawing).then(() => settle(this.#root));
  }
}

/** A node's verdict mark, kept up to date by {@link updateMarks}. */
function verdictMark(verdict: Verdict, path: string): HTMLElement {
  const mark = h("span.mark", { dataset: { verdictFor: path } });
  showMark(mark, verdict);
  return mark;
}

function showMark(mark: HTMLElement, verdict: Verdict): void {
  const path = mark.dataset.verdictFor ?? "";
  const v = verdict(path);
  const [cls, text, title] =
    v === null
      ? ["", "", "validating…"]
      : v.errors > 0
        ? ["mark-bad", "✗", `${v.errors} error${v.errors === 1 ? "" : "s"} at or below /${path}`]
        : v.warnings > 0
          ? ["mark-warn", "!", `${v.warnings} warning${v.warnings === 1 ? "" : "s"} at or below /${path}`]
          : ["mark-good", "✓", "valid"];
  mark.className = `mark ${cls}`.trim();
  mark.textContent = text;
  mark.title = title;
  mark.dataset.verdict = v === null ? "" : v.errors > 0 ? "bad" : v.warnings > 0 ? "warn" : "good";
}

/** Sets every verdict mark in `root` from `verdict` (when the validation has come). */
export function updateMarks(root: ParentNode, verdict: Verdict): void {
  for (const mark of root.querySelectorAll<HTMLElement>("span.mark[data-verdict-for]")) showMark(mark, verdict);
}

/** The plate's grid: a header row of columns, a header column of rows, a cell per well. */
export function renderPlateView(
  root: HTMLElement,
  view: PlateView,
  worker: ZomWorker,
  select: (path: string) => void,
  verdict: Verdict,
): void {
  const pictures = new Pictures(root);
  const byCell = new Map(view.wells.map((w) => [`${w.row}/${w.column}`, w]));
  const grid = h("div.plate-grid", {
    id: "plate-grid",
    style: `grid-template-columns: auto repeat(${view.columns.length}, ${THUMB.width + 8}px)`,
    dataset: { rows: view.rows.length, columns: view.columns.length },
  });
  grid.append(h("span.plate-corner"), ...view.columns.map((c) => h("span.plate-col", null, c)));
  view.rows.forEach((row, r) => {
    grid.append(h("span.plate-row", null, row));
    view.columns.forEach((_, c) => {
      const well = byCell.get(`${r}/${c}`);
      if (well === undefined) {
        grid.append(h("span.well.well-empty", { title: "no well" }));
        return;
      }
      const slot = h("span.thumb-slot", { style: `width: ${THUMB.width}px; height: ${THUMB.height}px` });
      const cell = h(
        "button.well",
        { type: "button", title: `well ${well.path}`, dataset: { well: well.path }, onclick: () => select(well.node) },
        slot,
        h("span.well-name", null, well.path),
        verdictMark(verdict, well.node),
      );
      grid.append(cell);
      lazyPicture(slot, well.node, worker, THUMB, pictures);
    });
  });
  const facts = [
    `${view.rows.length} × ${view.columns.length} plate, ${view.wells.length} well${view.wells.length === 1 ? "" : "s"}`,
    view.field_count !== null ? `${view.field_count} field${view.field_count === 1 ? "" : "s"} per well at most` : null,
    view.acquisitions.length > 0 ? `${view.acquisitions.length} acquisition${view.acquisitions.length === 1 ? "" : "s"}` : null,
  ].filter((f) => f !== null);
  replace(root, h("p.view-facts", null, facts.join(" · ")), h("div.plate-wrap", null, grid));
  pictures.start();
}

/** A row of pictured cards, one per image node; a click opens it. */
function cards(
  root: HTMLElement,
  items: { node: string; title: string }[],
  worker: ZomWorker,
  select: (path: string) => void,
  verdict: Verdict,
  facts: string,
): void {
  const pictures = new Pictures(root);
  const row = h(
    "div.cards",
    null,
    items.map((item) => {
      const slot = h("span.thumb-slot", { style: `width: ${CARD.width}px; height: ${CARD.height}px` });
      lazyPicture(slot, item.node, worker, CARD, pictures);
      return h(
        "button.card-image",
        { type: "button", dataset: { node: item.node }, onclick: () => select(item.node) },
        slot,
        h("span.card-title", null, item.title, " ", verdictMark(verdict, item.node)),
      );
    }),
  );
  replace(root, h("p.view-facts", null, facts), row);
  pictures.start();
}

/** A well's fields. */
export function renderWellView(
  root: HTMLElement,
  view: WellView,
  worker: ZomWorker,
  select: (path: string) => void,
  verdict: Verdict,
): void {
  const items = view.images.map((f, i) => ({
    node: f.node,
    title: `field ${f.path}${f.acquisition === null ? "" : ` (acquisition ${f.acquisition})`}${i === 0 ? " · shown on the plate" : ""}`,
  }));
  cards(root, items, worker, select, verdict, `${view.images.length} field${view.images.length === 1 ? "" : "s"}`);
}

/** A bioformats2raw collection's series. */
export function renderSeriesView(
  root: HTMLElement,
  view: SeriesView,
  worker: ZomWorker,
  select: (path: string) => void,
  verdict: Verdict,
): void {
  const items = view.images.map((node) => ({ node, title: `/${node}` }));
  cards(root, items, worker, select, verdict, `bioformats2raw collection: ${view.images.length} series`);
}

/** A 0.6 scene's images, with their coordinate systems. */
export function renderSceneView(
  root: HTMLElement,
  view: SceneView,
  worker: ZomWorker,
  select: (path: string) => void,
  verdict: Verdict,
): void {
  const items = view.images.map((image) => ({
    node: image.node,
    title: `/${image.node}${image.output === null ? "" : ` → ${image.output}`}`,
  }));
  const systems = view.coordinate_systems.map((c) => (c as { name?: unknown }).name).filter((n) => typeof n === "string");
  cards(
    root,
    items,
    worker,
    select,
    verdict,
    `OME-Zarr scene: ${view.images.length} image${view.images.length === 1 ? "" : "s"}${systems.length > 0 ? `, coordinate systems ${systems.join(", ")}` : ""}`,
  );
}
