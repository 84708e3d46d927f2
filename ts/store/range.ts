/**
 * Byte-range bookkeeping: Range header values, Content-Range parsing, the checks that a 206
 * answer holds exactly the bytes asked for, and the caller's `maxBytes` bound on a read.
 * @module
 */
import { ZomError } from "../errors.js";
import type { HttpAnswer } from "./http.js";
import { httpError } from "./http.js";
import type { ByteRange, StoreCallOptions } from "./types.js";

/** A parsed `Content-Range: bytes start-end/total` (`total` null for "*"), or the 416 form (`bytes *` + `/total`). */
export type ContentRange = { start: number; end: number; total: number | null } | { unsatisfied: true; total: number };

/** Parses a Content-Range header value; null when absent or malformed. */
export function parseContentRange(value: string | null): ContentRange | null {
  if (value === null) return null;
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\s*\/\s*(\d+|\*)\s*$/i.exec(value);
  if (!m) return null;
  const total = m[3] === "*" || m[3] === undefined ? null : Number(m[3]);
  if (m[1] === undefined || m[2] === undefined) return total === null ? null : { unsatisfied: true, total };
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return null;
  if (total !== null && (!Number.isSafeInteger(total) || end >= total)) return null;
  return { start, end, total };
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

/**
 * The body of a 206 answer to `bytes=offset-(offset+length-1)`, after checking that the
 * Content-Range names those bytes (or fewer, ending at the end of the value) and that the body
 * has that many bytes. Without a Content-Range (CORS setups that do not expose it) the body
 * must be exactly as long as asked.
 */
export function checkedPrefix(ans: HttpAnswer, key: string, offset: number, length: number): Uint8Array {
  const req = { method: "GET", url: ans.url, key };
  const want = `bytes=${offset}-${offset + length - 1}`;
  const raw = ans.headers.get("content-range");
  const cr = parseContentRange(raw);
  if (raw === null) {
    if (ans.body.length === length) return ans.body;
    throw httpError(req, `206 without Content-Range has ${ans.body.length} bytes for ${want}`);
  }
  if (cr === null || "unsatisfied" in cr) throw httpError(req, `malformed Content-Range "${raw}" for ${want}`);
  const lastWanted = offset + length - 1;
  const shortAtEnd = cr.end < lastWanted && cr.total !== null && cr.end === cr.total - 1;
  if (cr.start !== offset || (cr.end !== lastWanted && !shortAtEnd)) {
    throw httpError(req, `Content-Range "${raw}" does not match the requested ${want}`);
  }
  return bodyOfLength(ans, req, cr.end - cr.start + 1, raw);
}

/**
 * The body of a 206 answer to `bytes=-n`: the Content-Range must name the last min(n, total)
 * bytes. Without a Content-Range the body must not be longer than n.
 */
export function checkedSuffix(ans: HttpAnswer, key: string, n: number): Uint8Array {
  const req = { method: "GET", url: ans.url, key };
  const raw = ans.headers.get("content-range");
  const cr = parseContentRange(raw);
  if (raw === null) {
    if (ans.body.length <= n) return ans.body;
    throw httpError(req, `206 without Content-Range has ${ans.body.length} bytes for bytes=-${n}`);
  }
  if (cr === null || "unsatisfied" in cr) throw httpError(req, `malformed Content-Range "${raw}" for bytes=-${n}`);
  const count = cr.end - cr.start + 1;
  const endsAtEnd = cr.total === null || cr.end === cr.total - 1;
  const rightCount = cr.total === null ? count === n : count === Math.min(n, cr.total);
  if (!endsAtEnd || !rightCount) throw httpError(req, `Content-Range "${raw}" does not match the requested bytes=-${n}`);
  return bodyOfLength(ans, req, count, raw);
}

function bodyOfLength(ans: HttpAnswer, req: { method: string; url: string; key: string }, count: number, raw: string): Uint8Array {
  if (ans.body.length !== count) {
    throw httpError(req, `body has ${ans.body.length} bytes, Content-Range "${raw}" says ${count}`);
  }
  return ans.body;
}

/** `bytes.slice(offset, offset + length)`, without a copy when that is all of `bytes`. */
export function cut(bytes: Uint8Array, offset: number, length: number): Uint8Array {
  if (offset === 0 && length >= bytes.length) return bytes;
  return bytes.slice(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));
}
