/**
 * The "View" card of a node's panel: what the node is under its convention, drawn as its users
 * picture it (an image in its channels' colours, a plate as a plate, a dataset as a map),
 * from zom's description of the node. One card per node and hierarchy: the card made before
 * the walk ended is the one the panel shows after it, so no picture is read twice.
 * @module
 */
import type { Description } from "zom/manual";
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { h, replace } from "./dom.js";
import { failureBox } from "./failure.js";
import { renderDatasetView } from "./view-dataset.js";
import { renderImageView } from "./view-image.js";
import type { Verdict } from "./view-plate.js";
import { renderPlateView, renderSceneView, renderSeriesView, renderWellView, updateMarks } from "./view-plate.js";

/** What the cards of a hierarchy need from the page. */
export interface ViewContext {
  worker: ZomWorker;
  /** The hierarchy's URL, null for local data. */
  url: string | null;
  v3: boolean;
  select: (path: string) => void;
  verdict: Verdict;
}

const TITLES: { [kind: string]: string } = {
  image: "Image",
  plate: "Plate",
  well: "Well",
  series: "Series",
  scene: "Scene",
  dataset: "Dataset",
};

/** The cards made for the hierarchy shown, by node path (null: the node has no view). */
let cards = new Map<string, Promise<HTMLElement | null>>();
/** The cards made so far, for their verdict marks. */
let made: HTMLElement[] = [];

/** Forgets the cards of the last hierarchy. */
export function forgetViews(): void {
  cards = new Map();
  made = [];
}

/** Sets the verdict marks of every card (when the validation has come). */
export function refreshVerdicts(verdict: Verdict): void {
  for (const card of made) updateMarks(card, verdict);
}

/** The card of the node at `path`, made once per hierarchy; null when the node has no view. */
export function viewCard(path: string, context: ViewContext): Promise<HTMLElement | null> {
  let card = cards.get(path);
  if (card === undefined) {
    card = makeCard(path, context);
    cards.set(path, card);
  }
  return card;
}

async function makeCard(path: string, context: ViewContext): Promise<HTMLElement | null> {
  let description: Description;
  try {
    ({ description } = await context.worker.call<"describe">({ type: "describe", path }));
  } catch (e) {
    const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path, key: null };
    return h("section.card.view", { id: "view" }, h("h3", null, "View"), failureBox(f, "Could not describe this node"));
  }
  const view = description.view;
  if (view === null) return null;
  const body = h("div.view-body", { dataset: { kind: view.kind } });
  const version = "version" in view && view.version !== null ? ` ${view.version}` : "";
  const card = h("section.card.view", { id: "view", dataset: { kind: view.kind } }, h("h3", null, `${TITLES[view.kind] ?? view.kind}${view.kind === "dataset" ? " (xarray / CF)" : ` (OME-Zarr${version})`}`), body);
  made.push(card);
  const { worker, select, verdict } = context;
  switch (view.kind) {
    case "image":
      renderImageView(body, path, view, worker, context.url, context.v3);
      break;
    case "plate":
      renderPlateView(body, view, worker, select, verdict);
      break;
    case "well":
      renderWellView(body, view, worker, select, verdict);
      break;
    case "series":
      renderSeriesView(body, view, worker, select, verdict);
      break;
    case "scene":
      renderSceneView(body, view, worker, select, verdict);
      break;
    case "dataset":
      renderDatasetView(body, path, view, worker);
      break;
  }
  return card;
}

/** Puts the node's card into `slot` when it is made (nothing when the node has no view). */
export function fillView(slot: HTMLElement, path: string, context: ViewContext): void {
  void viewCard(path, context).then((card) => {
    if (card === null) replace(slot);
    else replace(slot, card);
  });
}
