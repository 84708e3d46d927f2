/**
 * The decode pool's worker: a Web Worker in browsers, a worker_threads Worker in Node.
 * scripts/build.mjs bundles this module with the wasm-bindgen glue into one script
 * (pkg/zom_worker.js, and as a string in pkg/zom_worker_source.js) that ends with the
 * runtime's call of {@link serve}. It instantiates the WebAssembly.Module the main
 * thread compiled and posts, then decodes chunks: encoded bytes in (transferred), the whole
 * chunk's element bytes out (transferred back), or, when the read's output is a
 * SharedArrayBuffer, the chunk's selected elements copied straight into it. See
 * ts/pool/protocol.ts for the messages.
 * @module
 */

import { partCaller, startPart } from "../parts/codec-calls.js";
import { applySteps } from "../shared/codecs.js";
import { initSync, PoolDecoder, setPartCaller } from "../zom_wasm.js";
import { wasmBytes } from "./memory.js";
import { place } from "./place.js";
import type { FromWorker, ToWorker, WireError } from "./protocol.js";

type Post = (message: FromWorker, transfer?: ArrayBuffer[]) => void;

/** The decoders of the arrays this worker was sent, by the main thread's array id. */
const decoders = new Map<number, PoolDecoder>();

/** Buffers the main thread gave back, to write decoded chunks into (no fresh memory per chunk). */
const spare: ArrayBuffer[] = [];
const MAX_SPARE = 8;
/** The most bytes of spare buffers kept. */
const MAX_SPARE_BYTES = 4 << 20;
let spareBytes = 0;

/** A buffer of at least `n` bytes (at most twice that): a spare one, else a new one. */
function take(n: number): ArrayBuffer {
  let best = -1;
  spare.forEach((b, i) => {
    if (b.byteLength >= n && b.byteLength <= 2 * n && (best < 0 || b.byteLength < (spare[best] as ArrayBuffer).byteLength)) best = i;
  });
  if (best < 0) return new ArrayBuffer(n);
  const buffer = spare.splice(best, 1)[0] as ArrayBuffer;
  spareBytes -= buffer.byteLength;
  return buffer;
}

/** A thrown value as plain data: the core's `{code, message, path, key}`, or a message. */
function describe(e: unknown): WireError {
  if (typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string") {
    const x = e as { code: string; message?: unknown; path?: unknown; key?: unknown };
    return {
      code: x.code,
      message: String(x.message ?? ""),
      path: typeof x.path === "string" ? x.path : null,
      key: typeof x.key === "string" ? x.key : null,
    };
  }
  return { code: null, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e), path: null, key: null };
}

function handle(message: ToWorker, post: Post): void {
  switch (message.t) {
    case "init":
      try {
        initSync({ module: message.module });
        setPartCaller(partCaller);
        post({ t: "ready" });
      } catch (e) {
        post({ t: "failed", error: describe(e) });
      }
      return;
    case "external":
      void external(message, post);
      return;
    case "forget":
      decoders.get(message.a)?.free();
      decoders.delete(message.a);
      return;
    case "decode":
      for (const b of message.spare) {
        if (spare.length >= MAX_SPARE || spareBytes + b.byteLength > MAX_SPARE_BYTES) continue;
        spare.push(b);
        spareBytes += b.byteLength;
      }
      try {
        let decoder = decoders.get(message.a);
        if (decoder === undefined) {
          if (message.meta === undefined) throw new Error("the worker was not sent this array's metadata");
          // The codec parts the array's decoding calls, compiled by the main thread.
          for (const [name, module] of message.parts ?? []) startPart(name, module);
          // Registered codecs are split off the array's pipeline as on the calling thread.
          decoder = new PoolDecoder(message.meta, message.path ?? "", message.limits, message.codecs ?? []);
          decoders.set(message.a, decoder);
        }
        const decodedLength = decoder.decode(new Uint8Array(message.bytes, 0, message.length), message.inner, message.shape);
        const memory = decoder.memoryBytes();
        const decoded = wasmBytes(decoder.ptr(), decodedLength);
        if (message.out !== undefined && message.place !== undefined) {
          place(decoded, new Uint8Array(message.out), message.item ?? 1, message.place);
          if (message.keep !== true) {
            post({ t: "done", id: message.id, length: 0, input: message.bytes, memory }, [message.bytes]);
            return;
          }
          // Placed, and sent back for the main thread's chunk cache.
        }
        const length = decoded.length;
        const buffer = message.exact === true ? new ArrayBuffer(length) : take(length);
        new Uint8Array(buffer, 0, length).set(decoded);
        post({ t: "done", id: message.id, bytes: buffer, length, input: message.bytes, memory }, [buffer, message.bytes]);
      } catch (e) {
        // A trap (a zom bug) leaves the instance unusable: the pool drops this worker.
        const fatal = e instanceof WebAssembly.RuntimeError;
        post({ t: "done", id: message.id, error: describe(e), fatal, input: message.bytes }, [message.bytes]);
      }
      return;
  }
}

/** Applies registered codecs to a chunk's bytes (ts/shared/codecs.ts) and answers with the result. */
async function external(message: Extract<ToWorker, { t: "external" }>, post: Post): Promise<void> {
  try {
    const bytes = await applySteps(message.modules, message.steps, new Uint8Array(message.bytes, 0, message.length));
    // A copy: the codec's answer may view memory that cannot be transferred (its own
    // WebAssembly memory) or that it reuses.
    const buffer = bytes.slice().buffer;
    post({ t: "done", id: message.id, bytes: buffer, length: bytes.byteLength, input: message.bytes }, [buffer, message.bytes]);
  } catch (e) {
    post({ t: "done", id: message.id, error: describe(e), fatal: false, input: message.bytes });
  }
}

/** The scope a decode worker talks to the pool through: a worker's global scope, or Node's `parentPort`. */
export type PoolSide =
  | { onmessage: ((e: { data: ToWorker }) => void) | null; postMessage(m: unknown, t?: ArrayBuffer[]): void }
  | { on(event: "message", f: (m: ToWorker) => void): void; postMessage(m: unknown, t?: ArrayBuffer[]): void };

/** Answers the pool's messages arriving through `side` (the worker's entry calls it once). */
export function serve(side: PoolSide): void {
  const post: Post = (x, t) => side.postMessage(x, t ?? []);
  if ("on" in side) side.on("message", (m) => handle(m, post));
  else side.onmessage = (e) => handle(e.data, post);
}
