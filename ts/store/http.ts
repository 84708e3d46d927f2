/**
 * One HTTP exchange with retries: backoff with jitter on 408/425/429/5xx and network errors
 * (a server's Retry-After respected up to a cap; never for a redirect loop or a body that does
 * not decode), a timeout per attempt, the caller's
 * AbortSignal, the concurrency limit, the request/byte counters, and a check that a body is as
 * long as its Content-Length says and no longer than the store allows.
 * @module
 */

import { whenShared } from "../parts/shared.js";
import { ZomError } from "../shared/errors.js";
import type { FetchStoreStats } from "./fetch-types.js";
import type { Limiter } from "./limit.js";
import { abortedError, onAbort, sleep } from "./signal.js";
import { httpError, parseContentLength } from "./wire.js";

export { httpError } from "./wire.js";

/** What every request of a store shares. */
export interface HttpContext {
  /** The fetch function. */
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers for every request. */
  headers: Headers;
  /** The credentials mode, when set. */
  credentials: RequestCredentials | undefined;
  /** The `cache` mode of Range requests, when set. */
  rangeCache: RequestCache | undefined;
  /** Milliseconds per attempt; not finite or <= 0 for none. */
  timeout: number;
  /** Retries after the first attempt. */
  retries: number;
  /** The first backoff, in ms. */
  retryDelay: number;
  /** The longest wait before a retry, in ms. */
  maxRetryDelay: number;
  /** The concurrency limit. */
  limiter: Limiter;
  /** The counters. */
  stats: FetchStoreStats;
  /** The longest body accepted, in bytes. */
  maxResponseBytes: number;
}

/** One request. */
export interface HttpRequest {
  /** The URL. */
  url: string;
  /** GET or HEAD. */
  method: "GET" | "HEAD";
  /** The Range header value, if any. */
  range?: string;
  /** The store key (for errors). */
  key: string;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
  /** The caller's own limit on the body, when stricter than the store's `maxResponseBytes`. */
  maxBytes?: number;
}

/** A final answer: any status that is not retried (or a retried one that came back fine). */
export interface HttpAnswer {
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The body of a 2xx GET answer; empty otherwise. */
  body: Uint8Array;
  /** The URL answered (after redirects). */
  url: string;
}

const EMPTY = new Uint8Array(0);

/** Statuses worth another attempt. */
function isRetryable(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** Milliseconds a Retry-After header value asks for (delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const when = Date.parse(v);
  return Number.isNaN(when) ? null : Math.max(0, when - now);
}

type Attempt =
  | { ok: true; answer: HttpAnswer }
  | { ok: false; message: string; cause?: unknown; retryAfter: number | null; final?: boolean };

/** Sends `req`, retrying as the context says; throws ZomError HttpError or Aborted. */
export async function send(ctx: HttpContext, req: HttpRequest): Promise<HttpAnswer> {
  const retries = Math.max(0, Math.floor(ctx.retries));
  for (let attempt = 0; ; attempt++) {
    const outcome = await ctx.limiter.run(() => once(ctx, req), req.key, req.signal);
    if (outcome.ok) return outcome.answer;
    if (attempt >= retries || outcome.final === true) {
      const tries = attempt + 1;
      throw httpError(req, `${outcome.message}${tries > 1 ? ` (after ${tries} attempts)` : ""}`, outcome.cause);
    }
    const backoff = Math.min(ctx.maxRetryDelay, ctx.retryDelay * 2 ** attempt);
    const jittered = backoff / 2 + (Math.random() * backoff) / 2;
    const wait = outcome.retryAfter === null ? jittered : Math.min(ctx.maxRetryDelay, outcome.retryAfter);
    await sleep(Math.max(0, wait), req.key, req.signal);
  }
}

/** One attempt; resolves to the answer or to a retryable failure. */
async function once(ctx: HttpContext, req: HttpRequest): Promise<Attempt> {
  const { signal } = req;
  if (signal?.aborted) throw abortedError(req.key, signal);
  const controller = new AbortController();
  const off = signal && onAbort(signal, () => controller.abort(signal.reason));
  let timedOut = false;
  const timer =
    Number.isFinite(ctx.timeout) && ctx.timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error("timeout"));
        }, ctx.timeout)
      : undefined;
  const headers = new Headers(ctx.headers);
  if (req.range !== undefined) headers.set("Range", req.range);
  const init: RequestInit = { method: req.method, headers, signal: controller.signal };
  if (ctx.credentials !== undefined) init.credentials = ctx.credentials;
  if (req.range !== undefined && ctx.rangeCache !== undefined) init.cache = ctx.rangeCache;
  try {
    ctx.stats.requests += 1;
    const res = await ctx.fetch(req.url, init);
    // The answer is read through the module: while it compiles, wait for it here.
    await whenShared();
    const answered = { status: res.status, headers: res.headers, url: res.url || req.url };
    if (isRetryable(res.status)) {
      discard(res);
      return {
        ok: false,
        message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`,
        retryAfter: parseRetryAfter(res.headers.get("retry-after")),
      };
    }
    if (req.method === "HEAD" || res.status < 200 || res.status > 299) {
      discard(res);
      return { ok: true, answer: { ...answered, body: EMPTY } };
    }
    let body: Uint8Array;
    try {
      body = await readBody(res, ctx, req);
    } catch (e) {
      if (e instanceof ZomError) throw e;
      if (signal?.aborted || timedOut) throw e;
      if (permanent(e)) return { ok: false, message: `body unreadable (${describe(e)})`, cause: e, retryAfter: null, final: true };
      return { ok: false, message: `body cut short (${describe(e)})`, cause: e, retryAfter: null };
    }
    const short = truncation(res, body.length);
    if (short !== null) return { ok: false, message: short, retryAfter: null };
    return { ok: true, answer: { ...answered, body } };
  } catch (e) {
    if (signal?.aborted) throw abortedError(req.key, signal);
    if (e instanceof ZomError) throw e;
    if (timedOut) return { ok: false, message: `timed out after ${ctx.timeout} ms`, cause: e, retryAfter: null };
    return { ok: false, message: `network error: ${describe(e)}`, cause: e, retryAfter: null, final: permanent(e) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    off?.();
  }
}

/**
 * Whether a failed fetch is one no retry can mend: a redirect loop (undici's "redirect count
 * exceeded") or a body whose Content-Encoding does not decode (zlib's `Z_*` codes). Browsers
 * report both as a bare TypeError, indistinguishable from a dropped connection, so there they
 * are retried like one.
 */
function permanent(e: unknown): boolean {
  let c: unknown = e;
  for (let depth = 0; c instanceof Error && depth < 4; depth++, c = c.cause) {
    const code = (c as { code?: unknown }).code;
    if (/redirect count exceeded/i.test(c.message)) return true;
    if (typeof code === "string" && /^Z_[A-Z_]+$/.test(code)) return true;
  }
  return false;
}

/** An error's message, with its cause's (undici puts the socket error there). */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return `${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ""}`;
}

/** The "LimitExceeded" error of a body over `max`, the value of the option `limit`. */
export function overLimit(key: string, url: string, what: string, max: number, limit: string): ZomError {
  return new ZomError("LimitExceeded", `GET ${url}: the response body ${what}, over the limit ${limit} = ${max}`, { key });
}

/**
 * The body of `res`, refused with "LimitExceeded" beyond the store's `maxResponseBytes` or the
 * caller's `maxBytes`: before reading when an identity Content-Length says so, else while
 * streaming and counting the decoded bytes (a server may send no length, or a compressed body
 * that inflates), so a hostile server cannot make the page hold more.
 */
async function readBody(res: Response, ctx: HttpContext, req: HttpRequest): Promise<Uint8Array> {
  const callers = req.maxBytes !== undefined && req.maxBytes < ctx.maxResponseBytes;
  const max = callers ? (req.maxBytes as number) : ctx.maxResponseBytes;
  const tooLarge = (what: string) => {
    discard(res);
    return overLimit(req.key, req.url, what, max, callers ? "maxBytes" : "maxResponseBytes");
  };
  const encoding = res.headers.get("content-encoding");
  const identity = encoding === null || encoding.trim().toLowerCase() === "identity";
  const length = parseContentLength(res.headers.get("content-length"));
  if (length !== null && length > max) throw tooLarge(`is ${length} bytes (Content-Length)`);
  // fetch itself never delivers more than an identity Content-Length: one read, no copies.
  if ((length !== null && identity) || res.body === null) {
    const whole = new Uint8Array(await res.arrayBuffer());
    ctx.stats.bytes += whole.length;
    return whole;
  }
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    ctx.stats.bytes += value.length;
    if (total > max) {
      reader.cancel().catch(() => undefined);
      parts.length = 0;
      throw tooLarge(`grew past ${max} bytes`);
    }
    parts.push(value);
  }
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const body = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}

/** Lets go of a body that will not be read. */
function discard(res: Response): void {
  res.body?.cancel().catch(() => undefined);
}

/**
 * A message when a body is shorter or longer than its Content-Length, else null. Skipped when the
 * body was content-decoded (Content-Length counts the encoded bytes) or the headers are
 * CORS-filtered (Content-Encoding may be present but hidden); there the fetch implementation
 * itself fails on a cut connection.
 */
function truncation(res: Response, received: number): string | null {
  if (res.type === "cors" || res.type === "opaque") return null;
  const encoding = res.headers.get("content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") return null;
  const expected = parseContentLength(res.headers.get("content-length"));
  if (expected === null) return null;
  if (expected === received) return null;
  return `body has ${received} bytes, Content-Length says ${expected} (truncated)`;
}
