/**
 * A concurrency limiter: at most `max` tasks run at once, the others wait in FIFO order.
 * @module
 */
import { abortedError, onAbort } from "./signal.js";

interface Waiter {
  start: () => void;
}

/** Runs async tasks with at most `max` of them in flight. */
export class Limiter {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly max: number;

  /** A limiter for `max` tasks at once (at least 1). */
  constructor(max: number) {
    this.max = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : Number.MAX_SAFE_INTEGER;
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `task` once a slot is free. Rejects with a ZomError "Aborted" (for `key`) when
   * `signal` aborts while the task still waits; a started task sees the signal itself.
   */
  async run<T>(task: () => Promise<T>, key: string, signal?: AbortSignal): Promise<T> {
    await this.acquire(key, signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(key: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortedError(key, signal));
    if (this.running < this.max) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          off?.();
          this.running += 1;
          resolve();
        },
      };
      this.queue.push(waiter);
      const off =
        signal &&
        onAbort(signal, () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortedError(key, signal));
        });
    });
  }

  private release(): void {
    this.running -= 1;
    const next = this.queue.shift();
    if (next) next.start();
  }
}
