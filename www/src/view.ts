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
import type { Failure } from "./protocol.js";
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
  /** Whether the walk has ended (the worker describes from the walked hierarchy). */
  walked: boolean;
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
let cards = new Map<string, Promise<Made>>();
/** The cards made, once they are. */
let settled = new Map<string, Made>();
/** The cards drawn so far, for their verdict marks. */
let drawn: HTMLElement[] = [];

/** Forgets the cards of the last hierarchy. */
export function forgetViews(): void {
  cards = new Map();
  settled = new Map();
  drawn = [];
}

/** Sets the verdict marks of every card (when the validation has come). */
export function refreshVerdicts(verdict: Verdict): void {
  for (const card of drawn) updateMarks(card, verdict);
}

/** A card, with the description it was made from and whether the walk had ended. */
interface Made {
  card: HTMLElement | null;
  description: Description | null;
  walked: boolean;
}

/** How many things a view lists that the node opened alone may not have shown: members, labels, variables. */
function listed(d: Description | null): string {
  const v = d?.view;
  if (v === undefined || v === null) return "";
  switch (v.kind) {
    case "image":
      return `image ${v.labels.length} ${v.levels.filter((l) => l.shape !== null).length}`;
    case "dataset":
      return `dataset ${v.coordinates.length} ${v.data_variables.length}`;
    case "plate":
      return `plate ${v.wells.length}`;
    default:
      return `${v.kind} ${v.images.length}`;
  }
}

/**
 * Whether the walked hierarchy's description says more than the early one (a collection's
 * series, an image's labels, a dataset's variables): the card is then made again. Otherwise the
 * early card stays, with what its user set in it.
 */
const saysMore = (early: Description | null, walked: Description | null): boolean => listed(early) !== listed(walked);

/**
 * The card of the node at `path`, made once per hierarchy; null when the node has no view. A
 * card made before the walk ended (from the node opened alone) is made again once the walk
 * has, when the walked hierarchy says more (see `saysMore`).
 */
export async function viewCard(path: string, context: ViewContext): Promise<HTMLElement | null> {
  let made = cards.get(path);
  if (made === undefined) {
    made = makeCard(path, context);
    cards.set(path, made);
  }
  const got = await made;
  settled.set(path, got);
  if (got.walked || !context.walked) return got.card;
  const again = describeNode(path, context).then((d) =>
    saysMore(got.description, d.description) ? cardOf(path, d.description, true, context) : { ...got, walked: true },
  );
  cards.set(path, again);
  const now = await again;
  settled.set(path, now);
  return now.card;
}

async function describeNode(path: string, context: ViewContext): Promise<{ description: Description | null; failure: Failure | null }> {
  try {
    const { description } = await context.worker.call<"describe">({ type: "describe", path });
    return { description, failure: null };
  } catch (e) {
    const failure = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path, key: null };
    return { description: null, failure };
  }
}

async function makeCard(path: string, context: ViewContext): Promise<Made> {
  const d = await describeNode(path, context);
  if (d.failure !== null) {
    return {
      card: h("section.card.view", { id: "view" }, h("h3", null, "View"), failureBox(d.failure, "Could not describe this node")),
      description: null,
      walked: context.walked,
    };
  }
  return cardOf(path, d.description, context.walked, context);
}

function cardOf(path: string, description: Description | null, walked: boolean, context: ViewContext): Made {
  return { card: description === null ? null : drawCard(path, description, context), description, walked };
}

function drawCard(path: string, description: Description, context: ViewContext): HTMLElement | null {
  const view = description.view;
  if (view === null) return null;
  const body = h("div.view-body", { dataset: { kind: view.kind } });
  const version = "version" in view && view.version !== null ? ` ${view.version}` : "";
  const card = h(
    "section.card.view",
    { id: "view", dataset: { kind: view.kind } },
    h("h3", null, `${TITLES[view.kind] ?? view.kind}${view.kind === "dataset" ? " (xarray / CF)" : ` (OME-Zarr${version})`}`),
    body,
  );
  drawn.push(card);
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

/**
 * Puts the node's card into `slot`: at once when it is made and current (a panel drawn again
 * keeps its card in the page throughout), else when it is.
 */
export function fillView(slot: HTMLElement, path: string, context: ViewContext): void {
  const now = settled.get(path);
  // The card made before stays in the page while the walked hierarchy is asked whether it says more.
  if (now !== undefined && now.card !== null) replace(slot, now.card);
  if (now !== undefined && (now.walked || !context.walked)) return;
  void viewCard(path, context).then((card) => {
    if (card === null) replace(slot);
    else if (card.parentNode !== slot) replace(slot, card);
  });
}
