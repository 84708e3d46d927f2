/**
 * AbortSignal plumbing of the stores and reads: the Aborted error, abortable waits, a signal
 * shared by several callers that aborts only when all of them have, and {@link onAbort}, the
 * one way zom listens to a signal.
 * @module
 */
import { ZomError } from "../shared/errors.js";

/** What is to run when a signal aborts, by signal: zom's one listener on each signal runs them. */
const onAborts = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` once when `signal` aborts (not when it is aborted already: check first); returns
 * what removes it. However many reads and requests wait on one signal (a viewer's pan shared by
 * a screenful of tiles), the signal carries one listener of zom's: Node warns of a leak past ten.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let waiting = onAborts.get(signal);
  if (waiting === undefined) {
    const fresh = new Set<() => void>();
    onAborts.set(signal, fresh);
    signal.addEventListener(
      "abort",
      () => {
        const run = [...fresh];
        fresh.clear();
        for (const f of run) f();
      },
      { once: true },
    );
    waiting = fresh;
  }
  const entry = () => fn();
  waiting.add(entry);
  return () => void waiting.delete(entry);
}

/** The error for a call its caller aborted. */
export function abortedError(key: string, signal: AbortSignal | undefined): ZomError {
  return new ZomError("Aborted", `reading ${key} was aborted`, { key, cause: signal?.reason });
}

/** Throws {@link abortedError} when `signal` is aborted. */
export function throwIfAborted(key: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(key, signal);
}

/**
 * `promise`, or a rejection with {@link abortedError} (or what `error` makes) as soon as
 * `signal` aborts (the work behind `promise` is not stopped by this; see {@link Joint}).
 */
export function raceAbort<T>(
  promise: Promise<T>,
  key: string,
  signal: AbortSignal | undefined,
  error = () => abortedError(key, signal),
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(error());
  }
  return new Promise<T>((resolve, reject) => {
    const off = onAbort(signal, () => reject(error()));
    promise.then(
      (v) => {
        off();
        resolve(v);
      },
      (e: unknown) => {
        off();
        reject(e);
      },
    );
  });
}

/** Waits `ms` milliseconds; rejects with {@link abortedError} when `signal` aborts first. */
export function sleep(ms: number, key: string, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(key, signal));
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off?.();
      resolve();
    }, ms);
    const off =
      signal &&
      onAbort(signal, () => {
        clearTimeout(timer);
        reject(abortedError(key, signal));
      });
  });
}

/**
 * A signal that aborts as soon as one of `signals` does (with its reason); undefined when none
 * is given.
 */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  if (given.length <= 1) return given[0];
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === "function") return any.call(AbortSignal, given);
  const controller = new AbortController();
  for (const s of given) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    onAbort(s, () => controller.abort(s.reason));
  }
  return controller.signal;
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
    onAbort(signal, () => {
      this.live -= 1;
      if (this.live === 0 && !this.forever) this.controller.abort(signal.reason);
    });
  }
}
