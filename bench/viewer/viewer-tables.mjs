// The Markdown tables of a "viewer" section of bench/results.json (bench/viewer/viewer.mjs): printed by
// bench/viewer/viewer.mjs after a run and by scripts/bench-tables.mjs from the file.
import { table } from "../lib/util.mjs";

const f0 = (x) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(0) : "–");
const f1 = (x) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(1) : "–");
const times = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");
const mib = (b) => (typeof b === "number" && b > 0 ? `${(b / 2 ** 20).toFixed(0)} MiB` : "–");
const lib = (s) => `${f0(s.ms)} / ${s.requests} (${s.max_in_flight}, ${s.round_trips})`;

/** The Markdown tables of a viewer section (bench/viewer/viewer.mjs prints them, scripts/bench-tables.mjs too). */
export function viewerTables(s) {
  const parts = [];
  const rowsOf = (rows) =>
    rows.map((r) => [r.description, lib(r.zom), lib(r.zarrita), times(r.zarrita_over_zom), f0(r.floor?.ms), times(r.zom_over_floor)]);
  const head = (what) => [
    what,
    "zom ms / requests (max in flight, round trips)",
    "zarrita ms / requests (…)",
    "zarrita / zom",
    "floor ms",
    "zom / floor",
  ];
  if (s.tiles?.length)
    parts.push(
      table(head(`tiles (${s.tiles[0].tiles}), zom: ${s.tiles.find((r) => r.mode === "atOnce")?.zom_call ?? ""} at once`), rowsOf(s.tiles)),
    );
  if (s.index_reuse) {
    const r = s.index_reuse;
    parts.push(
      table(
        ["one more tile of a shard whose index was read", "zom requests (kinds)", "zarrita requests (kinds)"],
        [
          [
            `sharded_zstd, ${r.latency_ms} ms`,
            `${r.zom.requests} (${r.zom.requests_by_kind.index} index + ${r.zom.requests_by_kind.data} data)`,
            `${r.zarrita.requests} (${r.zarrita.requests_by_kind.index} index + ${r.zarrita.requests_by_kind.data} data)`,
          ],
        ],
      ),
    );
  }
  if (s.whole?.length) parts.push(table(head("whole arrays (open + read)"), rowsOf(s.whole)));
  if (s.server_cost) {
    parts.push(
      table(
        ["the test server's own time per request (32 at once, no latency)", "file MB", "ms per request"],
        s.server_cost.map((c) => [c.file, (c.file_bytes / 1e6).toFixed(1), f1(c.ms_per_request)]),
      ),
    );
  }
  const c = s.concurrency;
  if (c?.node || c?.chromium) {
    const names = [...new Set([...(c.node?.rows ?? []), ...(c.chromium?.rows ?? [])].map((r) => r.concurrency))];
    const cell = (rows, n) => {
      const r = rows?.find((x) => x.concurrency === n);
      return r ? `${f0(r.ms)} (${r.max_in_flight}, ${r.round_trips})` : "–";
    };
    parts.push(
      table(
        [
          `64 chunks whole at ${c.node?.latency_ms ?? c.chromium?.latency_ms} ms, FetchStore concurrency`,
          "Node ms (max in flight, round trips)",
          "Chromium ms (max in flight, round trips)",
        ],
        names.map((n) => [n === "zarrita" ? "zarrita (no limit of its own)" : n, cell(c.node?.rows, n), cell(c.chromium?.rows, n)]),
      ),
    );
  }
  const soakRows = (label, k) =>
    s.soak?.[k]?.rows?.map((r) => [
      `${label}, ${r.label}`,
      mib(r.peak_rss_bytes),
      mib(r.baseline_rss_bytes),
      `${r.arrived} / ${r.tiles}`,
      String(r.cancelled_aborted),
      String(r.wrong_values),
      String(r.wrong_errors + r.failed_uncancelled),
      String(r.unhandled_rejections),
      f1(r.ms / 1e3),
    ]) ?? [];
  if (s.soak) {
    parts.push(
      table(
        [
          "soak (Node, one process each)",
          "peak RSS",
          "RSS after open",
          "tiles arrived",
          "aborted",
          "wrong values",
          "bad rejections",
          "unhandled",
          "s",
        ],
        [
          ...soakRows(`${s.soak.cancel?.rounds} rounds, half cancelled`, "cancel"),
          ...soakRows(`${s.soak.no_cancel?.rounds} rounds`, "no_cancel"),
        ],
      ),
    );
  }
  const ch = s.chromium;
  if (ch?.ttft) {
    parts.push(
      table(
        [
          `Chromium: first tile of the pyramid (${ch.ttft.latency_ms} ms, level ${ch.ttft.level}, 4 tiles)`,
          "cold ms",
          "warm ms / requests (max in flight, round trips)",
          "floor ms",
          "warm / floor",
        ],
        ch.ttft.rows.map((r) => [
          r.variant ?? `${r.lib}, ${r.data}`,
          f0(r.cold.ms),
          lib(r.warm),
          f0(r.floor.ms),
          times(r.warm.ms / r.floor.ms),
        ]),
      ),
    );
  }
  if (ch?.soak) {
    parts.push(
      table(
        [
          `Chromium soak (${ch.soak.rounds} rounds, half cancelled)`,
          "renderer peak RSS",
          "browser Pss (sum, sampled peak)",
          "page memory (measureUserAgentSpecificMemory)",
          "wrong values",
          "bad rejections",
          "s",
        ],
        ch.soak.rows.map((r) => [
          r.label,
          mib(r.renderer_peak_rss_bytes),
          mib(r.browser_peak_pss_bytes),
          typeof r.measured_memory_bytes === "number" ? mib(r.measured_memory_bytes) : String(r.measured_memory_bytes),
          String(r.wrong_values),
          String(r.wrong_errors + r.failed_uncancelled),
          f1(r.ms / 1e3),
        ]),
      ),
    );
  }
  return parts.join("\n\n");
}
