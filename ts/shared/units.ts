/**
 * Byte counts for people to read, shared by the command line and the explorer.
 * @module
 */

/** Bytes in B, kB, MB or GB (powers of 1000). */
export function showBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[u] ?? ""}`;
}
