/**
 * The colour scale of image previews: viridis (perceptually uniform, readable in grey and by
 * colour-blind readers), from the slice's minimum to its maximum.
 * @module
 */

/** viridis at eight evenly spaced points (matplotlib's, as R's viridisLite lists them). */
const STOPS: [number, number, number][] = [
  [0x44, 0x01, 0x54],
  [0x46, 0x32, 0x7e],
  [0x36, 0x5c, 0x8d],
  [0x27, 0x7f, 0x8e],
  [0x1f, 0xa1, 0x87],
  [0x4a, 0xc1, 0x6d],
  [0xa0, 0xda, 0x39],
  [0xfd, 0xe7, 0x25],
];

/** 256 RGB entries interpolated between the stops. */
export const VIRIDIS: Uint8Array = (() => {
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (STOPS.length - 1);
    const k = Math.min(Math.floor(t), STOPS.length - 2);
    const f = t - k;
    const a = STOPS[k] ?? [0, 0, 0];
    const b = STOPS[k + 1] ?? a;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round((a[c] ?? 0) * (1 - f) + (b[c] ?? 0) * f);
  }
  return lut;
})();

/** The CSS gradient of the scale, for the legend. */
export function gradientCss(): string {
  const stops = STOPS.map(([r, g, b], i) => `rgb(${r} ${g} ${b}) ${((i / (STOPS.length - 1)) * 100).toFixed(1)}%`);
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

/**
 * RGBA pixels of values in row-major order, coloured from their finite minimum to maximum
 * (all one value: the middle colour); NaN and ±∞ stay transparent.
 */
export function colourise(values: Float64Array): { rgba: Uint8ClampedArray; min: number | null; max: number | null; nonFinite: number } {
  let min = Infinity;
  let max = -Infinity;
  let nonFinite = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) nonFinite++;
    else {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const rgba = new Uint8ClampedArray(values.length * 4);
  const span = max - min;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    const k = span > 0 ? Math.round(((v - min) / span) * 255) : 128;
    rgba[i * 4] = VIRIDIS[k * 3] ?? 0;
    rgba[i * 4 + 1] = VIRIDIS[k * 3 + 1] ?? 0;
    rgba[i * 4 + 2] = VIRIDIS[k * 3 + 2] ?? 0;
    rgba[i * 4 + 3] = 255;
  });
  const finite = values.length > nonFinite;
  return { rgba, min: finite ? min : null, max: finite ? max : null, nonFinite };
}
