/**
 * The decode workers' settings: where workers come from and how many a read uses by default,
 * as `init` sets them, and the check of a `workers` option.
 * @module
 */

import type { WorkerSource } from "../runtime/entry.js";
import { ZomError } from "../shared/errors.js";

/** The settings `init` gave: the workers' source and the default number of workers. */
export const workerSettings: { source?: WorkerSource; count?: number } = {};

/** A `workers` option, checked: a non-negative integer or undefined. */
export function checkWorkers(workers: unknown): number | undefined {
  if (workers === undefined) return undefined;
  if (typeof workers !== "number" || !Number.isInteger(workers) || workers < 0) {
    throw new ZomError("InvalidArgument", "option 'workers' must be a non-negative integer");
  }
  return workers;
}

/** Sets the fields given (`init`'s `worker` and `workers` options). */
export function configureWorkers(options: { worker?: WorkerSource; workers?: number }): void {
  const count = checkWorkers(options.workers);
  if (count !== undefined) workerSettings.count = count;
  if (options.worker !== undefined) {
    const w = options.worker;
    if (!(w instanceof URL) && typeof w !== "string" && typeof w !== "function") {
      throw new ZomError("InvalidArgument", "option 'worker' must be a URL, a string or a function that starts a Worker");
    }
    workerSettings.source = w;
  }
}
