/**
 * How the CLI writes what it found: ZOM trees, problems, differences, and array values as
 * text, and array values as JSON. Every name, path, data type, codec, message, key and string
 * value goes into the text through {@link escapeControls}.
 * @module
 */

import { NUMERIC_TYPES } from "../generated/boundary.js";
import type { ChunkData } from "../read/decode.js";
import type { ZomError } from "../shared/errors.js";
import type { DetectedConvention, Difference, JsonValue, Loc, NodeSummary, Problem, Zom } from "../shared/types.js";
import { summarize } from "../validate.js";
import { stringify } from "../validator/api.js";

/**
 * What a terminal acts on instead of showing: C0 controls (line breaks and tabs too, since in a
 * name they would break the layout), DEL, C1 controls (U+0080-U+009F; terminals take U+009B
 * as CSI), and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069), which reorder the rest of a line so that it reads as something else.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it escapes
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const SHORT: { [c: string]: string } = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };

/**
 * `text` with every terminal control character written visibly, spelt as JSON spells it (`\n`,
 * `\t`, `\u001b`, `\u009b`, `\u202e`), so that a value shows the same in the text outputs as in
 * the JSON attributes `zom info` prints beside it. With `keepLineBreaks`, "\n" is kept: for text
 * whose values are escaped already and whose line breaks are the layout's. Backslashes are left
 * as they are: the text outputs are for reading; `--json` is the exact form.
 */
export function escapeControls(text: string, keepLineBreaks = false): string {
  return text.replace(CONTROLS, (c) =>
    c === "\n" && keepLineBreaks ? c : (SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
}

/** The members of a group node, in the ZOM's order (none for an array). */
export function membersOf(node: Zom): [string, Zom][] {
  const members = (node as { members?: { [name: string]: Zom } | null }).members;
  return members ? Object.entries(members) : [];
}

/** The number of nodes in a ZOM tree, the root included. */
export function countNodes(node: Zom): number {
  return membersOf(node).reduce((n, [, child]) => n + countNodes(child), 1);
}

/** A node path as the CLI shows it: "/" for the root, "/a/b" for a member. */
export function showPath(path: string | null | undefined): string {
  return `/${escapeControls((path ?? "").replace(/^\/+/, ""))}`;
}

/** A location inside a document: `codecs[1].configuration.level`. */
function showLoc(loc: Loc): string {
  return loc.map((step, i) => (typeof step === "number" ? `[${step}]` : `${i ? "." : ""}${escapeControls(step)}`)).join("");
}

const list = (xs: readonly unknown[]): string => `[${xs.map((x) => escapeControls(String(x))).join(", ")}]`;

/** One line about a node from its {@link NodeSummary}: kind and format, and for arrays shape, data type, chunks (in shards) and codecs. */
export function describe(s: NodeSummary): string {
  const tail = s.attributes ? `, ${s.attributes} attribute${s.attributes === 1 ? "" : "s"}` : "";
  if (s.kind === "group") return `(group, v${s.zarr_format}${tail})`;
  const grid = s.grid === "regular" ? "" : ` (${escapeControls(s.grid)} grid)`;
  const chunks =
    s.chunks === null ? grid : s.shards ? ` chunks ${list(s.chunks)} in shards ${list(s.shards)}` : ` chunks ${list(s.chunks)}${grid}`;
  return `(array, v${s.zarr_format}) shape ${list(s.shape)} ${escapeControls(s.data_type)}${chunks} codecs: ${escapeControls(s.codecs)}${tail}`;
}

/** The ZOM as indented lines (`├──`, `└──`), members in the ZOM's order. */
export function treeLines(node: Zom, summaries: { [path: string]: NodeSummary } = summarize(node)): string[] {
  const lines: string[] = [];
  const visit = (n: Zom, path: string, name: string, prefix: string, last: boolean, isRoot: boolean): void => {
    const summary = summaries[path];
    lines.push(`${isRoot ? "" : prefix + (last ? "└── " : "├── ")}${escapeControls(name)} ${summary ? describe(summary) : "?"}`);
    const members = membersOf(n);
    const childPrefix = isRoot ? "" : prefix + (last ? "    " : "│   ");
    members.forEach(([child, sub], i) => {
      visit(sub, path ? `${path}/${child}` : child, child, childPrefix, i === members.length - 1, false);
    });
  };
  visit(node, "", "/", "", true, true);
  return lines;
}

/** `<code>: <message> (path /a, key a/zarr.json)`: a ZomError on one line. */
export function showError(e: ZomError): string {
  const where = [e.path !== null ? `path ${showPath(e.path)}` : null, e.key !== null ? `key ${escapeControls(e.key)}` : null].filter(
    (x) => x !== null,
  );
  return `${escapeControls(e.code)}: ${escapeControls(e.message)}${where.length ? ` (${where.join(", ")})` : ""}`;
}

/** One validation problem: `error invalid_value at /a chunk_grid.configuration: message`. */
export function showProblem(p: Problem): string {
  const loc = showLoc(p.loc);
  const by = p.spec === undefined ? "" : ` [${escapeControls(p.spec)}${p.rule === undefined ? "" : ` ${escapeControls(p.rule)}`}]`;
  return `${escapeControls(p.severity)} ${escapeControls(p.kind)} at ${showPath(p.path)}${loc ? ` ${loc}` : ""}: ${escapeControls(p.message)}${by}`;
}

/** Where a convention is claimed: `ome-zarr-0.5 image at /labels/cells`. */
export function showClaim(d: DetectedConvention): string {
  return `${escapeControls(d.spec)} ${escapeControls(d.claim)} at ${showPath(d.path)}`;
}

/**
 * The claims in one line: each spec with its kinds of node and how many claim each, in the
 * order they first appear (`ome-zarr-0.5: plate 1, well 96, image 192`).
 */
export function summariseClaims(claims: DetectedConvention[]): string {
  const bySpec = new Map<string, Map<string, number>>();
  for (const c of claims) {
    const kinds = bySpec.get(c.spec) ?? new Map<string, number>();
    kinds.set(c.claim, (kinds.get(c.claim) ?? 0) + 1);
    bySpec.set(c.spec, kinds);
  }
  const specs = [...bySpec].map(([spec, kinds]) => {
    const counts = [...kinds].map(([claim, n]) => `${escapeControls(claim)} ${n}`);
    return `${escapeControls(spec)}: ${counts.join(", ")}`;
  });
  return specs.join("; ");
}

/** One difference from the expected ZOM: `changed at /a: shape.0: expected 1, found 5`. */
export function showDifference(d: Difference): string {
  return `${escapeControls(d.kind)} at ${showPath(d.path)}: ${escapeControls(d.message)}`;
}

/** `n thing` or `n things`. */
export function plural(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? "" : "s"}`;
}

// ---------------------------------------------------------------------------------------------
// Array values
// ---------------------------------------------------------------------------------------------

const encFloat = (x: number): JsonValue => (Number.isNaN(x) ? "NaN" : x === Infinity ? "Infinity" : x === -Infinity ? "-Infinity" : x);

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function encodeValue(v: unknown): JsonValue {
  if (typeof v === "number") return encFloat(v);
  if (typeof v === "bigint" || typeof v === "boolean" || typeof v === "string" || v === null) return v;
  if (v instanceof Uint8Array) return base64(v);
  if (Array.isArray(v)) return v.map(encodeValue);
  if (typeof v === "object" && v !== undefined) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeValue(x)]));
  }
  return String(v);
}

/** The values of a read, element by element, as JSON values. */
export interface Values {
  /** The number of elements. */
  readonly length: number;
  /** Element `i` (C order) as a JSON value. */
  at(i: number): JsonValue;
  /** Every element as one JSON array text. */
  json(): string;
}

function nameOfType(dataType: JsonValue): string {
  return typeof dataType === "string" ? dataType : String((dataType as { name?: unknown } | null)?.name ?? "");
}

/**
 * The values of a read as JSON values, one per element in C order: numbers (NaN and the
 * infinities as the strings "NaN", "Infinity", "-Infinity"), bigints for 64-bit integers and
 * datetimes, booleans, `[re, im]` for complex numbers, strings, base64 for byte strings and
 * objects for structs — the encoding of tests/fixtures/expected/*.values.json. Elements are
 * converted when asked for, so that a summarised text output does not convert them all.
 */
export function valuesOf(data: ChunkData, dataType: JsonValue): Values {
  const name = nameOfType(dataType);
  if (name === "bool") {
    const bytes = data as Uint8Array;
    return {
      length: bytes.length,
      at: (i) => bytes[i] !== 0,
      json: () => `[${Array.from(bytes, (x) => (x !== 0 ? "true" : "false")).join(",")}]`,
    };
  }
  if (name === "complex64" || name === "complex128") {
    const parts = data as Float32Array | Float64Array;
    const at = (i: number): JsonValue => [encFloat(parts[2 * i] ?? NaN), encFloat(parts[2 * i + 1] ?? NaN)];
    const length = Math.floor(parts.length / 2);
    return { length, at, json: () => JSON.stringify(Array.from({ length }, (_, i) => at(i))) };
  }
  if (ArrayBuffer.isView(data)) {
    // Numbers (and bigints): a typed array's join writes them as JSON does, NaN and the
    // infinities aside, which become strings.
    const view = data as unknown as ArrayLike<number | bigint> & { join(sep: string): string };
    const at = (i: number): JsonValue => encodeValue(view[i]);
    return { length: view.length, at, json: () => `[${view.join(",").replace(/-?Infinity|NaN/g, '"$&"')}]` };
  }
  const items = data as unknown[];
  const at = (i: number): JsonValue => encodeValue(items[i]);
  // Strings and byte strings go through JSON.stringify; structs may hold bigints, which only
  // zom's stringify writes exactly.
  const json = (): string => {
    const all = items.map(encodeValue);
    return all.some((v) => typeof v === "object" && v !== null) ? stringify(all) : JSON.stringify(all);
  };
  return { length: items.length, at, json };
}

/** The shortest decimal that reads back as the same float32 (what NumPy prints for float32). */
function shortestFloat32(x: number): string {
  for (let digits = 1; digits < 9; digits++) {
    const text = x.toPrecision(digits);
    if (Math.fround(Number(text)) === x) return String(Number(text));
  }
  return String(x);
}

/** One value for the text output: NaN and the infinities bare, everything else as compact JSON (controls escaped). */
function textValue(v: JsonValue, float32: boolean): string {
  if (v === "NaN" || v === "Infinity" || v === "-Infinity") return v;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return float32 ? shortestFloat32(v) : String(v);
  if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "number" || x === "NaN" || x === "Infinity" || x === "-Infinity")) {
    return `(${textValue(v[0] ?? null, float32)}, ${textValue(v[1] ?? null, float32)})`; // complex
  }
  return escapeControls(stringify(v));
}

/** NumPy's print threshold and edge items: beyond this many elements the text output is summarised. */
const THRESHOLD = 1000;
const EDGE = 3;

/**
 * Values of a region as NumPy prints them: nested brackets, one row per line, and beyond 1000
 * elements only the first and last three along each dimension (`...` between). Floats of 32 bits
 * or fewer (float32, complex64, float16, the registry's small floats) are written with the
 * fewest digits that identify them as float32.
 */
export function textValues(values: Values, shape: number[], dataType: JsonValue): string {
  const type = typeof dataType === "string" ? NUMERIC_TYPES[dataType] : undefined;
  const float32 = type !== undefined && (type.kind === "float" || type.kind === "complex") && type.bits <= 32;
  const show = (i: number): string => textValue(i < values.length ? values.at(i) : null, float32);
  if (shape.length === 0) return show(0);
  const summarise = values.length > THRESHOLD;
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const rows = (d: number, offset: number, indent: string): string => {
    const len = shape[d] ?? 0;
    const stride = strides[d] ?? 1;
    const idx = summarise && len > 2 * EDGE ? [0, 1, 2, -1, len - 3, len - 2, len - 1] : [...Array(len).keys()];
    if (d === shape.length - 1) {
      return `[${idx.map((i) => (i < 0 ? "..." : show(offset + i))).join(", ")}]`;
    }
    const sep = `,${"\n".repeat(shape.length - 1 - d)}${indent} `;
    return `[${idx.map((i) => (i < 0 ? "..." : rows(d + 1, offset + i * stride, `${indent} `))).join(sep)}]`;
  };
  return rows(0, 0, "");
}
