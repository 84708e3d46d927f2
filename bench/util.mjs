// Helpers the benchmark scripts share.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** The bench/ folder. */
export const benchDir = dirname(fileURLToPath(import.meta.url));

/**
 * The options of the benchmarks that read over the test server: `--runs` (at least 3),
 * `--latency` (ms per request), `--data` (bench/generate.py's output) and `--out` (results.json).
 */
export function serverBenchArgs() {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      latency: { type: "string", default: "20" },
      data: { type: "string", default: join(benchDir, "data") },
      out: { type: "string", default: join(benchDir, "results.json") },
    },
  });
  return { runs: Math.max(3, Number(values.runs)), latency: Number(values.latency), data: values.data, out: values.out };
}

/** The median of a list of numbers (NaN for an empty list). */
export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A markdown table; the first column left-aligned, the others right-aligned. */
export function table(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((s, i) => (i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? ":" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|")}|`;
  return [line(head), rule, ...body.map(line)].join("\n");
}
