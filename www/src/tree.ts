/**
 * The hierarchy tree in the sidebar: kind, name, shape and data type per node, with marks for
 * nodes that have validation problems (their own, and below a group) or failed to load. Groups
 * fold.
 *
 * Large hierarchies (tens of thousands of nodes) stay quick: the tree is flattened once into
 * the list of visible rows (again only when a group folds or unfolds), rows have one height,
 * and only the rows in view (and a few beyond) are in the DOM, placed in a list as tall as all
 * rows; scrolling draws the rows that come into view. Selecting a node changes two rows.
 *
 * The rows come in three steps: the walk's nodes (names and nesting), zom's summaries of them
 * (kinds, shapes, data types), and the validation (problem counts); each draws the rows in
 * view again.
 *
 * ARIA: the list is the `tree`, one tab stop; each row is a `treeitem` with its level, position
 * among its siblings, `aria-selected`, and `aria-expanded` for groups with members. Keys: ↑ ↓
 * Home End PageUp PageDown move, → unfolds (or goes to the first member), ← folds (or goes to
 * the parent), Enter and Space select. The row the keys are on is the list's
 * `aria-activedescendant`.
 * @module
 */
import { h } from "./dom.js";
import type { Hierarchy, TreeNode } from "./model.js";
import { shapeText } from "./model.js";

/** The height of a row in CSS pixels (style.css sizes rows by the `--row` property set from it). */
export const ROW_PX = 28;
/** Rows drawn beyond each edge of the ones in view. */
const OVERSCAN = 12;
/** Rows drawn while the tree has no height (hidden, or not laid out yet). */
const FALLBACK_ROWS = 40;

/** Groups with members fold (before its summary has come, a node with members is known to be a group). */
const expandable = (node: TreeNode): boolean => node.children.length > 0;
/** The letter of a kind in its badge. */
const KIND_LETTER = { group: "G", array: "A", failed: "!", node: "·" } as const;

/** The tree view; `onSelect` is called with the path of the row clicked (or chosen by keys). */
export class TreeView {
  readonly #scroller: HTMLElement;
  readonly #list: HTMLUListElement;
  readonly #onSelect: (path: string) => void;
  #hier: Hierarchy | null = null;
  /** The visible rows in order (every node whose ancestors are unfolded). */
  #rows: TreeNode[] = [];
  #rowOf = new Map<TreeNode, number>();
  readonly #folded = new Set<TreeNode>();
  /** The rows in the DOM. */
  readonly #drawn = new Map<TreeNode, HTMLLIElement>();
  readonly #nodeOf = new WeakMap<Element, TreeNode>();
  #selected: TreeNode | null = null;
  /** The row the keys are on. */
  #active: TreeNode | null = null;

  /** Draws into `scroller` (the element that scrolls: the list inside it is as tall as every row). */
  constructor(scroller: HTMLElement, onSelect: (path: string) => void) {
    this.#scroller = scroller;
    this.#onSelect = onSelect;
    this.#list = h("ul.tree", { role: "tree", tabindex: 0, "aria-label": "hierarchy" });
    this.#list.style.setProperty("--row", `${ROW_PX}px`);
    scroller.addEventListener("scroll", () => this.#draw(), { passive: true });
    new ResizeObserver(() => this.#draw()).observe(scroller);
    this.#list.addEventListener("click", (e) => this.#click(e));
    this.#list.addEventListener("keydown", (e) => this.#key(e));
  }

  /** Shows a hierarchy, every group unfolded, scrolled to the top. */
  show(hier: Hierarchy): void {
    this.#hier = hier;
    this.#folded.clear();
    this.#selected = null;
    this.#active = null;
    this.#clear();
    this.#list.removeAttribute("aria-activedescendant");
    if (this.#list.parentElement !== this.#scroller) this.#scroller.replaceChildren(this.#list);
    this.#scroller.scrollTop = 0;
    this.#flatten();
    this.#draw();
  }

  /** Draws the rows again (the nodes' summaries, or the hierarchy's problems, have come). */
  refresh(): void {
    this.#clear();
    this.#draw();
  }

  /**
   * Selects a node: its ancestors unfold, and (with `reveal`) its row is scrolled into view
   * when it is not.
   */
  select(node: TreeNode, reveal = true): void {
    if (this.#hier === null) return;
    const before = this.#selected;
    this.#selected = node;
    if (this.#unfoldAbove(node)) this.#flatten();
    if (before !== null && before !== node) this.#mark(before);
    this.#setActive(node);
    if (reveal) this.#reveal(node, true);
    this.#draw();
    this.#mark(node);
  }

  #clear(): void {
    this.#drawn.clear();
    this.#list.replaceChildren();
  }

  /** Unfolds every ancestor of `node`; true when one was folded. */
  #unfoldAbove(node: TreeNode): boolean {
    let changed = false;
    for (let up = node.parent; up !== null; up = up.parent) changed = this.#folded.delete(up) || changed;
    return changed;
  }

  /** The visible rows, in order: a pre-order walk that skips folded groups' members. */
  #flatten(): void {
    const rows: TreeNode[] = [];
    const rowOf = new Map<TreeNode, number>();
    const root = this.#hier?.root;
    const stack = root === undefined ? [] : [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      rowOf.set(node, rows.length);
      rows.push(node);
      if (!this.#folded.has(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
    this.#rows = rows;
    this.#rowOf = rowOf;
    this.#list.style.height = `${rows.length * ROW_PX}px`;
  }

  /** Puts the rows in view (and OVERSCAN beyond, and the active row) into the DOM, in order. */
  #draw(): void {
    if (this.#hier === null || this.#list.parentElement !== this.#scroller) return;
    const top = this.#scroller.scrollTop;
    const height = this.#scroller.clientHeight || FALLBACK_ROWS * ROW_PX;
    const first = Math.max(0, Math.floor(top / ROW_PX) - OVERSCAN);
    const end = Math.min(this.#rows.length, Math.ceil((top + height) / ROW_PX) + OVERSCAN);
    const want = this.#rows.slice(first, end);
    // The active row stays in the DOM (aria-activedescendant names it), before or after the others.
    const active = this.#active;
    const activeRow = active === null ? undefined : this.#rowOf.get(active);
    if (active !== null && activeRow !== undefined && (activeRow < first || activeRow >= end)) {
      if (activeRow < first) want.unshift(active);
      else want.push(active);
    }
    const wanted = new Set(want);
    for (const [node, li] of this.#drawn) {
      if (!wanted.has(node)) {
        li.remove();
        this.#drawn.delete(node);
      }
    }
    let cursor = this.#list.firstElementChild;
    for (const node of want) {
      let li = this.#drawn.get(node);
      if (li === undefined) {
        li = this.#row(node);
        this.#drawn.set(node, li);
      }
      const y = `${(this.#rowOf.get(node) ?? 0) * ROW_PX}px`;
      if (li.style.top !== y) li.style.top = y;
      if (li === cursor) cursor = cursor.nextElementSibling;
      else this.#list.insertBefore(li, cursor);
    }
  }

  /** A row: a treeitem holding the node's button (kind, name, detail, format, badges). */
  #row(node: TreeNode): HTMLLIElement {
    const hier = this.#hier!;
    const own = hier.problemsAt.get(node.path) ?? 0;
    const sub = node.kind === "group" ? (hier.problemsBelow.get(node.path) ?? 0) : 0;
    const s = node.summary;
    const detail =
      node.kind === "array" && s !== null
        ? `${shapeText(s.shape)} · ${s.data_type}`
        : node.kind === "group" || (node.kind === "node" && node.children.length > 0)
          ? `${node.children.length} member${node.children.length === 1 ? "" : "s"}`
          : node.kind === "node"
            ? ""
            : (node.failure?.code ?? "failed");
    const version = s === null ? "" : `v${s.zarr_format}`;
    const li = h("li", {
      role: "treeitem",
      id: `tree-row-${node.index}`,
      "aria-level": node.depth + 1,
      "aria-setsize": node.parent?.children.length ?? 1,
      "aria-posinset": node.position + 1,
    });
    li.append(
      h(
        "button.node",
        {
          type: "button",
          tabindex: -1,
          dataset: { path: node.path, kind: node.kind },
          title: node.path === "" ? "/" : `/${node.path}`,
          style: `padding-left: ${0.4 + node.depth * 1.1}rem`,
        },
        h(expandable(node) ? "span.caret" : "span.caret.none", { "aria-hidden": "true" }),
        h(`span.kind.kind-${node.kind}`, { title: node.kind === "node" ? "summarizing…" : node.kind }, KIND_LETTER[node.kind]),
        h("span.name", null, node.name),
        h("span.detail", null, detail),
        version && h("span.version", null, version),
        own > 0 && h("span.badge.badge-problem", { title: `${own} validation problem${own === 1 ? "" : "s"}` }, String(own)),
        sub > 0 && h("span.badge.badge-sub", { title: `${sub} problem${sub === 1 ? "" : "s"} below` }, String(sub)),
        node.failure !== null && node.kind !== "failed" && h("span.badge.badge-problem", { title: node.failure.message }, "!"),
      ),
    );
    this.#nodeOf.set(li, node);
    this.#mark(node, li);
    return li;
  }

  /** Sets a row's selection, fold and active state (when it is drawn). */
  #mark(node: TreeNode, li = this.#drawn.get(node)): void {
    if (li === undefined) return;
    const selected = node === this.#selected;
    li.setAttribute("aria-selected", String(selected));
    li.firstElementChild?.classList.toggle("selected", selected);
    li.classList.toggle("active", node === this.#active);
    if (expandable(node)) li.setAttribute("aria-expanded", String(!this.#folded.has(node)));
  }

  #setActive(node: TreeNode): void {
    const before = this.#active;
    this.#active = node;
    if (before !== null && before !== node) this.#mark(before);
    this.#list.setAttribute("aria-activedescendant", `tree-row-${node.index}`);
  }

  /** Scrolls so that `node`'s row is in view: centred, or just in (`centre` false). */
  #reveal(node: TreeNode, centre: boolean): void {
    const row = this.#rowOf.get(node);
    if (row === undefined) return;
    const y = row * ROW_PX;
    const top = this.#scroller.scrollTop;
    const height = this.#scroller.clientHeight;
    if (height === 0 || (y >= top && y + ROW_PX <= top + height)) return;
    this.#scroller.scrollTop = centre ? y - (height - ROW_PX) / 2 : y < top ? y : y + ROW_PX - height;
  }

  /** Folds or unfolds a group. */
  #toggle(node: TreeNode): void {
    if (!expandable(node)) return;
    if (!this.#folded.delete(node)) this.#folded.add(node);
    // The keys' row, hidden inside the folded group, moves up to it.
    for (let up = this.#active?.parent ?? null; up !== null; up = up.parent) {
      if (up === node) {
        this.#setActive(node);
        break;
      }
    }
    this.#flatten();
    this.#draw();
    this.#mark(node);
  }

  #click(e: MouseEvent): void {
    const target = e.target as Element;
    const li = target.closest("li");
    const node = li === null ? undefined : this.#nodeOf.get(li);
    if (node === undefined) return;
    if (target.closest(".caret") !== null && expandable(node)) {
      this.#toggle(node);
      return;
    }
    this.#list.focus({ preventScroll: true });
    this.#onSelect(node.path);
  }

  #key(e: KeyboardEvent): void {
    if (this.#hier === null || this.#rows.length === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const active = this.#active ?? this.#selected ?? this.#hier.root;
    const row = this.#rowOf.get(active) ?? 0;
    const last = this.#rows.length - 1;
    const page = Math.max(1, Math.floor(this.#scroller.clientHeight / ROW_PX) - 1);
    let to: TreeNode | null | undefined;
    switch (e.key) {
      case "ArrowDown":
        to = this.#rows[Math.min(last, row + 1)];
        break;
      case "ArrowUp":
        to = this.#rows[Math.max(0, row - 1)];
        break;
      case "PageDown":
        to = this.#rows[Math.min(last, row + page)];
        break;
      case "PageUp":
        to = this.#rows[Math.max(0, row - page)];
        break;
      case "Home":
        to = this.#rows[0];
        break;
      case "End":
        to = this.#rows[last];
        break;
      case "ArrowRight":
        if (expandable(active) && this.#folded.has(active)) this.#toggle(active);
        else to = active.children[0];
        break;
      case "ArrowLeft":
        if (expandable(active) && !this.#folded.has(active)) this.#toggle(active);
        else to = active.parent;
        break;
      case "Enter":
      case " ":
        this.#onSelect(active.path);
        break;
      default:
        return;
    }
    e.preventDefault();
    if (to === null || to === undefined) return;
    this.#setActive(to);
    this.#reveal(to, false);
    this.#draw();
    this.#mark(to);
  }
}
