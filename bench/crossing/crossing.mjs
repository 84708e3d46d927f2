// Values across the JS/WebAssembly boundary: every kind of value zom's bindings (src/wasm/)
// pass, converted three ways, timed in Node:
// - serde-wasm-bindgen: `to_value` / `from_value` (maps as plain objects, null for absent
//   values, BigInt only for integers beyond ±(2^53 − 1), as zom gives them);
// - JSON text: Rust writes it and calls `JSON.parse` (to JS), or JS calls `JSON.stringify` and
//   Rust parses it (from JS), both inside the timed call;
// - js_sys: JS values built one by one, as zom's src/wasm/convert.rs (`to_js_each`, `from_js`)
//   and its option readers do, each property name a new JS string;
// - js_sys, names once (typed values: reports, summaries, errors, limits): the same, with each
//   property name made a JS string once and reused, and `obj[key] = value` for Reflect.set, as
//   zom's src/wasm/plain.rs does (and serde-wasm-bindgen does for structs).
// The conversions run in bench/crossing/, a cdylib of its own that depends on zom (its value
// types, its fixtures from bench/lib/generate.py's hierarchies, src/wasm/convert.rs and plain.rs), so
// nothing of it reaches zom's module. It is built like zom's (opt-level "z", LTO, wasm-bindgen,
// wasm-opt with scripts/build.mjs's arguments), and for its size also with serde-wasm-bindgen
// for the typed values only and without it: the gzip -9 differences are what
// serde-wasm-bindgen would add to zom.
//
//   node bench/crossing/crossing.mjs [--runs N] [--data DIR] [--out results.json] [--no-size]
//
// Needs bench/data (bench/lib/generate.py; `npm run bench -- --only walk` writes it, and so does this
// script when it is missing). Every case is first checked: the three ways must give equal values
// (deepStrictEqual out; the same Rust value in). Then, per case, each sample times enough calls
// to last about 20 ms (the same count for the three ways); the ways alternate in a rotating
// order within each of N runs (default 9), and each way's median is reported. Writes the
// "crossing" section of bench/results.json, keeping the others.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { WASM_OPT_ARGS } from "../../scripts/build.mjs";
import { root, run, runMain, StepError } from "../../scripts/lib.mjs";
import { python } from "../../scripts/setup.mjs";
import { benchDir, median, table } from "../lib/util.mjs";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "9" },
    data: { type: "string", default: join(benchDir, "data") },
    out: { type: "string", default: join(benchDir, "results.json") },
    "no-size": { type: "boolean", default: false },
  },
});
const RUNS = Math.max(3, Number(args.runs));
const SAMPLE_MS = 20;
// The ways compared; "js_sys, names once" (zom's src/wasm/plain.rs) only for typed values.
const WAYS = ["serde-wasm-bindgen", "JSON", "js_sys", "js_sys, names once"];

const crate = join(benchDir, "crossing");
const targetDir = join(root, "target", "crossing");
const cargoWasm = join(targetDir, "wasm32-unknown-unknown", "release", "zom_crossing_bench.wasm");
const bin = (name) => join(root, "node_modules", ".bin", name);

/**
 * The crate built with `features` (Cargo's, after --no-default-features; null: the defaults,
 * every way), wasm-bindgen and wasm-opt applied, in `dir`; returns its sizes.
 */
function buildModule(dir, features) {
  const flags = features === null ? [] : ["--no-default-features", ...(features.length ? ["--features", features.join(",")] : [])];
  run("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "--target-dir", targetDir, ...flags], { cwd: crate });
  mkdirSync(dir, { recursive: true });
  run("wasm-bindgen", ["--target", "nodejs", "--out-dir", dir, cargoWasm]);
  const wasm = join(dir, "zom_crossing_bench_bg.wasm");
  run(bin("wasm-opt"), [...WASM_OPT_ARGS, wasm, "-o", wasm]);
  const bytes = readFileSync(wasm);
  return { raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
}

function fixtureBytes() {
  const file = (name) => join(args.data, name, "consolidated", "zarr.json");
  if (!existsSync(file("walk")) || !existsSync(file("walk10k"))) {
    if (args.data !== join(benchDir, "data")) throw new StepError(`${args.data} has no walk/ and walk10k/ hierarchies`);
    console.log("crossing: writing bench/data with bench/lib/generate.py");
    run(python(), [join(benchDir, "lib", "generate.py"), args.data]);
  }
  return [readFileSync(file("walk")), readFileSync(file("walk10k"))];
}

/** The JS literals the option and selection cases read. */
const LITERALS = {
  walk: { kind: "group", format: 3, depth: 10, concurrency: 16, limits: { maxNodes: 100000, maxDocumentBytes: 10000000 } },
  validate: { key: "a/zarr.json", strict: true, extensions: false },
  selection: [{ start: 0, stop: 100, step: 2 }, 5, null],
};

/** Per-call milliseconds of `reps` calls of `f`. */
function sample(f, reps) {
  globalThis.gc?.();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) f();
  return (performance.now() - t0) / reps;
}

/**
 * Medians of per-call times; `calls[w]` is way w's call (null: not measured), and the calls
 * after the ways are parts of one (the JSON way's Rust part and its JSON.parse).
 */
function measure(calls) {
  const ways = calls.map((c, w) => (c ? w : -1)).filter((w) => w >= 0);
  for (const w of ways) calls[w](); // warm-up
  const slowest = Math.max(...ways.map((w) => sample(calls[w], 1)));
  const reps = Math.max(1, Math.min(100000, Math.round(SAMPLE_MS / Math.max(slowest, 1e-4))));
  const times = calls.map(() => []);
  for (let r = 0; r < RUNS; r++) {
    for (let k = 0; k < ways.length; k++) {
      const w = ways[(k + r) % ways.length];
      times[w].push(sample(calls[w], reps));
    }
  }
  return { reps, ms: times.map((t) => (t.length ? median(t) : null)) };
}

function winner(ms) {
  const ranked = ms
    .slice(0, WAYS.length)
    .map((t, w) => [t, w])
    .filter(([t]) => t !== null)
    .sort((a, b) => a[0] - b[0]);
  return { way: WAYS[ranked[0][1]], margin: ranked.length > 1 ? ranked[1][0] / ranked[0][0] : null };
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), "zom-crossing-"));
  const size = {};
  try {
    if (!args["no-size"]) {
      size.without = buildModule(join(tmp, "without"), []);
      size.typed = buildModule(join(tmp, "typed"), ["swb-typed"]);
    }
    size.with = buildModule(join(tmp, "with"), null);
    const wasm = createRequire(import.meta.url)(join(tmp, "with", "zom_crossing_bench.js"));

    const [walk1k, walk10k] = fixtureBytes();
    const cases = JSON.parse(wasm.load(walk1k, walk10k));
    if (!cases.swb) throw new StepError("the module was built without serde-wasm-bindgen");
    const loadBefore = loadavg()[0];
    const rows = [];

    cases.out.forEach((c, id) => {
      const calls = WAYS.map((_, w) => (w < 3 || c.keyed ? () => wasm.out(id, w) : null));
      const values = calls.map((f) => f?.());
      for (const w of [0, 1, 3]) {
        if (calls[w]) assert.deepStrictEqual(values[w], values[2], `${c.crossing} ${c.size}: ${WAYS[w]} gives another value than js_sys`);
      }
      const text = wasm.jsonText(id);
      calls.push(
        () => wasm.jsonTextLength(id),
        () => JSON.parse(text),
      );
      rows.push({ direction: "to JS", ...c, ...measure(calls) });
      console.log(`crossing: ${c.crossing}, ${c.size}`);
    });

    cases.in.forEach((c, id) => {
      const value = typeof c.input === "string" ? LITERALS[c.input] : wasm.out(c.input.out, 1);
      const text = JSON.stringify(value);
      const calls = [() => wasm.into(id, 0, value), () => wasm.into(id, 1, JSON.stringify(value)), () => wasm.into(id, 2, value), null];
      const read = [wasm.intoText(id, 0, value), wasm.intoText(id, 1, text), wasm.intoText(id, 2, value)];
      assert.equal(read[0], read[2], `${c.crossing} ${c.size}: serde-wasm-bindgen reads another value than js_sys`);
      assert.equal(read[1], read[2], `${c.crossing} ${c.size}: JSON reads another value than js_sys`);
      rows.push({ direction: "from JS", ...c, items: null, json_bytes: text.length, ...measure(calls) });
      console.log(`crossing: ${c.crossing}, ${c.size}`);
    });

    const results = rows.map((r) => {
      const w = winner(r.ms);
      return {
        crossing: r.crossing,
        direction: r.direction,
        size: r.size,
        json_bytes: r.json_bytes,
        calls_per_sample: r.reps,
        serde_wasm_bindgen_ms: r.ms[0],
        json_ms: r.ms[1],
        js_sys_ms: r.ms[2],
        js_sys_names_once_ms: r.ms[3],
        json_rust_ms: r.ms[4] ?? null,
        json_parse_ms: r.ms[5] ?? null,
        winner: w.way,
        margin: w.margin,
      };
    });
    const fmt = (ms) => (ms === null ? "–" : ms >= 10 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(3) : ms.toPrecision(3));
    console.log(
      "\n" +
        table(
          [
            "crossing",
            "size",
            "JSON bytes",
            "serde-wasm-bindgen ms",
            "JSON ms",
            "(Rust + JSON.parse)",
            "js_sys ms",
            "js_sys, names once",
            "winner",
          ],
          results.map((r) => [
            r.crossing,
            r.size,
            String(r.json_bytes),
            fmt(r.serde_wasm_bindgen_ms),
            fmt(r.json_ms),
            r.json_rust_ms === null ? "" : `(${fmt(r.json_rust_ms)} + ${fmt(r.json_parse_ms)})`,
            fmt(r.js_sys_ms),
            fmt(r.js_sys_names_once_ms),
            `${r.winner} (${r.margin.toFixed(2)}×)`,
          ]),
        ),
    );

    const over = (s) => ({ raw: s.raw - size.without.raw, gz: s.gz - size.without.gz });
    const added = size.without ? { typed: over(size.typed), all: over(size.with) } : null;
    if (added) {
      console.log(
        `\nserde-wasm-bindgen added to a module holding zom (${size.without.gz} bytes gzip -9): ` +
          `${added.typed.gz} bytes gzipped (${added.typed.raw} raw) for the typed values going to JS ` +
          `(report, summaries, errors, limits), ${added.all.gz} (${added.all.raw} raw) for every case above.`,
      );
    }
    console.log(
      `Medians of ${RUNS} runs, ms per crossing; × is the second-fastest way's median ÷ the winner's. ` +
        `(Rust + JSON.parse): the JSON way's text written in Rust, and JSON.parse of it alone. Node ${process.version}.`,
    );

    const section = {
      date: new Date().toISOString(),
      versions: {
        node: process.version,
        v8: process.versions.v8,
        wasm_bindgen: "0.2.130",
        serde_wasm_bindgen: lockedVersion("serde-wasm-bindgen"),
      },
      load_average_1min: { before: loadBefore, after: loadavg()[0] },
      method: {
        runs: RUNS,
        statistic: `median of the runs; each sample times as many calls as last about ${SAMPLE_MS} ms (the same count for the three ways), the ways in a rotating order within each run`,
        module:
          "bench/crossing/: zom as a dependency, opt-level z, LTO, wasm-bindgen --target nodejs, wasm-opt with scripts/build.mjs's WASM_OPT_ARGS",
        to_js:
          "from the Rust value (a ZOM tree: its JSON value; a report, summaries, errors, listing, limits, shape: the typed value, so JSON and js_sys include building the JSON value) to the JS value, one call",
        from_js:
          "from the JS value to the Rust value (a ZOM tree: its JSON value; options: checked settings; a selection: zom's Selection); JSON includes JSON.stringify in JS",
        margin: "second-fastest median ÷ fastest median",
        js_sys_names_once:
          "typed values only: js_sys with property names (and other static strings) made JS strings once and reused, and properties set with obj[key] = value instead of Reflect.set (zom's src/wasm/plain.rs): what serde-wasm-bindgen does differently for structs",
        json_parts: "json_rust_ms: writing the JSON way's text in Rust (to JS); json_parse_ms: JSON.parse of that text alone, in JS",
        size: "gzip -9 bytes of the module built without serde-wasm-bindgen, with it for the typed values going to JS only (feature swb-typed: report, summaries, errors, limits), and with it for every case; each holds all of zom, so the differences are what serde-wasm-bindgen would add to zom's module",
      },
      size: size.without ? { without_swb: size.without, swb_typed: size.typed, swb_all: size.with, added } : null,
      results,
    };
    let all = {};
    if (existsSync(args.out)) all = JSON.parse(readFileSync(args.out, "utf8"));
    all.crossing = section;
    writeFileSync(args.out, `${JSON.stringify(all, null, 2)}\n`);
    console.log(`crossing: wrote the "crossing" section of ${args.out}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A package's version in bench/crossing/Cargo.lock. */
function lockedVersion(name) {
  const lock = readFileSync(join(crate, "Cargo.lock"), "utf8");
  return lock.match(new RegExp(`\\[\\[package\\]\\]\\nname = "${name}"\\nversion = "([^"]+)"`))?.[1] ?? null;
}

await runMain(main);
