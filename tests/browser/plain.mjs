// Values of a read in a form Playwright carries between the test pages and Node unchanged:
// `plain` runs in the page (tests/browser/pool-page.mjs, hierarchy-page.mjs), `unplain` in
// the Node tests that undo it.

/**
 * TypedArrays become arrays, BigInts {$big}, non-finite and negative-zero numbers {$num},
 * byte strings {$u8}; strings, booleans, arrays and struct objects are kept.
 */
export function plain(v) {
  if (typeof v === "bigint") return { $big: v.toString() };
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0) ? v : { $num: Object.is(v, -0) ? "-0" : String(v) };
  if (v instanceof Uint8Array) return { $u8: Array.from(v) };
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Undoes {@link plain}. */
export function unplain(v) {
  if (Array.isArray(v)) return v.map(unplain);
  if (v !== null && typeof v === "object") {
    if ("$big" in v) return BigInt(v.$big);
    if ("$num" in v) return Number(v.$num);
    if ("$u8" in v) return Uint8Array.from(v.$u8);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unplain(x)]));
  }
  return v;
}

/** A thrown error as plain data: name, code, path, key and message. */
export const describeError = (e) => ({
  name: e?.name,
  code: e?.code ?? null,
  path: e?.path ?? null,
  key: e?.key ?? null,
  message: String(e?.message ?? e),
});
