/**
 * AbortSignal plumbing of the stores: the Aborted error, abortable waits, and a signal shared by
 * several callers that aborts only when all of them have.
 * @module
 */
import { ZomError } from "../errors.js";

/** The error for a call its caller aborted. */
export function abortedError(key: string, signal: AbortSignal | undefined): ZomError {
  return new ZomError("Aborted", `reading ${key} was aborted`, { key, cause: signal?.reason });
}

/** Throws {@link abortedError} when `signal` is aborted. */
export function throwIfAborted(key: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(key, signal);
}

/**
 * `promise`, or a rejection with {@link abortedError} as soon as `signal` aborts (the work
 * behind `promise` is not stopped by this; see {@link Joint}).
 */
export function raceAbort<T>(promise: Promise<T>, key: string, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedError(key, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(key, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Waits `ms` milliseconds; rejects with {@link abortedError} when `signal` aborts first. */
export function sleep(ms: number, key: string, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(key, signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(key, signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The signal of one request made for several callers: it aborts once every caller that joined
 * has aborted. A caller without a signal keeps it alive for good.
 */
export class Joint {
  private readonly controller = new AbortController();
  private live = 0;
  private forever = false;

  /** The shared signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Adds a caller. */
  join(signal: AbortSignal | undefined): void {
    if (!signal) {
      this.forever = true;
      return;
    }
    if (signal.aborted) return;
    this.live += 1;
    signal.addEventListener(
      "abort",
      () => {
        this.live -= 1;
        if (this.live === 0 && !this.forever) this.controller.abort(signal.reason);
      },
      { once: true },
    );
  }
}
