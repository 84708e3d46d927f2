/**
 * Bytes in this thread's instance of the WebAssembly module, viewed where the core says they
 * lie: on the calling thread (the decode hook, chunks from the cache, the local decoder) and in
 * a decode worker (its own instance).
 * @module
 */
import { wasmMemory } from "../zom_wasm.js";

/** The instance's memory: one object for its life; its `buffer` changes when it grows. */
let memory: WebAssembly.Memory | undefined;

/**
 * `len` bytes at `ptr` in the instance's memory, viewed now: the view is valid only until the
 * next call into the instance (a memory that grows detaches its old buffer), so it is made
 * after the last call and copied from before the next.
 */
export function wasmBytes(ptr: number, len: number): Uint8Array {
  memory ??= wasmMemory() as WebAssembly.Memory;
  return new Uint8Array(memory.buffer, ptr, len);
}
