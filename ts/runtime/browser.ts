/**
 * The browser runtime: Web Workers (in pages and in workers), started by default from a
 * `blob:` URL of the worker code the package carries, so that no bundler has to find,
 * copy or rewrite a worker file.
 * @module
 */
import type { FromWorker } from "../pool/protocol.js";
import { WORKER_SOURCE } from "../zom_worker_source.js";
import type { Runtime, WorkerEvents, WorkerLike, WorkerPort, WorkerSource } from "./entry.js";

let codeUrl: string | undefined;

/** The `blob:` URL of the bundled worker code (made once; it lives as long as the page). */
function bundledWorkerUrl(): string {
  codeUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE, "\nzomWorker.serve(self);\n"], { type: "text/javascript" }));
  return codeUrl;
}

/** What to do when the default worker cannot start. */
const BLOCKED_HELP =
  "a Content-Security-Policy without blob: in worker-src? Serve zom's worker script (node_modules/zom/pkg/zom_worker.js, " +
  '"zom/worker") and pass its URL: init({ worker: url })';

/** A worker running the bundled code; a refusal (a CSP may throw here) says what to do. */
function bundledWorker(): Worker {
  try {
    return new Worker(bundledWorkerUrl(), { name: "zom-decode" });
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)} (${BLOCKED_HELP})`);
  }
}

function start(source: WorkerSource | undefined, events: WorkerEvents): WorkerPort {
  if (typeof Worker !== "function" && typeof source !== "function") throw new Error("Worker is not available here");
  const w = (
    typeof source === "function" ? source() : source === undefined ? bundledWorker() : new Worker(source, { name: "zom-decode" })
  ) as WorkerLike & Pick<Worker, "addEventListener">; // zom/worker is a classic script
  w.addEventListener("message", (e: MessageEvent<FromWorker>) => events.message(e.data));
  w.addEventListener("error", (e: ErrorEvent) => {
    e.preventDefault();
    const why = e.message || (source === undefined ? `the worker failed to load (${BLOCKED_HELP})` : "the worker failed to load");
    events.error(new Error(why));
  });
  w.addEventListener("messageerror", () => events.error(new Error("a message from the worker could not be read")));
  return { post: (m, t) => w.postMessage(m, t ?? []), terminate: () => void w.terminate() };
}

/** The runtime of browsers and their workers. */
export const browser: Runtime = {
  startWorker: start,
  parallelism: () => (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency,
  canShareMemory: () =>
    typeof SharedArrayBuffer === "function" && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
};
