/**
 * The node panel: what the node is (kind, shape, data type, chunks, codecs), why it failed,
 * the validation problems of the node and its subtree with their locations, the array
 * preview, the attributes and metadata as readable JSON, and the node's ZOM.
 * @module
 */
import type { ZomWorker } from "./client.js";
import { h } from "./dom.js";
import { failureBox } from "./failure.js";
import { jsonBlock, locText } from "./json.js";
import type { Hierarchy, TreeNode, ZomNode } from "./model.js";
import { shapeText, within } from "./model.js";
import { renderPreview } from "./preview.js";

function section(title: string, id: string, ...content: (Node | null | false)[]): HTMLElement {
  return h("section.card", { id }, h("h3", null, title), ...content.filter((c): c is Node => c !== null && c !== false));
}

function collapsible(title: string, id: string, open: boolean, content: Node): HTMLElement {
  return h("details.card", { id, open }, h("summary", null, h("h3", null, title)), content);
}

/** The problems table: severity, node, location, kind, message. */
export function problemsTable(problems: Hierarchy["problems"], select: (path: string) => void): HTMLElement {
  return h(
    "table.problems",
    null,
    h("thead", null, h("tr", null, h("th", null, "severity"), h("th", null, "node"), h("th", null, "location"), h("th", null, "kind"), h("th", null, "message"))),
    h(
      "tbody",
      null,
      problems.map((p) =>
        h(
          "tr",
          { class: `sev-${p.severity}` },
          h("td", null, h(`span.sev.sev-${p.severity}`, null, p.severity)),
          h("td", null, h("a", { href: `#/${p.path}`, onclick: (e: Event) => (e.preventDefault(), select(p.path)) }, `/${p.path}`)),
          h("td", null, h("code", null, locText(p.loc) || "(document)")),
          h("td", null, p.kind),
          h("td.message", null, p.message, p.spec !== undefined && h("span.rule", { title: "the convention's spec and the rule that failed" }, `${p.spec} · ${p.rule ?? ""}`)),
        ),
      ),
    ),
  );
}

/** Renders the panel of `node`. */
export function renderPanel(hier: Hierarchy, node: TreeNode, worker: ZomWorker, select: (path: string) => void): HTMLElement {
  const zom = node.zom;
  const title = node.path === "" ? "/" : `/${node.path}`;
  const facts: [string, string][] = [];
  if (zom !== null) {
    facts.push(["format", `Zarr v${String(zom.zarr_format)}`]);
    const s = node.summary;
    if (node.kind === "array" && s !== null) {
      facts.push(["shape", shapeText(s.shape)], ["data type", s.data_type]);
      if (s.chunks !== null) facts.push(["chunks", shapeText(s.chunks)]);
      if (s.shards !== null) facts.push(["shards", shapeText(s.shards)]);
      facts.push(["codecs", s.codecs]);
      if (Array.isArray(zom.dimension_names)) facts.push(["dimensions", zom.dimension_names.map((n) => n ?? "—").join(", ")]);
    } else {
      facts.push(["members", String(node.children.length)]);
    }
  }

  const problems = hier.problems.filter((p) => within(p.path, node.path));
  const failures = [...hier.byPath.values()].filter((n) => n.failure !== null && within(n.path, node.path)).map((n) => n.failure!);
  const claims = hier.conventions.flatMap((c) => c.claims.filter((claim) => claim.path === node.path).map((claim) => ({ claim, c })));
  const head = h(
    "header.panel-head",
    null,
    h(`span.kind.kind-${node.kind}.big`, null, node.kind),
    h("h2", { id: "node-title" }, title),
    ...claims.map(({ claim, c }) => h("span.pill.pill-claim", { dataset: { spec: c.spec }, title: `this node claims to be ${c.title} ${claim.claim}` }, `${c.title} ${claim.claim}`)),
    problems.length > 0
      ? h("span.pill.pill-bad", null, `${problems.length} problem${problems.length === 1 ? "" : "s"}`)
      : zom !== null && h("span.pill.pill-good", null, "valid"),
  );

  const meta: ZomNode = {};
  if (zom !== null) for (const [k, v] of Object.entries(zom)) if (k !== "attributes" && k !== "members") meta[k] = v;
  const attributes = (zom?.attributes ?? {}) as object;
  const preview = h("div.preview");
  const body = h(
    "div.panel-body",
    null,
    facts.length > 0 && h("dl.facts", null, facts.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    failures.length > 0 &&
      section(
        `Read failures (${failures.length})`,
        "failures",
        ...failures.map((f) => failureBox(f, f.path === node.path || (f.path ?? "") === node.path ? "Could not read this node" : `Could not read /${f.path ?? ""}`)),
      ),
    section(
      "Validation",
      "validation",
      problems.length === 0
        ? h("p.ok", null, node.path === "" ? "The whole hierarchy is valid." : "This node and everything below it are valid.")
        : problemsTable(problems, select),
    ),
    node.kind === "array" && section("Preview", "preview", preview),
    zom !== null && section("Attributes", "attributes", Object.keys(attributes).length === 0 ? h("p.muted", null, "no attributes") : jsonBlock(attributes)),
    zom !== null && collapsible("Metadata", "metadata", node.kind === "array", jsonBlock(meta)),
    zom !== null && collapsible(node.kind === "group" ? "ZOM of this subtree" : "ZOM of this node", "zom", false, jsonBlock(zom)),
  );
  if (node.kind === "array") renderPreview(preview, node, worker);
  return h("article.panel", { dataset: { path: node.path } }, head, body);
}
