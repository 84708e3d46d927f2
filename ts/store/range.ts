/**
 * Byte-range bookkeeping: the caller's range and `maxBytes` checked, and answers to range
 * requests read through the WebAssembly module (`src/store/wire/range.rs`, the rules the Rust
 * `HttpStore` follows too): Content-Range parsing, the checks that a 206 holds exactly the
 * bytes asked for, what to keep of a 200.
 * @module
 */
import { ZomError } from "../shared/errors.js";
import type { HttpAnswer } from "./http.js";
import type { ByteRange, StoreCallOptions } from "./readable.js";
import { wire } from "./wire.js";

/**
 * How a store read through WebAssembly asks for the value at `key` (`read_request` in
 * `src/wasm/store.rs`): `[mode, a, b]`, mode 0 all of it within the call's `maxBytes` (`a`),
 * 1 `b` bytes from `a`, 2 the last `a` bytes.
 */
export function readRequest(key: string, range: ByteRange | undefined, options: StoreCallOptions): [number, number, number] {
  if (range === undefined) return [0, maxBytesOf(key, options), 0];
  return "suffixLength" in range ? [2, range.suffixLength, 0] : [1, range.offset, range.length];
}

/** The caller's `maxBytes` call option checked: a non-negative number, Infinity when absent. */
export function maxBytesOf(key: string, options: StoreCallOptions): number {
  const max = options.maxBytes;
  if (max === undefined) return Infinity;
  if (typeof max !== "number" || Number.isNaN(max) || max < 0) {
    throw new ZomError("InvalidArgument", `maxBytes must be a non-negative number, got ${String(max)}`, { key });
  }
  return max;
}

/** A range argument checked: non-negative safe integers, the end representable. */
export function checkRange(key: string, range: ByteRange): ByteRange {
  const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (typeof range === "object" && range !== null) {
    if ("suffixLength" in range) {
      if (ok(range.suffixLength)) return { suffixLength: range.suffixLength };
    } else if (ok(range.offset) && ok(range.length) && Number.isSafeInteger(range.offset + range.length)) {
      return { offset: range.offset, length: range.length };
    }
  }
  throw new ZomError("InvalidArgument", `invalid byte range for ${key}: ${JSON.stringify(range)}`, { key });
}

/** `bytes[start, end)` of the WebAssembly's answer, without a copy when that is all of `bytes`. */
function slice(bytes: Uint8Array, range: Float64Array): Uint8Array {
  const start = range[0] ?? 0;
  const end = range[1] ?? bytes.length;
  return start === 0 && end === bytes.length ? bytes : bytes.slice(start, end);
}

/**
 * The bytes asked for of a 2xx answer to `bytes=offset-(offset+length-1)`: a 206 whose
 * Content-Range (or, where CORS hides it, length) matches the request, else an HttpError; a
 * 200 (the whole value) cut to the range (fewer bytes at its end, none past it).
 */
export function keepPrefix(ans: HttpAnswer, key: string, offset: number, length: number): Uint8Array {
  const req = { method: "GET", url: ans.url, key };
  const cr = ans.headers.get("content-range") ?? undefined;
  return slice(
    ans.body,
    wire((raw) => raw.httpCheckPrefix(ans.status === 206, cr, ans.body.length, offset, length), req),
  );
}

/**
 * The bytes asked for of a 2xx answer to `bytes=-n`: a 206 whose Content-Range names the last
 * min(n, total) bytes (without one: no more than n bytes), else an HttpError; the last n bytes
 * of a 200.
 */
export function keepSuffix(ans: HttpAnswer, key: string, n: number): Uint8Array {
  const req = { method: "GET", url: ans.url, key };
  const cr = ans.headers.get("content-range") ?? undefined;
  return slice(
    ans.body,
    wire((raw) => raw.httpCheckSuffix(ans.status === 206, cr, ans.body.length, n), req),
  );
}

/** The last `n` bytes of a whole value (all of a shorter one). */
export function tail(bytes: Uint8Array, n: number): Uint8Array {
  return slice(
    bytes,
    wire((raw) => raw.httpCheckSuffix(false, undefined, bytes.length, n)),
  );
}
