// The Markdown tables of the "first_impressions" section of bench/results.json
// (bench/first/first.mjs): printed by bench/first/first.mjs after a run and by scripts/bench-tables.mjs from
// the file (docs/benchmarks.md: firstTables; README.md: firstSummary).
import { table } from "../lib/util.mjs";

const LABELS = { zarrita: "zarrita + numcodecs", zom: "zom", "zom/manual": "zom/manual (.wasm beside)", "zom/zarrita": "zom/zarrita" };
const ms = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(0)} ms` : "–");
const kib = (b) => (typeof b === "number" && Number.isFinite(b) ? (b / 1024).toFixed(1) : "–");
const times = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");

/** The rows of one page, Chromium's profiles first, then Firefox's. */
function pageRows(s, page) {
  const rows = s.rows.filter((r) => r.page === page);
  const zarrita = (r) => rows.find((z) => z.browser === r.browser && z.profile === r.profile && z.library === "zarrita");
  return rows.map((r) => [
    r.browser === "chromium" ? r.profile : `Firefox, ${r.profile}`,
    LABELS[r.library] ?? r.library,
    ms(r.ms),
    zarrita(r) ? times(r.ms / zarrita(r).ms) : "",
    `${kib(r.code_bytes)} + ${kib(r.data_bytes)}`,
    `${r.code_requests} + ${r.data_requests}`,
  ]);
}

/** Every table of the section. */
export function firstTables(s) {
  const parts = [];
  for (const [page, what] of Object.entries(s.pages)) {
    parts.push(
      table(
        [`${page}: ${what}`, "library", "median", "× zarrita", "KiB before the data: code + data", "requests: code + data"],
        pageRows(s, page),
      ),
    );
  }
  if ((s.main_thread ?? []).length > 0) {
    parts.push(
      table(
        [
          "main thread from the JS's arrival to the first chunk request (Chromium, loopback, traced)",
          "library",
          "busy, median",
          "window, median",
          "busy, each run",
          "where (self time, medians)",
        ],
        s.main_thread.map((m) => [
          m.page,
          LABELS[m.library] ?? m.library,
          ms(m.busy_ms),
          ms(m.window_ms),
          m.runs_busy_ms.map((x) => x.toFixed(0)).join(", "),
          Object.entries(m.by_name)
            .slice(0, 4)
            .map(([n, x]) => `${n} ${x.toFixed(0)}`)
            .join(", "),
        ]),
      ),
    );
  }
  const files = [];
  for (const [name, libs] of Object.entries(s.files)) {
    for (const [lib, byFile] of Object.entries(libs)) {
      for (const [file, f] of Object.entries(byFile)) {
        files.push([`${name}, ${LABELS[lib] ?? lib}`, file, kib(f.raw), kib(f.gzip), kib(f.brotli), f.loaded ? "yes" : "no"]);
      }
    }
  }
  parts.push(table(["page's JS and WebAssembly by file", "file", "KiB", "gzip -9 KiB", "brotli KiB", "loaded before the data"], files));
  const b = s.before;
  parts.push(
    table(
      [`before (${b.date}, ${b.page} page)`, ...b.libraries.map((l) => LABELS[l] ?? l), "bytes"],
      b.rows.map((r) => [r.profile, ...r.ms.map((x) => (Array.isArray(x) ? `${x[0]}–${x[1]} ms` : `${x} ms`)), r.bytes]),
    ),
  );
  return parts.join("\n\n");
}

/**
 * README's lines: the tile and app pages in Chromium, each network (and encoding), zarrita and
 * zom's entries; beside the app page's, the figures of before this bench (zarrita, zom,
 * zom/zarrita).
 */
export function firstSummary(s) {
  return ["tile", "app"]
    .filter((page) => s.rows.some((r) => r.page === page))
    .map((page) => pageSummary(s, page))
    .join("\n\n");
}

/** One page's lines for README. */
function pageSummary(s, page) {
  const libs = Object.keys(LABELS).filter((l) => s.rows.some((r) => r.page === page && r.library === l));
  const at = (profile, lib) =>
    s.rows.find((r) => r.page === page && r.browser === "chromium" && r.profile === profile && r.library === lib);
  // Each network, once per encoding the JS was served with when the run had --encodings.
  const profiles = [...new Set(s.rows.filter((r) => r.page === page && r.browser === "chromium").map((r) => r.profile))];
  const base = (p) => s.profiles.find((q) => p === q.name || p.startsWith(`${q.name}, `))?.name ?? p;
  const before = (p) => {
    const row = s.before.rows.find((r) => r.profile === base(p));
    return row === undefined ? "–" : row.ms.map((x) => (Array.isArray(x) ? `${x[0]}–${x[1]}` : `${x}`)).join(" / ");
  };
  const withBefore = page === s.before.page;
  const ratio = (p, l) => (l === "zarrita" || !at(p, l) || !at(p, "zarrita") ? "" : ` (${times(at(p, "zarrita").ms / at(p, l).ms)})`);
  const rows = profiles.map((p) => [p, ...libs.map((l) => `${ms(at(p, l)?.ms)}${ratio(p, l)}`), ...(withBefore ? [before(p)] : [])]);
  const main = (l) => (s.main_thread ?? []).find((m) => m.page === page && m.library === l);
  if (libs.some(main))
    rows.push([
      "main thread before the first chunk request (loopback, traced)",
      ...libs.map((l) => ms(main(l)?.busy_ms)),
      ...(withBefore ? ["–"] : []),
    ]);
  rows.push([
    "KiB before the data: code + data",
    ...libs.map((l) => `${kib(at(profiles[0], l)?.code_bytes)} + ${kib(at(profiles[0], l)?.data_bytes)}`),
    ...(withBefore ? ["252 / 449 / 449 (code)"] : []),
  ]);
  const d = s.data[page];
  const chunks = d.shape.reduce((n, x, i) => n * Math.ceil(x / d.chunks[i]), 1);
  const what = `${page === "tile" ? "a small first tile" : "an array"} (${d.shape.join("×")}, ${chunks} zstd chunk${chunks === 1 ? "" : "s"}, ${kib(d.stored_bytes)} KiB stored)`;
  return table(
    [
      `${what}, cold page, Chromium (speed-up over zarrita)`,
      ...libs.map((l) => LABELS[l]),
      ...(withBefore ? [`before (${s.before.date}): zarrita / zom / zom/zarrita`] : []),
    ],
    rows,
  );
}
