// Helpers the benchmark scripts share.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startServer } from "../../tests/server/server.mjs";

/** The bench/ folder (this module is in bench/lib/). */
export const benchDir = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The options of the benchmarks that read over the test server: `--runs` (at least 3),
 * `--latency` (ms per request), `--data` (bench/lib/generate.py's output) and `--out` (results.json).
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

export { zomPaths } from "../../tests/js/helpers.mjs";

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

/** The geometric mean of a list of positive numbers (NaN for an empty list). */
export function geomean(xs) {
  if (xs.length === 0) return NaN;
  return Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
}

/** The comparisons a target may use, and how they print. */
const OPS = {
  ">=": { sign: "≥", met: (v, g) => v >= g },
  "<=": { sign: "≤", met: (v, g) => v <= g },
};

/**
 * The targets one bench checks its figures against: `check` each figure, then `print` the
 * lines ("label  value  target ≥ 2.5×  ✓") and `save` them into results.json's "targets"
 * (an array of {bench, label, value, target, met}; the entries other benches saved stay).
 *
 *   const targets = new Targets("read");
 *   targets.check("zarrita / zom, geometric mean", 2.7, ">=", 2.5);
 *   targets.print();
 *   targets.save(results);
 */
export class Targets {
  /** @param {string} bench the bench's name in results.json ("read", "decode", …) */
  constructor(bench) {
    this.bench = bench;
    /** @type {{bench: string, label: string, value: number, target: string, met: boolean}[]} */
    this.list = [];
  }

  /**
   * Checks `value` against `goal` and keeps the line; returns whether it is met. A value that
   * is not a number (a figure that could not be computed) is not met.
   * @param {string} label what the figure is
   * @param {number} value the figure
   * @param {">=" | "<="} op
   * @param {number} goal
   * @param {{unit?: string, digits?: number}} [format] unit after the numbers ("×" by
   *   default), digits of the value (2)
   */
  check(label, value, op, goal, { unit = "×", digits = 2 } = {}) {
    const how = OPS[op];
    if (how === undefined) throw new Error(`target '${label}': unknown comparison '${op}' (>= or <=)`);
    const met = Number.isFinite(value) && how.met(value, goal);
    const shown = Number.isFinite(value) ? Number(value.toFixed(digits)) : null;
    this.list.push({ bench: this.bench, label, value: shown, target: `${how.sign} ${goal}${unit}`, met, unit, digits });
    return met;
  }

  /** Prints the lines checked so far, aligned, with ✓ or ✗. */
  print() {
    if (this.list.length === 0) return;
    const value = (t) => (t.value === null ? "–" : `${t.value.toFixed(t.digits)}${t.unit}`);
    const wl = Math.max(...this.list.map((t) => t.label.length));
    const wv = Math.max(...this.list.map((t) => value(t).length));
    const wt = Math.max(...this.list.map((t) => t.target.length));
    console.log(`\ntargets (${this.bench}):`);
    for (const t of this.list) {
      console.log(`  ${t.label.padEnd(wl)}  ${value(t).padStart(wv)}  target ${t.target.padEnd(wt)}  ${t.met ? "✓" : "✗"}`);
    }
    const met = this.list.filter((t) => t.met).length;
    console.log(`  ${met} of ${this.list.length} met\n`);
  }

  /** Puts this bench's lines into `results.targets` in place of the ones it saved before. */
  save(results) {
    const others = (results.targets ?? []).filter((t) => t.bench !== this.bench);
    results.targets = [...others, ...this.list.map(({ bench, label, value, target, met }) => ({ bench, label, value, target, met }))];
  }
}

/**
 * The loopback throughput of the test server in bytes per ms: the median of 3 GETs (after one
 * warm-up) of a 64 MiB file from a server without latency, read whole by Node's fetch
 * (bench/read/read.mjs and bench/viewer/viewer.mjs: the transfer term of their floors).
 */
export async function loopbackThroughput() {
  const dir = mkdtempSync(join(tmpdir(), "zom-bench-loopback-"));
  const size = 64 * 2 ** 20;
  writeFileSync(join(dir, "big.bin"), Buffer.alloc(size, 7));
  const server = await startServer({ root: dir });
  try {
    const times = [];
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/big.bin`, { signal: AbortSignal.timeout(60_000) });
      const got = (await res.arrayBuffer()).byteLength;
      if (got !== size) throw new Error(`loopback: got ${got} bytes of ${size}`);
      if (i > 0) times.push(performance.now() - t0);
    }
    return size / median(times);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fastest of `tries` transfers of `requests` ({url, range?}) with plain `fetch`: all at
 * once (`together`) or one after another (summed). With a server without latency this is a
 * read's transfer at best on this machine: the same bytes in the same requests, each with what
 * it costs the server and the client (a single large file's rate leaves that out).
 */
export async function transferTime(requests, { together = true, tries = 5 } = {}) {
  const one = async ({ url, range }) => {
    const res = await fetch(
      url,
      range ? { headers: { Range: range }, signal: AbortSignal.timeout(60_000) } : { signal: AbortSignal.timeout(60_000) },
    );
    return (await res.arrayBuffer()).byteLength;
  };
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const t0 = performance.now();
    if (together) await Promise.all(requests.map(one));
    else for (const r of requests) await one(r);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * Bundles a browser page for a bench with esbuild, as apps ship one (ESM, split, minified):
 * `entry` (a file) or `source` (text whose relative imports are resolved from `resolveDir`,
 * default bench/) into `outdir`.
 */
export function bundlePage({ entry, source, resolveDir = benchDir, outdir, logLevel = "warning" }) {
  createRequire(import.meta.url)("esbuild").buildSync({
    ...(entry !== undefined ? { entryPoints: [entry] } : { stdin: { contents: source, resolveDir, loader: "js" } }),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    minify: true,
    logLevel,
  });
}

/**
 * The waves in which requests arrived (each log entry's `start`, tests/server/server.mjs): a
 * request over half a latency after its wave's first starts a new one.
 */
export function roundTrips(log, latency) {
  let waves = 0;
  let start = -Infinity;
  for (const t of log.map((e) => e.start).sort((a, b) => a - b)) {
    if (t - start >= latency / 2) {
      waves += 1;
      start = t;
    }
  }
  return waves;
}

/**
 * Runs `measure(lib)` `runs` times for each library, alternating their order run by run, with a
 * garbage collection before each (where Node runs with --expose-gc): the runs of each, by library.
 */
export async function alternateRuns(libs, runs, measure) {
  const out = Object.fromEntries(libs.map((l) => [l, []]));
  for (let i = 0; i < runs; i++) {
    for (const lib of i % 2 ? [...libs].reverse() : libs) {
      globalThis.gc?.();
      out[lib].push(await measure(lib));
    }
  }
  return out;
}

/**
 * Native decode MB/s by case, for a bench's floors: from `file` (examples/bench_decode.rs's
 * JSON lines, measured on `data`) when given, else from the first of `sections` of `results`
 * (results.json) that holds them; `{speeds: {}, source: null}` when neither has them.
 */
export function nativeSpeeds(results, { file, data, sections }) {
  if (file) {
    const speeds = {};
    for (const line of readFileSync(file, "utf8").trim().split("\n")) {
      const n = JSON.parse(line);
      speeds[n.case] = n.mb_per_s;
    }
    return { speeds, source: `examples/bench_decode.rs on ${data}, ${new Date().toISOString()}` };
  }
  for (const name of sections) {
    const prev = results[name]?.native;
    if (prev?.speeds) return { ...prev, source: `${prev.source} (kept from results.json ${name})` };
  }
  return { speeds: {}, source: null };
}

/** `native`'s speeds for a bench's first line ("a 700, b 900 MB/s"), or why there are none. */
export function nativeSummary(native) {
  if (!native.source) return "unknown (no --native, no earlier run): floors without decode";
  return `${Object.entries(native.speeds)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ")} MB/s`;
}

/** Ends the process with a message when bench `name` runs over `ms` milliseconds. */
export function watchdog(name, ms) {
  setTimeout(() => {
    console.error(`bench: ${name}: over ${ms / 60e3} minutes, giving up`);
    process.exit(1);
  }, ms).unref();
}

/** A typed array's bytes as a Buffer (no copy), to compare two libraries' values. */
export const asBytes = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** The product of `xs`. */
export const prod = (xs) => xs.reduce((a, b) => a * b, 1);

/**
 * Test servers of `root`, one per latency, each started on first use: `at(latency)` gives it,
 * `closeAll()` closes them all.
 */
export function serversByLatency(root) {
  const servers = new Map();
  return {
    async at(latency) {
      if (!servers.has(latency)) servers.set(latency, await startServer({ root, latencyMs: latency }));
      return servers.get(latency);
    },
    async closeAll() {
      for (const s of servers.values()) await s.close();
      servers.clear();
    },
  };
}

/** The summary of one library's runs of a case (each run `{ms, requests, kinds, bytes, maxInFlight, roundTrips}`): medians and each run's figures. */
export function runSummary(rs) {
  return {
    ms: median(rs.map((r) => r.ms)),
    runs_ms: rs.map((r) => Math.round(r.ms * 10) / 10),
    requests: median(rs.map((r) => r.requests)),
    runs_requests: rs.map((r) => r.requests),
    requests_by_kind: rs[0].kinds,
    bytes: median(rs.map((r) => r.bytes)),
    max_in_flight: Math.max(...rs.map((r) => r.maxInFlight)),
    runs_max_in_flight: rs.map((r) => r.maxInFlight),
    round_trips: median(rs.map((r) => r.roundTrips)),
    runs_round_trips: rs.map((r) => r.roundTrips),
  };
}

/**
 * Whether a ranged request read a shard's index, as far as its range tells: a suffix range, or
 * a range that ends at the file's end (`fileSize` bytes) and is as long as an index of n
 * 16-byte entries and its 4-byte checksum can be.
 */
export function isShardIndexRead(range, fileSize) {
  if (range.startsWith("bytes=-")) return true;
  const [a, b] = range.slice(6).split("-").map(Number);
  const length = b - a + 1;
  return b === fileSize - 1 && length <= 16 * 65536 + 4 && (length - 4) % 16 === 0;
}

/** What a server saw since its last resetStats: its counters, its round trips and its requests by `kindsOf(log)`. */
export function seenBy(server, latency, kindsOf) {
  const log = server.stats.log.slice();
  return {
    requests: server.stats.requests,
    bytes: server.stats.bytes,
    maxInFlight: server.stats.maxInFlight,
    roundTrips: roundTrips(log, latency),
    kinds: kindsOf(log),
  };
}

/** `promise`, or an Error naming `what` when it has not settled after `ms`. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1e3} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A server for a bench's page (`pageDir`, its `/index.html` the `page` text, never cached) and its
 * data (`data` at /data/), answering after `latency` ms; with `isolated` the page is
 * cross-origin isolated (COOP + COEP), so that it may share memory with its workers.
 */
export function pageServer({ pageDir, data, latency, page, isolated }) {
  const isolation = isolated ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } : {};
  return startServer({
    root: pageDir,
    mounts: { "/data/": data },
    latencyMs: latency,
    routes: {
      "/index.html": () => ({
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8", ...isolation, "cache-control": "no-store" },
        body: page,
      }),
    },
  });
}
