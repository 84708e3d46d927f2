/**
 * Array element values as table text: numbers, booleans, strings, bytes, complex numbers,
 * datetimes and timedeltas (int64 BigInts with a unit), and struct fields.
 * @module
 */

import { NUMERIC_TYPES } from "../../ts/generated/boundary.js";

/** A data type's name: "int32", "numpy.datetime64", "structured", a v2 typestring. */
export function nameOf(dtype: unknown): string {
  if (typeof dtype === "string") return dtype;
  const name = (dtype as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "?";
}

/** The complex types (complex64, complex128, the registry's complex_*): values come as (re, im) pairs. */
export function isComplex(name: string): boolean {
  return NUMERIC_TYPES[name]?.kind === "complex";
}

/** numpy.datetime64 / numpy.timedelta64: int64 counts of a unit. */
export function isTemporal(name: string): boolean {
  return name === "numpy.datetime64" || name === "numpy.timedelta64";
}

const NAT = -(2n ** 63n);
/** Nanoseconds per unit (calendar units Y and M have none). */
const UNIT_NS: { [unit: string]: bigint } = {
  W: 604_800_000_000_000n,
  D: 86_400_000_000_000n,
  h: 3_600_000_000_000n,
  m: 60_000_000_000n,
  s: 1_000_000_000n,
  ms: 1_000_000n,
  us: 1_000n,
  ns: 1n,
};

function temporal(value: unknown, dtype: unknown): string {
  if (typeof value !== "bigint" && typeof value !== "number") return String(value);
  const v = BigInt(value);
  if (v === NAT) return "NaT";
  const config = (dtype as { configuration?: { unit?: unknown; scale_factor?: unknown } }).configuration ?? {};
  const unit = typeof config.unit === "string" ? config.unit : "s";
  const scale = typeof config.scale_factor === "number" && Number.isInteger(config.scale_factor) ? BigInt(config.scale_factor) : 1n;
  const count = v * scale;
  const label = `${count} ${unit}`;
  if (nameOf(dtype) === "numpy.timedelta64") return label;
  let iso: string | null = null;
  if (unit === "Y" || unit === "M") {
    const months = unit === "Y" ? count * 12n : count;
    const year = 1970n + months / 12n - (months % 12n < 0n ? 1n : 0n);
    const month = ((months % 12n) + 12n) % 12n;
    iso = unit === "Y" ? `${year}` : `${year}-${String(Number(month) + 1).padStart(2, "0")}`;
  } else {
    const per = UNIT_NS[unit];
    if (per !== undefined) {
      const ns = count * per;
      const ms = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n);
      const rest = ns - ms * 1_000_000n;
      if (ms > -8_640_000_000_000_000n && ms < 8_640_000_000_000_000n) {
        const text = new Date(Number(ms)).toISOString();
        if (unit === "D" || unit === "W") iso = text.slice(0, 10);
        else if (per >= 1_000_000_000n) iso = text.replace(".000Z", "Z");
        else if (per >= 1_000_000n) iso = text;
        else
          iso = `${text.slice(0, -1)}${String(rest)
            .padStart(6, "0")
            .slice(0, unit === "us" ? 3 : 6)}Z`;
      }
    }
  }
  return iso === null ? label : `${iso}  (${label})`;
}

function bytesText(b: Uint8Array): string {
  let s = "";
  for (const x of b)
    s += x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, "0")}`;
  return `b"${s}"`;
}

function number(x: number, name: string): string {
  if (Number.isNaN(x)) return "NaN";
  const type = NUMERIC_TYPES[name];
  if (type !== undefined && (type.kind === "float" || type.kind === "complex") && type.bits <= 32) {
    return String(Number.parseFloat(x.toPrecision(type.bits <= 16 ? 4 : 7)));
  }
  return String(x);
}

/** One element as text, by its data type. */
export function formatValue(value: unknown, dtype: unknown): string {
  const name = nameOf(dtype);
  if (value === undefined || value === null) return "null";
  if (isTemporal(name)) return temporal(value, dtype);
  if (isComplex(name) && Array.isArray(value)) {
    const [re, im] = value.map(Number) as [number, number];
    return `${number(re, name)}${im < 0 || Object.is(im, -0) ? "-" : "+"}${number(Math.abs(im), name)}j`;
  }
  if (name === "bool" && typeof value === "number") return value ? "true" : "false";
  if (typeof value === "number") return number(value, name);
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Uint8Array) return bytesText(value);
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v, dtype)).join(", ")}]`;
  if (typeof value === "object") {
    const fields = (dtype as { configuration?: { fields?: unknown } } | null)?.configuration?.fields;
    const types = new Map<string, unknown>();
    if (Array.isArray(fields)) {
      for (const f of fields) if (Array.isArray(f)) types.set(String(f[0]), f[1]);
    }
    const parts = Object.entries(value as object).map(([k, v]) => `${k}: ${formatValue(v, types.get(k))}`);
    return `{${parts.join(", ")}}`;
  }
  return String(value);
}
