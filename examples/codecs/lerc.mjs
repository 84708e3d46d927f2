/**
 * imagecodecs' LERC codec (numcodecs id "imagecodecs_lerc") for zom's `registerCodec`, decoded
 * by Esri's `lerc` package (WebAssembly). zom does not build LERC in; this module is the
 * example of a codec added from JavaScript:
 *
 *   import { registerCodec } from "zom";
 *   registerCodec({ name: "imagecodecs_lerc", module: new URL("./lerc.mjs", import.meta.url) });
 *
 * The decode workers import the module by its URL, so in browsers it must load without an
 * import map: bundle it (tests/browser/pool.test.mjs bundles it with esbuild and serves
 * `lerc-wasm.wasm` beside the bundle, where `lerc` looks for it).
 */
import * as Lerc from "lerc";

/** Decodes one chunk: its elements as little-endian bytes in C order. */
export async function decode(bytes) {
  await Lerc.load();
  // imagecodecs writes a chunk's last axis beyond two as LERC depth, pixel-interleaved.
  const { pixels } = Lerc.decode(bytes, { returnInterleaved: true });
  if (pixels.length !== 1) {
    throw new Error(`imagecodecs_lerc: ${pixels.length} bands; single-band chunks only`);
  }
  const values = pixels[0];
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}
