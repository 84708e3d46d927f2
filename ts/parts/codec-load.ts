/**
 * Loading the codec parts (ARCHITECTURE.md, "Parts"): each is carried as text by a module of
 * its own (pkg/zom_part_<name>.js, written by scripts/build.mjs), imported by a literal dynamic
 * `import()` (ts/generated/codec-parts.ts, from scripts/lib.mjs CODEC_PARTS), which every
 * bundler splits into a file loaded only when an array needs the part, with no configuration. Loaded once per page (then compiled, started on this thread
 * and handed to the decode workers with the arrays that need it, ts/pool/pool.ts).
 * @module
 */

import { PART_DESCRIBES, PART_IMPORTS } from "../generated/codec-parts.js";
import { ZomError } from "../shared/errors.js";
import { fromCarried } from "./carried.js";
import { startPart } from "./codec-calls.js";

/** Each part's load, once it began: its compiled module (a failed load is forgotten, to retry). */
const loads = new Map<string, Promise<WebAssembly.Module>>();
const compiled = new Map<string, WebAssembly.Module>();

/** The names of zom's codec parts. */
const CODEC_PART_NAMES: readonly string[] = Object.keys(PART_IMPORTS);

/** Loads one part: its module, read and compiled (off the main thread), started here. */
function load(name: string): Promise<WebAssembly.Module> {
  let loading = loads.get(name);
  if (loading === undefined) {
    const importer = PART_IMPORTS[name];
    if (importer === undefined) return Promise.reject(new ZomError("UnknownCodec", `zom has no codec part named "${name}"`));
    loading = (async () => {
      const { WASM, WASM_BYTES } = await importer();
      const module = await WebAssembly.compile(fromCarried(WASM, WASM_BYTES) as BufferSource);
      startPart(name, module, await WebAssembly.instantiate(module, {}));
      compiled.set(name, module);
      return module;
    })();
    loads.set(name, loading);
    loading.catch(() => loads.delete(name));
  }
  return loading;
}

/**
 * Loads the codec parts named ("deflate", "lzma", "bzip2", "pcodec", "zfp"; default: all of them) on this
 * thread, once: what an array whose codecs are in a part needs before a `ChunkDecoder` or
 * `decodeChunk` decodes its chunks (`open` and `openArray` load them before an array's first
 * read). Rejects with a ZomError "CodecError" naming the part when one cannot be loaded.
 */
export function loadCodecParts(names: readonly string[] = CODEC_PART_NAMES): Promise<void> {
  return loadParts(names, null);
}

/** {@link loadCodecParts} for the array at `path` (named in the error). @internal */
export async function loadParts(names: readonly string[], path: string | null): Promise<void> {
  await Promise.all(
    names.map((name) =>
      load(name).catch((e: unknown) => {
        if (e instanceof ZomError) throw e;
        const why = e instanceof Error ? e.message : String(e);
        throw new ZomError(
          "CodecError",
          `the decoder of ${PART_DESCRIBES[name] ?? name} (zom's codec part "${name}") could not be loaded: ${why}`,
          { path, cause: e },
        );
      }),
    ),
  );
}

/** The compiled modules of the parts named, for the decode workers (those loaded). @internal */
export function partModules(names: readonly string[]): [string, WebAssembly.Module][] {
  return names.flatMap((name) => {
    const module = compiled.get(name);
    return module === undefined ? [] : [[name, module] as [string, WebAssembly.Module]];
  });
}
