/**
 * The node panel: what the node is (kind, shape, data type, chunks, codecs), what it means
 * under its convention (the View card: an image, a plate, a dataset), why it failed,
 * the validation problems of the node and its subtree with their locations, the array
 * preview, the attributes and metadata as readable JSON, and the node's ZOM (the worker sends
 * a node's ZOM when its panel shows, a subtree's when its section is opened).
 * @module
 */

import { showBytes } from "../../ts/shared/units.js";
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { h, replace } from "./dom.js";
import { failureBox } from "./failure.js";
import { jsonBlock, jsonTextBlock, locText } from "./json.js";
import type { Hierarchy, TreeNode, ZomNode } from "./model.js";
import { shapeText, within } from "./model.js";
import { renderPreview } from "./preview.js";
import type { Problem } from "./protocol.js";
import type { ViewContext } from "./view.js";
import { fillView } from "./view.js";

function section(title: string, id: string, ...content: (Node | null | false)[]): HTMLElement {
  return h("section.card", { id }, h("h3", null, title), ...content.filter((c): c is Node => c !== null && c !== false));
}

function collapsible(title: string, id: string, open: boolean, content: Node): HTMLElement {
  return h("details.card", { id, open }, h("summary", null, h("h3", null, title)), content);
}

/** The most problems (and read failures) a panel lists: a group of a large hierarchy may have thousands. */
const LISTED = 500;

/** "the first 500 of 1,234 …; select a node below for its own" when `shown` < `total`. */
function cut(shown: number, total: number, what: string): HTMLElement | false {
  return (
    shown < total &&
    h("p.muted.cut", null, `The first ${shown.toLocaleString("en")} of ${total.toLocaleString("en")} ${what}; a node below lists its own.`)
  );
}

/** The problems table: severity, node, location, kind, message (the first LISTED problems). */
export function problemsTable(all: Problem[], select: (path: string) => void): HTMLElement {
  const problems = all.slice(0, LISTED);
  const table = h(
    "table.problems",
    null,
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", null, "severity"),
        h("th", null, "node"),
        h("th", null, "location"),
        h("th", null, "kind"),
        h("th", null, "message"),
      ),
    ),
    h(
      "tbody",
      null,
      problems.map((p) =>
        h(
          "tr",
          { class: `sev-${p.severity}` },
          h("td", null, h(`span.sev.sev-${p.severity}`, null, p.severity)),
          h(
            "td",
            null,
            h(
              "a",
              {
                href: `#/${p.path}`,
                onclick: (e: Event) => {
                  e.preventDefault();
                  select(p.path);
                },
              },
              `/${p.path}`,
            ),
          ),
          h("td", null, h("code", null, locText(p.loc) || "(document)")),
          h("td", null, p.kind),
          h(
            "td.message",
            null,
            p.message,
            p.spec !== undefined &&
              h("span.rule", { title: "the convention's spec and the rule that failed" }, `${p.spec} · ${p.rule ?? ""}`),
          ),
        ),
      ),
    ),
  );
  return h("div.problems-wrap", null, cut(problems.length, all.length, "problems"), table);
}

/** The most characters of a subtree's ZOM the panel shows (Download ZOM saves the whole). */
const ZOM_TEXT_LIMIT = 250_000;

/**
 * Renders the panel of `node` at once from what the page holds (the node's summary, problems,
 * failures, claims; the page renders it again when the summaries or the problems come). The
 * parts that need the node's ZOM (dimension names, attributes, metadata, the preview) are
 * filled in when the worker sends it; the ZOM of a subtree is asked for when its section is
 * opened.
 */
export function renderPanel(
  hier: Hierarchy,
  node: TreeNode,
  worker: ZomWorker,
  select: (path: string) => void,
  views: ViewContext,
): HTMLElement {
  const title = node.path === "" ? "/" : `/${node.path}`;
  const s = node.summary;
  /** The walk read it: the worker has its ZOM. */
  const read = node.kind !== "failed";
  const facts: [string, string][] = [];
  if (s !== null) {
    facts.push(["format", `Zarr v${s.zarr_format}`]);
    if (node.kind === "array") {
      facts.push(["shape", shapeText(s.shape)], ["data type", s.data_type]);
      if (s.chunks !== null) facts.push(["chunks", shapeText(s.chunks)]);
      if (s.shards !== null) facts.push(["shards", shapeText(s.shards)]);
      if (s.grid !== "regular") facts.push(["chunk grid", s.grid]);
      facts.push(["codecs", s.codecs]);
    } else {
      facts.push(["members", String(node.children.length)]);
    }
  }
  const factList = h(
    "dl.facts",
    null,
    facts.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
  );

  const problems = hier.problems?.filter((p) => within(p.path, node.path)) ?? null;
  const failures = hier.failed.filter((n) => within(n.path, node.path)).map((n) => n.failure!);
  const claims = hier.conventions.flatMap((c) => c.claims.filter((claim) => claim.path === node.path).map((claim) => ({ claim, c })));
  const head = h(
    "header.panel-head",
    null,
    h(`span.kind.kind-${node.kind}.big`, null, node.kind),
    h("h2", { id: "node-title" }, title),
    ...claims.map(({ claim, c }) =>
      h(
        "span.pill.pill-claim",
        { dataset: { spec: c.spec }, title: `this node claims to be ${c.title} ${claim.claim}` },
        `${c.title} ${claim.claim}`,
      ),
    ),
    problems === null
      ? h("span.pill.pill-warn", null, "validating…")
      : problems.length > 0
        ? h("span.pill.pill-bad", null, `${problems.length} problem${problems.length === 1 ? "" : "s"}`)
        : read && h("span.pill.pill-good", null, "valid"),
  );

  const preview = h("div.preview");
  const viewSlot = h("div.view-slot");
  const attributes = h("div.json-slot", null, h("p.muted", null, "loading…"));
  const metadata = h("div.json-slot", null, h("p.muted", null, "loading…"));
  const zomSlot = h("div.json-slot", null, h("p.muted", null, "loading…"));
  const zomSection = collapsible(node.kind === "group" ? "ZOM of this subtree" : "ZOM of this node", "zom", false, zomSlot);
  const body = h(
    "div.panel-body",
    null,
    facts.length > 0 && factList,
    read && viewSlot,
    failures.length > 0 &&
      section(
        `Read failures (${failures.length})`,
        "failures",
        cut(Math.min(LISTED, failures.length), failures.length, "read failures"),
        ...failures
          .slice(0, LISTED)
          .map((f) =>
            failureBox(
              f,
              f.path === node.path || (f.path ?? "") === node.path ? "Could not read this node" : `Could not read /${f.path ?? ""}`,
            ),
          ),
      ),
    section(
      "Validation",
      "validation",
      problems === null
        ? h("p.muted", null, "validating…")
        : problems.length === 0
          ? h("p.ok", null, node.path === "" ? "The whole hierarchy is valid." : "This node and everything below it are valid.")
          : problemsTable(problems, select),
    ),
    node.kind === "array" && section("Preview", "preview", preview),
    read && section("Attributes", "attributes", attributes),
    read && collapsible("Metadata", "metadata", node.kind === "array", metadata),
    read && zomSection,
  );
  const panel = h("article.panel", { dataset: { path: node.path } }, head, body);
  if (!read) return panel;
  fillView(viewSlot, node.path, views);

  const failed =
    (slot: HTMLElement, rest: HTMLElement[] = []) =>
    (e: unknown) => {
      const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path: node.path, key: null };
      replace(slot, failureBox(f, "The worker could not send this node"));
      for (const other of rest) replace(other, h("p.muted", null, "—"));
    };
  worker.call<"node">({ type: "node", path: node.path }).then(
    (answer) => {
      // A panel replaced meanwhile (another node selected) starts no read.
      if (!panel.isConnected) return;
      const zom = answer.zom as ZomNode;
      if (Array.isArray(zom.dimension_names)) {
        factList.append(h("dt", null, "dimensions"), h("dd", null, zom.dimension_names.map((n) => n ?? "—").join(", ")));
      }
      const meta: ZomNode = {};
      for (const [k, v] of Object.entries(zom)) if (k !== "attributes") meta[k] = v;
      const attrs = (zom.attributes ?? {}) as object;
      replace(attributes, Object.keys(attrs).length === 0 ? h("p.muted", null, "no attributes") : jsonBlock(attrs));
      replace(metadata, jsonBlock(meta));
      if (node.kind === "array") renderPreview(preview, node, zom, worker);
    },
    failed(attributes, [metadata]),
  );
  // The subtree's ZOM (10 MB for 10,000 nodes) only when asked for.
  let asked = false;
  zomSection.addEventListener("toggle", () => {
    if (asked || !(zomSection as HTMLDetailsElement).open) return;
    asked = true;
    worker.call<"zomText">({ type: "zomText", path: node.path, limit: ZOM_TEXT_LIMIT }).then(({ text, total }) => {
      replace(
        zomSlot,
        total > text.length &&
          h(
            "p.muted",
            null,
            `The first ${showBytes(text.length)} of ${showBytes(total)} of JSON text; Download ZOM saves the whole hierarchy.`,
          ),
        jsonTextBlock(text),
      );
    }, failed(zomSlot));
  });
  return panel;
}
