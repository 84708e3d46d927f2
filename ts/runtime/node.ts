/**
 * The Node runtime: decode workers are `worker_threads` Workers, by default evaluated from
 * the worker code the package carries (so that a server bundle that inlines zom still finds
 * it); files are read with `node:fs`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { availableParallelism, cpus } from "node:os";
import { Worker } from "node:worker_threads";
import type { FromWorker } from "../pool/protocol.js";
import { WORKER_SOURCE } from "../zom_worker_source.js";
import type { Runtime, WorkerEvents, WorkerPort, WorkerSource } from "./entry.js";

/**
 * The bundled worker code, ended by its start for Node. An eval'd worker runs as CommonJS, or
 * as an ES module when the parent was started with `--input-type=module`: the dynamic import
 * works in both (messages wait on the port until `serve` listens).
 */
const NODE_WORKER = `${WORKER_SOURCE}\nimport("node:worker_threads").then((m) => zomWorker.serve(m.parentPort));\n`;

/** A `file:` URL string as a URL (fs takes URL objects and paths). */
function local(location: URL | string): URL | string {
  return typeof location === "string" && location.startsWith("file:") ? new URL(location) : location;
}

function start(source: WorkerSource | undefined, events: WorkerEvents): WorkerPort {
  if (source !== undefined && typeof source !== "function") {
    // zom/worker is a browser script; Node starts the same code from the string it carries.
    throw new Error("in Node, init({ worker }) takes a function that starts a worker_threads Worker, not a URL");
  }
  const w = (source === undefined ? new Worker(NODE_WORKER, { eval: true, name: "zom-decode" }) : source()) as Worker;
  w.on("message", (m: FromWorker) => events.message(m));
  w.on("error", (e: Error) => events.error(e));
  w.on("exit", (code: number) => events.error(new Error(`the worker exited (code ${code})`)));
  return {
    post: (m, t) => w.postMessage(m, t),
    terminate: () => void w.terminate(),
    // Kept referenced while a decode is under way, unreferenced once idle.
    ref: () => w.ref(),
    unref: () => w.unref(),
  };
}

/** The runtime of Node (and of runtimes that take Node's export conditions: Deno, Bun). */
export const node: Runtime = {
  startWorker: start,
  parallelism: () => availableParallelism?.() ?? cpus().length,
  canShareMemory: () => true,
  readFile: async (location) => new Uint8Array(await readFile(local(location))),
};
