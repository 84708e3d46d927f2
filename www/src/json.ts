/**
 * JSON for reading: BigInts written as integers, short arrays and objects on one line, and
 * colour classes for keys, strings, numbers and literals.
 * @module
 */
import { h } from "./dom.js";

/** Lines narrower than this keep a short array or object on one line. */
const INLINE = 72;

function scalar(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (v === undefined) return "null";
  return JSON.stringify(v) ?? "null";
}

function oneLine(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(oneLine).join(", ")}]`;
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    const entries = Object.entries(v as object);
    return entries.length === 0 ? "{}" : `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`).join(", ")}}`;
  }
  if (v instanceof Uint8Array) return `[${Array.from(v).join(", ")}]`;
  return scalar(v);
}

/** JSON text of a value (BigInt-safe), indented by two, short containers inline. */
export function jsonText(v: unknown, indent = "", width = INLINE): string {
  const flat = oneLine(v);
  if (indent.length + flat.length <= width || v === null || typeof v !== "object") return flat;
  const inner = `${indent}  `;
  if (Array.isArray(v)) return `[\n${v.map((x) => inner + jsonText(x, inner, width)).join(",\n")}\n${indent}]`;
  const entries = Object.entries(v as object);
  return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${jsonText(x, inner, width)}`).join(",\n")}\n${indent}}`;
}

/** A <pre> of a value's JSON, coloured by token. */
export function jsonBlock(v: unknown): HTMLPreElement {
  return jsonTextBlock(jsonText(v));
}

/** Texts longer than this are shown without colours (a span per token would cost seconds). */
const COLOURED_CHARS = 100_000;

/** A <pre> of JSON text, coloured by token when it is not long. */
export function jsonTextBlock(text: string): HTMLPreElement {
  const pre = h("pre.json");
  if (text.length > COLOURED_CHARS) {
    pre.textContent = text;
    return pre;
  }
  const re = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) pre.append(text.slice(last, at));
    if (m[1] !== undefined) {
      pre.append(h(m[2] !== undefined ? "span.j-key" : "span.j-str", null, m[1]));
      if (m[2] !== undefined) pre.append(m[2]);
    } else if (m[3] !== undefined) pre.append(h("span.j-num", null, m[3]));
    else pre.append(h("span.j-lit", null, m[4] ?? ""));
    last = at + m[0].length;
  }
  if (last < text.length) pre.append(text.slice(last));
  return pre;
}

/** A location inside a document as text: `chunk_grid.configuration.chunk_shape`, `codecs[1].level`. */
export function locText(loc: (string | number)[]): string {
  return loc.map((step, i) => (typeof step === "number" ? `[${step}]` : `${i ? "." : ""}${step}`)).join("");
}
