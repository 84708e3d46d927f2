// One panning soak of bench/viewer/viewer.mjs, alone in its own process so that its peak RSS is its
// own (worker threads included): bench/viewer/viewer.mjs spawns it once per variant and reads the one
// JSON line it prints.
//
//   node bench/viewer/viewer-soak.mjs '{"url": "...", "lib": "zom", "workers": 0, "rounds": 400,
//                                "cancel": true, "seed": 1, "reference": {"i,j": checksum}}'
//
// lib "zom" (workers: absent = the default pool, or a count) or "zarrita". The array is opened
// once; the rounds (viewer-tiles.js soakRounds) are read one after another, each round's 16
// tiles at once. Prints {peak_rss_bytes (the process's peak resident set: VmHWM of
// /proc/self/status), sampled_peak_rss_bytes (the largest RSS seen after a round),
// baseline_rss_bytes (after the open), final_rss_bytes, the counts of runSoak,
// unhandled_rejections, ms}.
//
// Not getrusage's maxrss (process.resourceUsage().maxRSS): Linux carries it across exec, so a
// child spawned by a large parent reports at least the parent's RSS at the fork. VmHWM belongs
// to this process image alone.
import { readFileSync } from "node:fs";
import { runSoak, soakRounds, zarritaReader, zomReader } from "../lib/tiles.js";

/** VmHWM in bytes (Linux), else the largest RSS sampled. */
function peakRss(sampled) {
  try {
    const kb = /^VmHWM:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // not Linux
  }
  return sampled;
}

const args = JSON.parse(process.argv[2]);
const unhandled = [];
process.on("unhandledRejection", (e) => unhandled.push(String(e?.stack ?? e)));

let reader;
let zom;
if (args.lib === "zom") {
  zom = await import("zom");
  reader = zomReader(zom, { workers: args.workers ?? undefined });
} else {
  reader = zarritaReader(await import("zarrita"));
}
const arr = await reader.open(args.url);
const baseline = process.memoryUsage.rss();
let sampledPeak = baseline;
const sample = () => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
};
const plan = soakRounds({ rounds: args.rounds, cancel: args.cancel, seed: args.seed });
const result = await runSoak(reader, arr, plan, args.reference, sample);
// A rejection that nobody handles surfaces after the microtasks of the last round.
await new Promise((done) => setTimeout(done, 100));
sample();
const out = {
  lib: args.lib,
  workers: args.workers ?? null,
  batch: reader.batch(arr),
  peak_rss_bytes: peakRss(sampledPeak),
  getrusage_maxrss_bytes: process.resourceUsage().maxRSS * 1024,
  sampled_peak_rss_bytes: sampledPeak,
  baseline_rss_bytes: baseline,
  final_rss_bytes: process.memoryUsage.rss(),
  ...result,
  unhandled_rejections: unhandled.length,
  unhandled: unhandled.slice(0, 3),
};
reader.close(arr);
zom?.closeWorkers();
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
