/**
 * A WebAssembly part carried inside the JavaScript (pkg/<out>_inline.js, pkg/zom_part_<name>.js),
 * as "zom" and "zom/validate" carry theirs: printable text, one token per byte (scripts/build.mjs
 * `carriedText`), read back here into the module's bytes.
 * @module
 */
import { CARRIED_DECODER } from "../generated/carried-decoder.js";

/** Where the carried text goes in the decoder's memory: past its tables (kernels/carried.wat). */
const TEXT_AT = 3 * 65536;
/** The code's length: two characters for each byte value. */
const CODE_LENGTH = 512;

/** The decoder's exports (kernels/carried.wat). */
interface Decoder {
  memory: WebAssembly.Memory;
  read: WebAssembly.Global;
  decode(at: number, out: number): number;
}

/** The decoder's module, compiled on the first call; each call has an instance (and memory) of its own. */
let decoderModule: WebAssembly.Module | undefined;

/** The bytes of base64 text (`Uint8Array.fromBase64` where the engine has it). */
function fromBase64(text: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (native !== undefined) return native(text);
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/**
 * The bytes of a carried module's text: its code (for each byte value in order, its token in two
 * characters, a one-character token followed by a space), then one token per byte, read by a
 * decoder instance of its own (kernels/carried.wat), whose memory is let go when it returns.
 */
export function fromCarried(text: string, size: number): Uint8Array {
  const damaged = (at: number) => new Error(`zom: a carried WebAssembly module is damaged (at character ${at} of ${text.length})`);
  if (text.length < CODE_LENGTH) throw damaged(text.length);
  decoderModule ??= new WebAssembly.Module(fromBase64(CARRIED_DECODER) as BufferSource);
  const decoder = new WebAssembly.Instance(decoderModule).exports as unknown as Decoder;
  const tokens = text.length - CODE_LENGTH;
  // The text, the 0 after it (no token), and room for a byte a character and the one the loop
  // writes where it stops.
  const out = TEXT_AT + tokens + 1;
  decoder.memory.grow(Math.ceil((out + Math.max(size, tokens) + 1) / 65536) - decoder.memory.buffer.byteLength / 65536);
  const lengths = new Uint8Array(decoder.memory.buffer, 0, 256);
  const byteOf = new Int16Array(decoder.memory.buffer, 256, 256 * 256).fill(-1);
  for (let byte = 0; byte < 256; byte++) {
    const a = text.charCodeAt(2 * byte);
    const b = text.charCodeAt(2 * byte + 1);
    if (!(a > 0 && a < 128 && b > 0 && b < 128)) throw damaged(2 * byte);
    const taken = lengths[a] === 1 || (b === 0x20 ? lengths[a] !== 0 : byteOf[(a << 8) | b] !== -1);
    if (taken) throw damaged(2 * byte);
    if (b === 0x20) {
      lengths[a] = 1;
      byteOf.fill(byte, a << 8, (a + 1) << 8);
    } else {
      lengths[a] = 2;
      byteOf[(a << 8) | b] = byte;
    }
  }
  const { read, written } = new TextEncoder().encodeInto(text.slice(CODE_LENGTH), new Uint8Array(decoder.memory.buffer, TEXT_AT, tokens));
  const end = decoder.decode(TEXT_AT, out);
  const stopped = (decoder.read.value as number) - TEXT_AT;
  if (read !== tokens || written !== tokens || stopped !== tokens || end !== out + size) {
    throw damaged(CODE_LENGTH + Math.min(stopped, read));
  }
  return new Uint8Array(decoder.memory.buffer, out, size).slice();
}

/** A part's wasm-bindgen glue, as far as starting it goes. */
interface StartableGlue {
  initSync(module: { module: WebAssembly.Module }): unknown;
}

/** A carried part's module file (pkg/<out>_inline.js). */
interface CarriedModule {
  WASM: string;
  WASM_BYTES: number;
}

/**
 * The loader of a part used on first use (Icechunk, zip, references, views, listing): once, its glue and
 * carried module imported (`imports`: the caller's literal dynamic `import()`s, which bundlers
 * split off), the module read and compiled off the main thread, started on this thread,
 * then `started(glue)`. A failed load is tried again by the next call.
 */
export function lazyPart<G extends StartableGlue>(
  imports: () => Promise<[G, CarriedModule]>,
  started?: (glue: G) => void,
): () => Promise<G> {
  let loading: Promise<G> | undefined;
  return () => {
    loading ??= (async () => {
      const [glue, { WASM, WASM_BYTES }] = await imports();
      const module = await WebAssembly.compile(fromCarried(WASM, WASM_BYTES) as BufferSource);
      glue.initSync({ module });
      started?.(glue);
      return glue;
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  };
}
