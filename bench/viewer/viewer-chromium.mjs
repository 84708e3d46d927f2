// The viewer bench's Chromium part (bench/viewer/viewer.mjs runs it): the viewer page bundled and served
// at each latency, time to first tile against zarrita and its floor, zom's HTTP concurrency in
// the page, and the soak's memory, sampled from the browser's processes.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as zarr from "zarrita";
import { CHROMIUM_ARGS, launchChromium, recordConsole } from "../../tests/browser/chromium.mjs";
import { checksum, visibleTiles } from "../lib/tiles.js";
import { benchDir, bundlePage, pageServer, prod, runSummary, withTimeout } from "../lib/util.mjs";

/** The Chromium part, given the viewer bench's settings and its helpers (bench/viewer/viewer.mjs). */
export function viewerChromium({
  CHROMIUM_CONCURRENCY_RUNS,
  CHROMIUM_SOAK_ROUNDS,
  CONCURRENCIES,
  CONCURRENCY_LATENCY,
  N,
  PAGE_TIMEOUT_MS,
  RUNS,
  SOAK_LATENCY,
  SOAK_SEED,
  SOAK_VARIANTS,
  TTFT_LATENCY,
  getHasConcurrency,
  limitName,
  opts,
  pyramidDir,
  seen,
  soakReference,
}) {
  // ---------------------------------------------------------------------------------------------
  // Chromium.

  /**
   * tests/browser/chromium.mjs's flags (launchChromium replaces its list when given `args`), and
   * one more: measureUserAgentSpecificMemory() measures at once instead of at the next GC (up
   * to 20 s later).
   */
  const VIEWER_CHROMIUM_ARGS = [...CHROMIUM_ARGS, "--enable-blink-features=ForceEagerMeasureMemory"];

  /** Bundles bench/viewer/viewer-page.js into a temporary directory; its path. */
  function buildPage() {
    const dir = mkdtempSync(join(tmpdir(), "zom-bench-viewer-page-"));
    bundlePage({ entry: join(benchDir, "viewer", "viewer-page.js"), outdir: dir });
    return dir;
  }

  const PAGE =
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="/viewer-page.js"></script>\n';

  /** A server for the page and the data (/data/), cross-origin isolated (COOP + COEP on the page). */
  const isolatedServer = (pageDir, latency) => pageServer({ pageDir, data: opts.data, latency, page: PAGE, isolated: true });

  const dataFile = (path) => join(opts.data, path.replace(/^\/data\//, ""));

  /** A Chromium with the page's `viewerMark` wired to the current server's counters. */
  async function chromiumSession(prefix) {
    const { browser, profile } = await launchChromium(prefix, { args: VIEWER_CHROMIUM_ARGS });
    const session = { browser, profile, server: null, latency: 0, marks: {} };
    await browser.exposeFunction("viewerMark", (label) => {
      const [name, edge] = label.split(":");
      if (edge === "start") session.server.resetStats();
      else session.marks[name] = seen(session.server, session.latency, dataFile);
    });
    session.close = async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    };
    return session;
  }

  /** Runs one case in a new tab; its result and the marks the page set. `beforeClose` runs before the tab closes. */
  async function pageCase(session, args, beforeClose = () => {}) {
    const page = await session.browser.newPage();
    const lines = recordConsole(page);
    session.marks = {};
    try {
      await page.goto(`${session.server.url}/index.html`, { timeout: 30_000 });
      await page.waitForFunction(() => window.viewerReady === true, null, { timeout: 30_000 });
      const result = await withTimeout(
        page.evaluate((a) => window.viewerCase(a), args),
        PAGE_TIMEOUT_MS,
        `Chromium ${args.case}`,
      );
      beforeClose();
      if (result.error) throw new Error(`Chromium ${args.case} ${args.lib}: ${result.error}\n${lines.join("\n")}`);
      const problems = lines.filter((l) => l.startsWith("pageerror") || l.startsWith("error"));
      return { result, marks: { ...session.marks }, problems };
    } finally {
      await page.close();
    }
  }

  /** The pids of the browser whose profile directory is `profile`, and of all its descendants. */
  function browserProcesses(profile) {
    const procs = new Map();
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        procs.set(Number(pid), { ppid, cmd: readFileSync(`/proc/${pid}/cmdline`, "utf8") });
      } catch {
        // gone meanwhile
      }
    }
    const mine = new Set([...procs].filter(([, p]) => p.cmd.includes(profile)).map(([pid]) => pid));
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of procs) {
        if (!mine.has(pid) && mine.has(p.ppid)) {
          mine.add(pid);
          grew = true;
        }
      }
    }
    return [...mine].map((pid) => ({ pid, renderer: procs.get(pid).cmd.includes("--type=renderer") }));
  }

  /** VmHWM (peak resident set) and Pss (proportional set: shared pages split) of a process, bytes; 0 when it is gone. */
  function memoryOf(pid) {
    const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) * 1024;
    try {
      return {
        hwm: kb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmHWM"),
        pss: kb(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"), "Pss"),
      };
    } catch {
      return { hwm: 0, pss: 0 };
    }
  }

  /**
   * Samples the memory of a browser's processes: the largest VmHWM of a renderer (the tab's
   * process: its own peak) and the largest sum of Pss over all of them seen.
   */
  function memorySampler(profile) {
    const peak = { renderer_peak_rss_bytes: 0, browser_peak_pss_bytes: 0 };
    const sample = () => {
      let pss = 0;
      for (const p of browserProcesses(profile)) {
        const m = memoryOf(p.pid);
        pss += m.pss;
        if (p.renderer) peak.renderer_peak_rss_bytes = Math.max(peak.renderer_peak_rss_bytes, m.hwm);
      }
      peak.browser_peak_pss_bytes = Math.max(peak.browser_peak_pss_bytes, pss);
    };
    const timer = setInterval(sample, 200);
    return { sample, stop: () => (clearInterval(timer), sample(), peak), peak };
  }

  /**
   * The time-to-first-tile variants: each library with its defaults on the plain and the
   * consolidated pyramid; zarrita as an OME-Zarr 0.5 viewer would tune it (open.v3, consolidated
   * metadata used); and zarrita with requests that bypass Chromium's HTTP cache (`cache:
   * "no-store"`, as zom's FetchStore sends its Range requests), whose per-URL lock makes requests
   * for one URL (ranges of one shard) wait for each other.
   */
  const TTFT_VARIANTS = [
    { lib: "zom", path: "plain" },
    { lib: "zarrita", path: "plain" },
    { lib: "zom", path: "consolidated" },
    { lib: "zarrita", path: "consolidated" },
    { lib: "zarrita-tuned", path: "consolidated" },
    { lib: "zarrita", path: "plain", noStore: true },
  ];
  const ttftName = (v) => `${v.lib}, ${v.path}${v.noStore ? ", cache: no-store" : ""}`;

  /** The floor of time to first tile: group, levels (at once, or none when consolidated), index, ranges. */
  function ttftFloor(path, level, coords, latency, loopback, native) {
    const rt = path === "consolidated" ? 3 : 4;
    const dir = join(pyramidDir, "plain", level);
    const meta = JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8"));
    const sharding = meta.codecs.find((c) => c.name === "sharding_indexed").configuration;
    const shard = meta.chunk_grid.configuration.chunk_shape;
    const per = shard.map((s, d) => s / sharding.chunk_shape[d]);
    const indexBytes = 16 * prod(per) + 4;
    let stored = 0;
    const shards = new Set();
    for (const k of coords) {
      const s = k.map((x, d) => Math.floor(x / per[d]));
      shards.add(s.join());
      const file = readFileSync(join(dir, "c", ...s.map(String)));
      const index = file.subarray(file.length - indexBytes);
      stored += Number(index.readBigUInt64LE(16 * k.reduce((acc, x, d) => acc * per[d] + (x % per[d]), 0) + 8));
    }
    const mbPerS = native.speeds.sharded_zstd;
    const decode = mbPerS ? (coords.length * prod(sharding.chunk_shape) * 2) / (mbPerS * 1e3) / Math.min(N, coords.length) : NaN;
    const transfer = (stored + indexBytes * shards.size) / loopback;
    return {
      ms: rt * latency + Math.max(transfer, decode),
      round_trips: rt,
      latency_ms: rt * latency,
      transfer_ms: transfer,
      decode_ms: decode,
      native_case: "sharded_zstd (256² zstd inner chunks)",
    };
  }

  async function chromiumPart(loopback, native) {
    const pageDir = buildPage();
    const out = { browser: "Debian Chromium, headless (tests/browser/chromium.mjs), HTTP/1.1, page cross-origin isolated (COOP/COEP)" };
    let session;
    let server;
    try {
      session = await chromiumSession("zom-bench-viewer-");
      // Time to first tile.
      server = await isolatedServer(pageDir, TTFT_LATENCY);
      Object.assign(session, { server, latency: TTFT_LATENCY });
      const reference = await (async () => {
        const arr = await zarr.open(new zarr.FetchStore(`${server.url}/data/viewer_pyramid/plain/s2`), { kind: "array" });
        const coords = visibleTiles(arr.shape, arr.chunks);
        return { level: "s2", coords, checksums: await Promise.all(coords.map(async (c) => checksum((await arr.getChunk(c)).data))) };
      })();
      const names = TTFT_VARIANTS.map(ttftName);
      const samples = Object.fromEntries(names.map((n) => [n, []]));
      for (let i = 0; i < RUNS; i++) {
        for (const n of i % 2 ? [...names].reverse() : names) {
          const v = TTFT_VARIANTS[names.indexOf(n)];
          const { result, marks, problems } = await pageCase(session, {
            case: "ttft",
            lib: v.lib,
            path: `viewer_pyramid/${v.path}`,
            noStore: v.noStore ?? false,
          });
          for (const pass of ["cold", "warm"]) {
            if (result[pass].level !== reference.level || result[pass].checksums.join() !== reference.checksums.join()) {
              throw new Error(
                `Chromium ttft ${n} (${pass}): read level ${result[pass].level} tiles ${result[pass].checksums}, want ${reference.level} ${reference.checksums}`,
              );
            }
          }
          samples[n].push({
            cold: { ms: result.cold.ms, ...marks.cold },
            warm: { ms: result.warm.ms, ...marks.warm },
            batch: result.cold.batch,
            problems,
          });
        }
      }
      const passSummary = (rs) => runSummary(rs);
      out.ttft = {
        latency_ms: TTFT_LATENCY,
        level: reference.level,
        tiles: reference.coords,
        method:
          "a new tab per run; cold: the library's first use in the tab (zom: WebAssembly load and worker start; zarrita: its zstd codec's WebAssembly), warm: again with a new store. Open the group, read ome.multiscales, open every level at once, pick the level nearest 1024², read its 4 centre tiles at once",
        rows: TTFT_VARIANTS.map((v, k) => {
          const rs = samples[names[k]];
          return {
            variant: names[k],
            lib: v.lib,
            data: v.path,
            no_store: v.noStore ?? false,
            zom_call: v.lib === "zom" ? (rs[0].batch ? "getChunks (batch)" : "getChunk × 4, Promise.all") : null,
            cold: passSummary(rs.map((r) => r.cold)),
            warm: passSummary(rs.map((r) => r.warm)),
            floor: ttftFloor(v.path, reference.level, reference.coords, TTFT_LATENCY, loopback, native),
            console_problems: rs.flatMap((r) => r.problems).slice(0, 5),
          };
        }),
      };
      for (const r of out.ttft.rows)
        console.log(
          `bench: viewer Chromium first tile ${r.variant.padEnd(34)} cold ${r.cold.ms.toFixed(0).padStart(5)} ms, warm ${r.warm.ms.toFixed(0).padStart(5)} ms (${r.warm.requests} req, ${r.warm.round_trips} round trips), floor ${r.floor.ms.toFixed(0)} ms`,
        );
      await server.close();
      server = null;

      // The concurrency question in the browser.
      server = await isolatedServer(pageDir, CONCURRENCY_LATENCY);
      Object.assign(session, { server, latency: CONCURRENCY_LATENCY });
      const cnames = [...CONCURRENCIES.map(limitName), "zarrita"];
      const cruns = Object.fromEntries(cnames.map((n) => [n, []]));
      for (let i = 0; i < CHROMIUM_CONCURRENCY_RUNS; i++) {
        for (const n of i % 2 ? [...cnames].reverse() : cnames) {
          const concurrency = n === "zarrita" ? undefined : n === "unlimited" ? null : Number(n);
          const { result, marks } = await pageCase(session, {
            case: "concurrency",
            lib: n === "zarrita" ? "zarrita" : "zom",
            concurrency,
            path: "viewer/chunked_blosc_zstd",
            warmPath: "viewer_pyramid/plain/s3",
          });
          cruns[n].push({ ms: result.ms, ...marks.read });
        }
      }
      out.concurrency = {
        array: "chunked_blosc_zstd",
        latency_ms: CONCURRENCY_LATENCY,
        runs: CHROMIUM_CONCURRENCY_RUNS,
        get_concurrency: getHasConcurrency ? "get({concurrency: 1e9})" : "get has no concurrency option",
        rows: cnames.map((n) => ({ concurrency: n, ...runSummary(cruns[n]) })),
      };
      for (const r of out.concurrency.rows)
        console.log(
          `bench: viewer concurrency ${r.concurrency.padEnd(9)} (Chromium) ${r.ms.toFixed(0).padStart(5)} ms, max in flight ${r.max_in_flight}, round trips ${r.round_trips}`,
        );
      await server.close();
      server = null;
      await session.close();
      session = null;

      // The soak's memory: a new browser per variant, so that each renderer's peak is its own.
      server = await isolatedServer(pageDir, SOAK_LATENCY);
      const soakRef = await soakReference(`${server.url}/data/viewer/chunked_zstd`);
      out.soak = { array: "chunked_zstd", latency_ms: SOAK_LATENCY, rounds: CHROMIUM_SOAK_ROUNDS, cancelled_per_round: 8, rows: [] };
      for (const v of SOAK_VARIANTS.cancel) {
        session = await chromiumSession("zom-bench-viewer-soak-");
        Object.assign(session, { server, latency: SOAK_LATENCY });
        const sampler = memorySampler(session.profile);
        let result;
        try {
          const args = {
            case: "soak",
            lib: v.lib,
            workers: v.workers ?? null,
            path: "viewer/chunked_zstd",
            rounds: CHROMIUM_SOAK_ROUNDS,
            cancel: true,
            seed: SOAK_SEED,
            reference: soakRef,
          };
          ({ result } = await pageCase(session, args, sampler.sample));
        } finally {
          sampler.stop();
          await session.close();
          session = null;
        }
        const row = { label: v.label, ...result, ...sampler.peak };
        out.soak.rows.push(row);
        console.log(
          `bench: viewer Chromium soak ${v.label.padEnd(26)} renderer peak RSS ${(row.renderer_peak_rss_bytes / 2 ** 20).toFixed(0).padStart(5)} MiB, browser (Pss sum, peak) ${(row.browser_peak_pss_bytes / 2 ** 20).toFixed(0)} MiB, ` +
            `page memory ${typeof row.measured_memory_bytes === "number" ? `${(row.measured_memory_bytes / 2 ** 20).toFixed(0)} MiB` : row.measured_memory_bytes}, ${row.wrong_values} wrong, ${row.wrong_errors + row.failed_uncancelled} bad rejections`,
        );
      }
    } finally {
      await session?.close();
      await server?.close();
      rmSync(pageDir, { recursive: true, force: true });
    }
    return out;
  }

  return { chromiumPart };
}
