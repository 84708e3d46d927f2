/**
 * A WebAssembly part carried inside the JavaScript (pkg/<out>_inline.js: raw DEFLATE, base64),
 * as "zom" (browsers) and "zom/validate" carry theirs: the bytes synchronously through fflate,
 * or asynchronously through the engine's own inflater.
 * @module
 */
import { inflateSync } from "../inflate.js";

/** The bytes of base64 text (`Uint8Array.fromBase64` where the engine has it). */
function fromBase64(text: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (native !== undefined) return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A carried module's ways to its bytes: `bundled` (fflate) and `bundledAsync` (DecompressionStream, else fflate). */
export function carried(base64: string, size: number): { bundled: () => Uint8Array; bundledAsync: () => Promise<Uint8Array> } {
  const bundled = (): Uint8Array => inflateSync(fromBase64(base64), { out: new Uint8Array(size) });
  const bundledAsync = async (): Promise<Uint8Array> => {
    if (typeof DecompressionStream !== "function") return bundled();
    try {
      const stream = new Blob([fromBase64(base64) as BlobPart]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
      if (bytes.length === size) return bytes;
    } catch {
      // An engine without "deflate-raw" (Safari before 16.4): fflate below.
    }
    return bundled();
  };
  return { bundled, bundledAsync };
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
 * split off), the module inflated and compiled off the main thread, started on this thread,
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
      const module = await WebAssembly.compile((await carried(WASM, WASM_BYTES).bundledAsync()) as BufferSource);
      glue.initSync({ module });
      started?.(glue);
      return glue;
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  };
}
