/**
 * A small helper for building DOM nodes without a framework.
 * @module
 */

/** Children h() accepts: nodes, text, and nothing (null, undefined, false are skipped). */
export type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element: `h("a.link", {href: "#"}, "text")`. Classes may follow the tag after
 * dots; attributes starting with "on" are event listeners; `dataset` keys become data-*.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  spec: K | `${K}.${string}`,
  attrs: { [name: string]: unknown } | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag as K);
  if (classes.length > 0) el.className = classes.join(" ");
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value as EventListener);
    } else if (name === "dataset" && typeof value === "object") {
      for (const [k, v] of Object.entries(value as object)) el.dataset[k] = String(v);
    } else if (name === "class") {
      el.className = [el.className, String(value)].filter(Boolean).join(" ");
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends children (nested arrays flattened; null/undefined/false skipped). */
export function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

/** The element with this id (throws when the page lacks it: index.html and the code disagree). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`index.html has no #${id}`);
  return el as T;
}

/** The event a View card's element gets once the pictures it first showed are drawn. */
export const SETTLED = "zom:settled";

/** Marks `el` settled (its first pictures drawn, or failed) and tells its listeners, once. */
export function settle(el: HTMLElement): void {
  if (el.dataset.settled === "true") return;
  el.dataset.settled = "true";
  el.dispatchEvent(new Event(SETTLED, { bubbles: true }));
}
