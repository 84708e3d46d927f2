// The Markdown tables of the "icechunk" section of bench/results.json (bench/icechunk/icechunk.mjs):
// printed by bench/icechunk/icechunk.mjs after a run and by scripts/bench-tables.mjs from the file.
import { table } from "../lib/util.mjs";

const f0 = (x) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(0) : "–");
const times = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");
const lib = (s) => `${f0(s.ms)} / ${s.requests} (${s.max_in_flight}, ${s.round_trips})`;
/** Requests by kind, the kinds seen only. */
const kinds = (k) =>
  Object.entries(k)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`)
    .join(" + ");

/** The Markdown tables of an icechunk section. */
export function icechunkTables(s) {
  const parts = [];
  const head = (what) => [
    what,
    "zom ms / requests (max in flight, round trips)",
    "icechunk-js + zarrita ms / requests (…)",
    "icechunk-js / zom",
    "floor ms (round trips)",
    "zom / floor",
    "icechunk-js / floor",
  ];
  const rowsOf = (rows) =>
    rows.map((r) => [
      r.description,
      lib(r.zom),
      lib(r.icechunk_js),
      times(r.icechunk_js_over_zom),
      `${f0(r.floor?.ms)} (${r.floor?.round_trips ?? "–"})`,
      times(r.zom_over_floor),
      times(r.icechunk_js_over_floor),
    ]);
  if (s.rows?.length)
    parts.push(
      table(head(`Icechunk repository over HTTP (zom's tiles: ${s.zom_batch_call ? "getChunks" : "getChunk × 16"})`), rowsOf(s.rows)),
    );
  if (s.cold?.length) {
    parts.push(
      table(
        [
          "open + first chunk in a new Node process",
          "zom ms (import ms) / requests",
          "icechunk-js + zarrita ms (import ms) / requests",
          "icechunk-js / zom",
          "floor ms",
          "zom / floor",
        ],
        s.cold.map((r) => [
          r.description,
          `${f0(r.zom.ms)} (${f0(r.zom.import_ms)}) / ${r.zom.requests}`,
          `${f0(r.icechunk_js.ms)} (${f0(r.icechunk_js.import_ms)}) / ${r.icechunk_js.requests}`,
          times(r.icechunk_js_over_zom),
          f0(r.floor?.ms),
          times(r.zom_over_floor),
        ]),
      ),
    );
  }
  const first = s.rows?.filter((r) => r.latency_ms === s.rows[0].latency_ms) ?? [];
  if (first.length) {
    parts.push(
      table(
        [`requests by kind (${first[0].latency_ms} ms)`, "zom", "icechunk-js + zarrita", "floor's way to the chunks"],
        first.map((r) => [
          r.description.replace(/, \d+ ms$/, ""),
          kinds(r.zom.requests_by_kind),
          kinds(r.icechunk_js.requests_by_kind),
          r.floor?.way ?? "–",
        ]),
      ),
    );
  }
  if (s.chromium?.rows?.length) {
    parts.push(
      table(
        [
          `zom in Chromium (${s.chromium.cross_origin_isolated ? "cross-origin isolated" : "page not cross-origin isolated"})`,
          "ms / requests (max in flight, round trips)",
          "zom in Node ms",
          "floor ms",
          "zom / floor",
        ],
        s.chromium.rows.map((r) => [r.description, lib(r.zom), f0(r.node_zom_ms), f0(r.floor_ms), times(r.zom_over_floor)]),
      ),
    );
  }
  return parts.join("\n\n");
}
