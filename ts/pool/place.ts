/**
 * The copier of the shared output: executes, outside WebAssembly, the placement the core
 * computed for one chunk (ChunkRead::placement in src/chunk/assemble.rs). No selection logic
 * lives here: the placement already says, in bytes, where each run of the chunk's selected
 * elements starts in the decoded chunk and in the output, and how it steps.
 * @module
 */

/**
 * Copies the selected elements (`item` bytes each) of a decoded chunk (`src`, the whole
 * chunk) into `dst` (the whole output) as `placement` says: the first run's element offset
 * in the chunk and in the output, then `count, chunk step, output step` per dimension (outer
 * first, the run last), in elements. Empty: nothing is selected.
 */
export function place(src: Uint8Array, dst: Uint8Array, item: number, placement: Float64Array): void {
  const p = placement;
  const dims = (p.length - 2) / 3;
  if (!(dims >= 1) || !Number.isInteger(dims)) return;
  const at = (i: number) => p[i] as number;
  const last = 2 + 3 * (dims - 1);
  const count = at(last);
  const srcStep = at(last + 1);
  const dstStep = at(last + 2);
  const contiguous = srcStep === 1 && dstStep === 1;
  // Element by element: through the widest word every offset is aligned to.
  const unit = [4, 2, 1].find((u) => item % u === 0 && src.byteOffset % u === 0 && dst.byteOffset % u === 0) ?? 1;
  const View = unit === 4 ? Uint32Array : unit === 2 ? Uint16Array : Uint8Array;
  const from = new View(src.buffer as ArrayBuffer, src.byteOffset, Math.floor(src.byteLength / unit));
  const to = new View(dst.buffer as ArrayBuffer, dst.byteOffset, Math.floor(dst.byteLength / unit));
  const words = item / unit;
  const position = new Float64Array(dims - 1);
  let s = at(0);
  let d = at(1);
  for (;;) {
    if (contiguous) {
      dst.set(src.subarray(s * item, (s + count) * item), d * item);
    } else {
      for (let k = 0, a = s * words, b = d * words; k < count; k++, a += srcStep * words, b += dstStep * words) {
        for (let w = 0; w < words; w++) to[b + w] = from[a + w] as number;
      }
    }
    // The next run: an odometer over the outer dimensions.
    let i = dims - 2;
    for (; i >= 0; i--) {
      const n = at(2 + 3 * i);
      const next = (position[i] ?? 0) + 1;
      if (next < n) {
        position[i] = next;
        s += at(3 + 3 * i);
        d += at(4 + 3 * i);
        break;
      }
      position[i] = 0;
      s -= (n - 1) * at(3 + 3 * i);
      d -= (n - 1) * at(4 + 3 * i);
    }
    if (i < 0) return;
  }
}

/**
 * A new output of `length` bytes, every element set to `fill`: a SharedArrayBuffer the
 * workers write into when `shared`, else an ArrayBuffer.
 */
export function output(length: number, fill: Uint8Array, shared: boolean): ArrayBuffer | SharedArrayBuffer {
  const buffer = shared ? new SharedArrayBuffer(length) : new ArrayBuffer(length);
  const out = new Uint8Array(buffer);
  const first = fill[0] ?? 0;
  if (fill.every((b) => b === first)) {
    if (first !== 0) out.fill(first);
    return buffer;
  }
  // One copy of the element, then double the filled prefix.
  out.set(fill.subarray(0, Math.min(fill.length, length)));
  for (let filled = fill.length; filled < length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, length - filled));
  return buffer;
}

/**
 * Whether `placement` puts a decoded chunk of `elements` elements into an output of as many,
 * element for element in the same order: then the chunk can be the output, uncopied.
 */
export function isWhole(placement: Float64Array, elements: number): boolean {
  const p = placement;
  const dims = (p.length - 2) / 3;
  if (!(dims >= 1) || !Number.isInteger(dims) || p[0] !== 0 || p[1] !== 0) return false;
  let inner = 1;
  for (let d = dims - 1; d >= 0; d--) {
    const [count, srcStep, dstStep] = [p[2 + 3 * d], p[3 + 3 * d], p[4 + 3 * d]];
    if (srcStep !== inner || dstStep !== inner || count === undefined) return false;
    inner *= count;
  }
  return inner === elements;
}
