/**
 * The decode pool: Web Workers in browsers, worker_threads in Node (started by the entry's
 * runtime, ts/runtime/; by default from the worker code the package carries), each
 * with its own instance of the WebAssembly.Module the main thread compiled (posted, not
 * fetched again). The Rust reader plans and fetches on the main thread; it hands each fetched
 * chunk's bytes to {@link WorkerPool.decode} (transferred, not copied) with the chunk's
 * placement in the read's output, and awaits it while other fetches go on. A worker copies
 * the chunk's selected elements straight into the output when that is a SharedArrayBuffer,
 * else transfers the decoded chunk back to be copied into place here (ts/pool/place.ts).
 *
 * Workers start on first use. Where they cannot (no Worker, a CSP, a failed start) the pool
 * says so once on the console and reads decode on the main thread. In Node idle workers do
 * not keep the process alive; {@link closeWorkers} ends them all.
 * @module
 */

import { partModules } from "../parts/codec-load.js";
import { onInit, wasmModule, whenInit } from "../parts/reader.js";
import type { WorkerPort } from "../runtime/entry.js";
import { entry } from "../runtime/entry.js";
import type { CodecStep } from "../shared/codecs.js";
import { applySteps, registeredNames } from "../shared/codecs.js";
import { ZomError } from "../shared/errors.js";
import { onAbort } from "../store/signal.js";
import * as raw from "../zom_wasm.js";
import { wasmBytes } from "./memory.js";
import { place } from "./place.js";
import type { FromWorker, ToWorker, WireError } from "./protocol.js";
import { workerSettings } from "./settings.js";

/** An array as the pool knows it: an id, and its metadata for the workers' decoders. */
export interface PoolArray {
  /** Unique per opened array. */
  readonly id: number;
  /** The node path (for errors). */
  readonly path: string;
  /** The array's ZOM node as JSON text. */
  meta(): string;
  /** The limits the array was opened with, for the workers' decoders. */
  limits(): unknown;
  /** The codec parts its decoding calls (loaded before its first read). */
  readonly parts: readonly string[];
}

/**
 * Where a decoded chunk goes: the read's output (shared with the workers when it is a
 * SharedArrayBuffer), and the chunk's placement in it as the core computed it (see
 * ts/pool/place.ts).
 */
export interface Target {
  /** The read's output; a read of one chunk makes it on first use (see `adopt`). */
  out(): ArrayBuffer | SharedArrayBuffer;
  /** Whether the output is a SharedArrayBuffer the workers write into. */
  shared: boolean;
  /**
   * For a read of one chunk: takes the decoded chunk as the whole output instead of a copy of
   * it, where it can (the chunk is the output); false: it is to be copied into `out()`.
   */
  adopt?(decoded: Uint8Array): boolean;
  /** The element size in bytes. */
  item: number;
  place: Float64Array;
}

/** The most arrays each worker keeps a decoder for; older ones are dropped and resent. */
const MAX_KNOWN = 32;
/** The most workers of the default pool. */
const MAX_DEFAULT = 8;
/** How long a worker may take to start before the pool gives up on workers. */
const START_TIMEOUT_MS = 20_000;
/** The most buffers kept for reuse in each of the pool's two lists. */
const MAX_SPARE = 8;
/** The most bytes kept for reuse in each list: what an idle viewer holds for nothing. */
const MAX_SPARE_BYTES = 4 << 20;
/**
 * A worker whose WebAssembly memory has grown past this (a large chunk decoded once) is
 * replaced by a fresh one when it is next idle: a WebAssembly memory never shrinks.
 */
const RECYCLE_BYTES = 64 << 20;

/**
 * Buffers kept for reuse: allocating a fresh ArrayBuffer per chunk costs more than copying
 * into it (zeroed pages touched for the first time, and garbage collections).
 */
class Spares {
  readonly #buffers: ArrayBuffer[] = [];
  #bytes = 0;

  /** A buffer of at least `n` bytes and at most twice that, if one is kept. */
  take(n: number): ArrayBuffer | undefined {
    let best = -1;
    this.#buffers.forEach((b, i) => {
      if (b.byteLength >= n && b.byteLength <= 2 * n && (best < 0 || b.byteLength < (this.#buffers[best] as ArrayBuffer).byteLength))
        best = i;
    });
    if (best < 0) return undefined;
    const buffer = this.#buffers.splice(best, 1)[0] as ArrayBuffer;
    this.#bytes -= buffer.byteLength;
    return buffer;
  }

  /** Up to `count` buffers, whichever. */
  some(count: number): ArrayBuffer[] {
    const out = this.#buffers.splice(0, count);
    for (const b of out) this.#bytes -= b.byteLength;
    return out;
  }

  /** Keeps `buffer` unless the list is full (or it was transferred away: 0 bytes). */
  put(buffer: ArrayBufferLike): void {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
    if (this.#buffers.length >= MAX_SPARE || this.#bytes + buffer.byteLength > MAX_SPARE_BYTES) return;
    this.#buffers.push(buffer);
    this.#bytes += buffer.byteLength;
  }
}

interface Slot {
  port: WorkerPort;
  pending: number;
  /** Arrays whose metadata this worker has, oldest first. */
  known: Set<number>;
  /** The size of its WebAssembly memory, as it last said. */
  memory: number;
  /**
   * "replacing": a fresh worker is starting in its place (it takes new work only when no
   * other worker can); "replaced": the fresh one runs, this one ends once idle.
   */
  state: "active" | "replacing" | "replaced";
}

interface Task {
  slot: Slot;
  resolve(bytes: Uint8Array | undefined): void;
  reject(e: unknown): void;
  settled: boolean;
  /** Removes the abort listener. */
  done(): void;
}

/** The default number of workers: the machine's parallelism, at most 8. */
export function defaultWorkers(): number {
  const n = entry().runtime.parallelism();
  return Math.max(1, Math.min(MAX_DEFAULT, typeof n === "number" && n > 0 ? n : 4));
}

/** Starts one worker: its port once it has instantiated `module`. */
async function spawn(module: WebAssembly.Module, onMessage: (m: FromWorker) => void, onFail: (e: Error) => void): Promise<WorkerPort> {
  let started!: () => void;
  let failed!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  let isReady = false;
  const port = entry().runtime.startWorker(workerSettings.source, {
    message(m) {
      if (m.t === "ready") {
        isReady = true;
        started();
      } else if (m.t === "failed") failed(new Error(m.error.message));
      else onMessage(m);
    },
    error: (e) => (isReady ? onFail(e) : failed(e)),
  });
  port.post({ t: "init", module });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the worker in ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    (timer as { unref?(): void }).unref?.();
  });
  try {
    await Promise.race([ready, timeout]);
  } catch (e) {
    port.terminate();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  port.unref?.();
  return port;
}

/** The value a decode rejects with: the core's plain error object (the reader locates it). */
function rejection(error: WireError): unknown {
  if (error.code === null) return new Error(`a decode worker failed: ${error.message}`);
  return { code: error.code, message: error.message, path: error.path, key: error.key };
}

let warned = false;
function warnOnce(e: unknown): void {
  if (warned) return;
  warned = true;
  console.warn(`zom: decode workers could not start (${e instanceof Error ? e.message : String(e)}); decoding on the main thread`);
}

/** Main-thread decoders for reads already under way when workers failed. */
const local = new Map<number, raw.PoolDecoder>();

async function decodeHere(
  array: PoolArray,
  inner: boolean,
  bytes: Uint8Array,
  target: Target,
  keep: boolean,
  shape?: Float64Array,
): Promise<Uint8Array | undefined> {
  // Not inside the Rust reader's call of the hook: after it returned.
  await Promise.resolve();
  let decoder = local.get(array.id);
  if (decoder === undefined) {
    decoder = new raw.PoolDecoder(array.meta(), array.path, array.limits(), registeredNames());
    local.set(array.id, decoder);
  }
  const length = decoder.decode(bytes, inner, shape);
  const decoded = wasmBytes(decoder.ptr(), length);
  place(decoded, new Uint8Array(target.out()), target.item, target.place);
  return keep ? decoded.slice() : undefined;
}

/** A pool of decode workers (see the module docs). */
export class WorkerPool {
  /** True once the workers could not start: reads decode on the main thread. */
  failed = false;
  /** Chunks the workers decoded. */
  decoded = 0;
  /** Workers replaced by fresh ones because their memory had grown large. */
  replaced = 0;
  readonly #slots: Slot[] = [];
  readonly #started: Promise<void>;
  readonly #tasks = new Map<number, Task>();
  /** Buffers for encoded chunks (given back by the workers). */
  readonly #inputs = new Spares();
  /** Buffers of decoded chunks the reader is done with (to give to the workers). */
  readonly #outputs = new Spares();
  #nextId = 1;
  #closed = false;

  /** A pool of `size` workers (undefined: {@link defaultWorkers}); they start now, in the background. */
  constructor(size: number | undefined) {
    this.#started = this.#start(size);
  }

  async #start(size: number | undefined): Promise<void> {
    try {
      // A pool made before the first call of zom waits for the module like that call.
      await whenInit();
      // Once the read that made the pool has sent its requests (they are made in this task's
      // promise jobs): starting workers takes the main thread a few milliseconds, which would
      // otherwise come before a cold page's first chunk request. Nothing waits for them.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.#closed) return;
      const module = wasmModule();
      if (module === undefined) throw new Error("the compiled WebAssembly module is not known");
      const n = size ?? defaultWorkers();
      const ports = await Promise.allSettled(Array.from({ length: n }, async () => this.#slots.push(await this.#spawnSlot(module))));
      if (this.#closed) this.close();
      const failure = ports.find((p) => p.status === "rejected");
      if (this.#slots.length === 0 && failure) throw failure.reason;
    } catch (e) {
      this.failed = true;
      warnOnce(e);
    }
  }

  /** Starts one worker. */
  async #spawnSlot(module: WebAssembly.Module): Promise<Slot> {
    const holder: { slot?: Slot } = {};
    const port = await spawn(
      module,
      (m) => this.#receive(m),
      (e) => holder.slot && this.#lost(holder.slot, e),
    );
    holder.slot = { port, pending: 0, known: new Set(), memory: 0, state: "active" };
    return holder.slot;
  }

  #receive(m: FromWorker): void {
    if (m.t !== "done") return;
    this.#inputs.put(m.input);
    const task = this.#tasks.get(m.id);
    if (task === undefined) return;
    this.#tasks.delete(m.id);
    if ("memory" in m && m.memory !== undefined) task.slot.memory = m.memory;
    this.#release(task.slot);
    task.done();
    if (task.settled) return;
    task.settled = true;
    if (!("error" in m)) {
      this.decoded += 1;
      decodedInWorkers += 1;
      task.resolve(m.bytes === undefined ? undefined : new Uint8Array(m.bytes, 0, m.length));
      return;
    }
    task.reject(rejection(m.error));
    if (m.fatal) this.#drop(task.slot, new Error(`a decode worker stopped: ${m.error.message}`));
  }

  #release(slot: Slot): void {
    slot.pending -= 1;
    if (slot.pending !== 0) return;
    slot.port.unref?.();
    if (slot.state === "replaced") this.#drop(slot, new Error("a replaced worker was ended"));
    else if (slot.state === "active" && slot.memory > RECYCLE_BYTES && !this.#closed) void this.#replace(slot);
  }

  /** Starts a fresh worker in the place of `old`, whose memory grew large; `old` ends once idle. */
  async #replace(old: Slot): Promise<void> {
    old.state = "replacing";
    const module = wasmModule();
    let fresh: Slot;
    try {
      if (module === undefined) throw new Error("the compiled WebAssembly module is not known");
      fresh = await this.#spawnSlot(module);
    } catch {
      // The old worker still works: keep it, and do not try again for it.
      old.state = "active";
      old.memory = 0;
      return;
    }
    if (this.#closed) return fresh.port.terminate();
    this.#slots.push(fresh);
    this.replaced += 1;
    replacedWorkers += 1;
    old.state = "replaced";
    if (old.pending === 0) this.#drop(old, new Error("a replaced worker was ended"));
  }

  /** A worker failed after it started: its tasks fail, and it leaves the pool. */
  #lost(slot: Slot, e: Error): void {
    if (!this.#slots.includes(slot)) return;
    this.#drop(slot, e);
    if (this.#slots.length === 0 && !this.#closed) {
      this.failed = true;
      warnOnce(e);
    }
  }

  #drop(slot: Slot, e: Error): void {
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    slot.port.terminate();
    for (const [id, task] of this.#tasks) {
      if (task.slot !== slot) continue;
      this.#tasks.delete(id);
      task.done();
      if (!task.settled) {
        task.settled = true;
        task.reject(e);
      }
    }
  }

  /** The workers running now. */
  get size(): number {
    return this.#slots.filter((s) => s.state !== "replaced").length;
  }

  /** A buffer of `n` bytes to copy an encoded chunk into (then given to {@link decode}). */
  buffer(n: number): Uint8Array {
    return new Uint8Array(this.#inputs.take(n) ?? new ArrayBuffer(n), 0, n);
  }

  /**
   * Decodes a chunk's stored bytes (`inner`: an inner chunk of a shard) in a worker, and its
   * selected elements into `target`: by the worker when the output is shared, else here from
   * the decoded chunk the worker transfers back. The buffer of `bytes` is transferred (it is
   * unusable afterwards). With `keep` (a read through a chunk cache) it resolves with the
   * whole decoded chunk too, transferred back also when the worker placed it. `shape`: the
   * chunk's, for an array whose chunks differ in shape (a rectilinear grid).
   */
  async decode(
    array: PoolArray,
    inner: boolean,
    bytes: Uint8Array,
    target: Target,
    signal?: AbortSignal,
    keep = false,
    shape?: Float64Array,
  ): Promise<Uint8Array | undefined> {
    const slot = await this.#slot(signal);
    if (slot === undefined) return decodeHere(array, inner, bytes, target, keep, shape);
    const own = bytes.byteOffset === 0 && bytes.buffer instanceof ArrayBuffer;
    const buffer = (own ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
    const shared = target.shared;
    // A chunk that may become the output comes back in a buffer of its own size.
    const exact = target.adopt !== undefined;
    const spare = shared || exact ? [] : this.#outputs.some(2);
    const id = this.#nextId++;
    const message: ToWorker = {
      t: "decode",
      id,
      a: array.id,
      inner,
      bytes: buffer,
      length: bytes.byteLength,
      spare,
      item: target.item,
      place: target.place,
    };
    if (shared) message.out = target.out() as SharedArrayBuffer;
    if (exact) message.exact = true;
    if (keep) message.keep = true;
    if (shape !== undefined) message.shape = shape;
    if (!slot.known.has(array.id)) {
      message.meta = array.meta();
      message.path = array.path;
      message.limits = array.limits();
      message.codecs = registeredNames();
      if (array.parts.length > 0) message.parts = partModules(array.parts);
      slot.known.add(array.id);
      if (slot.known.size > MAX_KNOWN) {
        const oldest = slot.known.values().next().value as number;
        slot.known.delete(oldest);
        slot.port.post({ t: "forget", a: oldest });
      }
    }
    const decoded = await this.#run(slot, id, message, [buffer, ...spare], signal);
    if (decoded === undefined) return undefined;
    const adopted = !shared && (target.adopt?.(decoded) ?? false);
    if (!shared && !adopted) place(decoded, new Uint8Array(target.out()), target.item, target.place);
    // The core copies a kept chunk; otherwise its buffer serves a later chunk, unless it is
    // the read's output now.
    if (keep) return decoded;
    if (!adopted) this.#outputs.put(decoded.buffer);
    return undefined;
  }

  /** Resolves once every worker has started or failed to (reads do not wait for it). @internal */
  ready(): Promise<void> {
    return this.#started;
  }

  /**
   * The least busy worker that has started; undefined when none runs, yet or at all (the
   * caller then does the work on this thread). Nothing waits for the workers to come up: while
   * none has, chunks are decoded here, so that a page's first tile is not held up by starting
   * them (which takes longer than decoding a tile).
   */
  async #slot(signal?: AbortSignal): Promise<Slot | undefined> {
    if (this.#closed) throw new ZomError("Aborted", "the decode workers were closed");
    if (this.#slots.length === 0) return undefined;
    signal?.throwIfAborted();
    // A worker being replaced takes work only when no other can.
    const active = this.#slots.filter((s) => s.state === "active");
    const candidates = active.length > 0 ? active : this.#slots;
    let slot = candidates[0] as Slot;
    for (const s of candidates) if (s.pending < slot.pending) slot = s;
    return slot;
  }

  /** Posts `message` (task `id`) to `slot` and waits for its answer's bytes, if any. */
  #run(slot: Slot, id: number, message: ToWorker, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      const task: Task = { slot, resolve, reject, settled: false, done: () => off?.() };
      this.#tasks.set(id, task);
      if (slot.pending === 0) slot.port.ref?.();
      slot.pending += 1;
      slot.port.post(message, transfer);
      const off =
        signal &&
        onAbort(signal, () => {
          if (task.settled) return;
          task.settled = true;
          reject(signal.reason);
        });
    });
  }

  /**
   * Applies registered codecs (`steps`, with the modules of `modules`) to a chunk's stored
   * bytes in a worker, which imports the modules; on this thread when no worker runs.
   */
  async external(modules: Record<string, string>, steps: CodecStep[], bytes: Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    const slot = await this.#slot(signal);
    if (slot === undefined) return applySteps(modules, steps, bytes);
    // `bytes` views WebAssembly memory: copied out at once.
    const buffer = bytes.slice().buffer as ArrayBuffer;
    const id = this.#nextId++;
    const message: ToWorker = { t: "external", id, steps, modules, bytes: buffer, length: bytes.byteLength };
    const decoded = await this.#run(slot, id, message, [buffer], signal);
    return decoded ?? new Uint8Array(0);
  }

  /** Drops array `id`'s decoders in the workers. */
  forget(id: number): void {
    for (const slot of this.#slots) {
      if (slot.known.delete(id)) slot.port.post({ t: "forget", a: id });
    }
  }

  /** Ends the workers; decodes under way reject with "Aborted". */
  close(): void {
    this.#closed = true;
    for (const slot of [...this.#slots]) this.#drop(slot, new ZomError("Aborted", "the decode workers were closed"));
  }
}

const pools = new Map<number | "default", WorkerPool>();
/** Chunks decoded by workers of every pool, since the page or process started. */
let decodedInWorkers = 0;
/** Workers replaced in every pool, since the page or process started. */
let replacedWorkers = 0;

/** What the decode workers have done so far (see {@link workerStats}). */
export interface WorkerStats {
  /** Decode workers running now, over every pool. */
  workers: number;
  /** Chunks (or inner chunks of shards) decoded in workers since zom was loaded. */
  decoded: number;
  /** Whether workers could not start, so that reads decode on the calling thread. */
  failed: boolean;
  /** Workers replaced by fresh ones since zom was loaded, because a large chunk had grown their memory. */
  replaced: number;
}

/**
 * What the decode workers have done so far: to check that reads decode off the calling
 * thread (a Content-Security-Policy that forbids the workers makes `failed` true).
 */
export function workerStats(): WorkerStats {
  let workers = 0;
  let failed = false;
  for (const pool of pools.values()) {
    workers += pool.size;
    failed ||= pool.failed;
  }
  return { workers, decoded: decodedInWorkers, failed, replaced: replacedWorkers };
}

/** The shared pool of `size` workers (undefined: the default size), started on first use. */
export function poolOf(size: number | undefined): WorkerPool {
  const key = size ?? "default";
  let pool = pools.get(key);
  if (pool === undefined) {
    pool = new WorkerPool(size);
    pools.set(key, pool);
  }
  return pool;
}

// `init()` starts the default pool, so that the reads after it find the workers up.
onInit(() => {
  if (workerSettings.count !== 0) poolOf(workerSettings.count);
});

/** Forgets array `id` in every pool (its decoders in the workers are freed). */
export function forgetArray(id: number): void {
  for (const pool of pools.values()) pool.forget(id);
  local.get(id)?.free();
  local.delete(id);
}

/**
 * Ends every decode worker now (reads under way that wait for one reject with "Aborted").
 * Later reads start new workers. Node does not need it to exit: idle workers do not keep
 * the process alive.
 */
export function closeWorkers(): void {
  for (const pool of pools.values()) pool.close();
  pools.clear();
}
