/**
 * The codec parts started on this thread (ARCHITECTURE.md, "Parts"): small WebAssembly modules
 * holding the decoders a first tile rarely needs (DEFLATE, LZMA/xz, bzip2, pcodec, zfp), which the reader's
 * core calls synchronously, in the middle of a chunk's decoding (src/codec/lazy.rs), through
 * {@link partCaller}. The main thread loads them (ts/parts/codec-load.ts) before an array's
 * first read and sends the compiled modules to each decode worker with the array
 * (ts/pool/worker.ts); both start them here. A part's interface is its C-ABI exports
 * (kernels/parts/src/export.rs).
 * @module
 */

/** A started part's exports (kernels/parts/src/export.rs). */
interface PartExports {
  memory: WebAssembly.Memory;
  zom_text(len: number): number;
  zom_input(len: number): number;
  zom_decode(max: number): number;
  zom_output(): number;
  zom_output_len(): number;
}

/** Every part started on this thread, by name, with its compiled module (a trap restarts it). */
const started = new Map<string, { module: WebAssembly.Module; exports: PartExports | undefined }>();

/**
 * Starts a compiled part on this thread, once: with its `instance` when the caller made one
 * (asynchronously, on a page's main thread), else synchronously (a worker; the modules are small).
 */
export function startPart(name: string, module: WebAssembly.Module, instance?: WebAssembly.Instance): void {
  if (started.get(name)?.module === module) return;
  const made = instance ?? new WebAssembly.Instance(module, {});
  started.set(name, { module, exports: made.exports as unknown as PartExports });
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * What the core calls a part through (src/wasm/parts.rs `PartCaller`): decodes `input` (a view
 * of the reader's memory, copied at once) with `codec` in `variant`, into at most `max` bytes;
 * throws an Error with the reason (the core makes it a CodecError with the node path and
 * store key).
 */
export const partCaller = {
  decode(part: string, codec: string, variant: string, input: Uint8Array, max: number): Uint8Array {
    const entry = started.get(part);
    if (entry === undefined) {
      throw new Error(
        `its decoder is zom's part "${part}", which is not loaded on this thread: arrays opened with open() or openArray() load it before their first read; ` +
          `before decodeChunk or a ChunkDecoder, \`await loadCodecParts(["${part}"])\``,
      );
    }
    entry.exports ??= new WebAssembly.Instance(entry.module, {}).exports as unknown as PartExports;
    const e = entry.exports;
    try {
      // Each buffer is viewed after the call that makes it: a memory that grows detaches
      // the views of its old buffer.
      const text = encoder.encode(`${codec} ${variant}`);
      const at = e.zom_text(text.length);
      new Uint8Array(e.memory.buffer, at, text.length).set(text);
      const from = e.zom_input(input.length);
      new Uint8Array(e.memory.buffer, from, input.length).set(input);
      // A wasm32 usize: the most a part's memory could hold.
      const status = e.zom_decode(Math.min(max, 0xffff_ffff));
      const ptr = e.zom_output();
      const out = new Uint8Array(e.memory.buffer, ptr, e.zom_output_len()).slice();
      if (status !== 0) throw new PartFailure(decoder.decode(out));
      return out;
    } catch (err) {
      if (err instanceof PartFailure) throw new Error(err.message);
      // A trap (out of memory, a bug) leaves the instance unusable: a fresh one next time.
      entry.exports = undefined;
      throw new Error(`zom's part "${part}" failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  },
};

/** A decoder's own refusal (bad data), as opposed to a failure of the part. */
class PartFailure extends Error {}
