/**
 * The hierarchy tree in the sidebar: kind, name, shape and data type per node, with marks for
 * nodes that have validation problems or failed to load. Groups fold.
 * @module
 */
import { h } from "./dom.js";
import type { Hierarchy, TreeNode } from "./model.js";
import { shapeText, within } from "./model.js";

/** Renders the tree; `select` is called with the node path a row is clicked for. */
export function renderTree(hier: Hierarchy, selected: string, select: (path: string) => void): HTMLElement {
  const problemsAt = new Map<string, number>();
  for (const p of hier.problems) problemsAt.set(p.path, (problemsAt.get(p.path) ?? 0) + 1);
  const below = (path: string): number => {
    let n = 0;
    for (const [p, k] of problemsAt) if (within(p, path)) n += k;
    return n;
  };

  const row = (node: TreeNode, depth: number): HTMLElement => {
    const own = problemsAt.get(node.path) ?? 0;
    const sub = node.kind === "group" ? below(node.path) - own : 0;
    const zom = node.zom;
    const detail =
      node.kind === "array" && node.summary !== null
        ? `${shapeText(node.summary.shape)} · ${node.summary.data_type}`
        : node.kind === "group"
          ? `${node.children.length} member${node.children.length === 1 ? "" : "s"}`
          : (node.failure?.code ?? "failed");
    const version = zom?.zarr_format === 2 ? "v2" : zom?.zarr_format === 3 ? "v3" : "";
    const li = h("li", { role: "treeitem", "aria-selected": node.path === selected ? "true" : "false" });
    const caret =
      node.kind === "group" && node.children.length > 0
        ? h("span.caret", {
            "aria-label": "fold",
            onclick: (e: Event) => {
              e.stopPropagation();
              li.classList.toggle("folded");
            },
          })
        : h("span.caret.none");
    const button = h(
      "button.node",
      {
        type: "button",
        class: node.path === selected ? "selected" : "",
        dataset: { path: node.path, kind: node.kind },
        title: node.path === "" ? "/" : `/${node.path}`,
        style: `padding-left: ${0.4 + depth * 1.1}rem`,
        onclick: () => select(node.path),
      },
      caret,
      h(`span.kind.kind-${node.kind}`, null, node.kind === "group" ? "G" : node.kind === "array" ? "A" : "!"),
      h("span.name", null, node.name),
      h("span.detail", null, detail),
      version && h("span.version", null, version),
      own > 0 && h("span.badge.badge-problem", { title: `${own} validation problem${own === 1 ? "" : "s"}` }, String(own)),
      sub > 0 && h("span.badge.badge-sub", { title: `${sub} problem${sub === 1 ? "" : "s"} below` }, String(sub)),
      node.failure !== null && node.kind !== "failed" && h("span.badge.badge-problem", { title: node.failure.message }, "!"),
    );
    li.append(button);
    if (node.children.length > 0) li.append(h("ul", { role: "group" }, node.children.map((c) => row(c, depth + 1))));
    return li;
  };
  return h("ul.tree", { role: "tree" }, row(hier.root, 0));
}
