/**
 * The page's side of the worker: requests as promises, with progress and store counters
 * delivered to callbacks.
 * @module
 */
import type { Failure, Request, Response } from "./protocol.js";

/** Distributive Omit, so that each request type keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

/** A failure as an Error the page can catch and show. */
export class WorkerFailure extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.message);
    this.failure = failure;
  }
}

/** The zom worker, started from worker.js beside the page's script. */
export class ZomWorker {
  readonly #worker: Worker;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void; progress?: (r: Response) => void }>();
  /** Called with the store's counters, the chunk cache's hits and misses and zom's started decode workers as they change. */
  onStats: (requests: number, bytes: number, cacheHits: number, cacheMisses: number, decodeWorkers: number) => void = () => {};
  /** Called when the worker cannot work at all (the WebAssembly did not load, a crash). */
  onFatal: (failure: Failure) => void = () => {};

  constructor() {
    this.#worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.#worker.addEventListener("message", (e: MessageEvent<Response>) => this.#receive(e.data));
    this.#worker.addEventListener("error", (e) => {
      const failure: Failure = { code: "WorkerError", message: e.message || "the worker failed to start", path: null, key: null };
      this.onFatal(failure);
      for (const p of this.#pending.values()) p.reject(new WorkerFailure(failure));
      this.#pending.clear();
    });
  }

  #receive(r: Response): void {
    if (r.type === "stats") {
      this.onStats(r.requests, r.bytes, r.cacheHits, r.cacheMisses, r.decodeWorkers);
      return;
    }
    if (r.type === "fatal") {
      this.onFatal(r.error);
      return;
    }
    const p = this.#pending.get(r.id);
    if (p === undefined) return;
    // Notices on the way to the answer: a walk's progress, then its tree and the nodes'
    // summaries before its validation.
    if (r.type === "progress" || r.type === "opened" || r.type === "icechunk" || r.type === "tree" || r.type === "summaries") {
      p.progress?.(r);
      return;
    }
    this.#pending.delete(r.id);
    if (r.type === "error") p.reject(new WorkerFailure(r.error));
    else p.resolve(r);
  }

  /** Sends a notice that has no answer. */
  notify(notice: Extract<Request, { id: 0 }>): void {
    this.#worker.postMessage(notice);
  }

  /** Sends a request; resolves with the answer, rejects with a {@link WorkerFailure}. */
  call<T extends Response["type"]>(request: WithoutId<Request>, progress?: (r: Response) => void): Promise<Extract<Response, { type: T }>> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (r: Response) => void, reject, progress });
      this.#worker.postMessage({ ...request, id });
    });
  }
}
