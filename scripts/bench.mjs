// `npm run bench`: zom (WebAssembly, in Node) against zarrita.js in the same process:
// - decode: throughput on the same chunks (zarrita with numcodecs.js), with the native Rust
//   build as the ceiling (bench/decode/decode.mjs);
// - read: whole-array reads over HTTP from a local server with 20 ms latency, time and
//   requests, chunked and sharded (bench/read/read.mjs);
// - walk: a 1001-node hierarchy over the same server, consolidated and listed, and the parse +
//   validation cost of its consolidated zarr.json against JSON.parse; then the same for a
//   10,000-node consolidated hierarchy (bench/walk/walk.mjs);
// - size: the .wasm raw and gzipped, the JS gzipped, next to zarrita + numcodecs, and the
//   .wasm's bytes by crate and by function (twiggy, which setup installs for it) (bench/size/size.mjs);
// - load: in Chromium, loading the WebAssembly zom carries against the .wasm fetched beside,
//   compiling and instantiating the module, starting the decode workers, and a first and
//   second read against zarrita (bench/load/load.mjs); the explorer's time from navigation to its
//   first tree (bench/explorer/first-tree.mjs), and on a 10,000-node hierarchy its rows against the
//   CLI's time and a click to the next frame (bench/explorer/explorer-large.mjs);
// - first: first impressions, a cold page in Chromium (throttled to 2 Mbps / 100 ms, 10 Mbps /
//   40 ms, 50 Mbps / 20 ms, and loopback; the JS served gzipped and brotli'd) and Firefox
//   (loopback): the time to the data and the bytes before it, zom, zom/zarrita and zarrita, a
//   small first tile, an app, a viewer's first tiles and a validator, medians of at least 7
//   (bench/first/first.mjs, its own data: bench/first/generate_first.py);
// - specs: validating a 10,000-node OME-Zarr plate and xarray dataset against their convention
//   next to validating them against the Zarr spec alone (bench/specs/specs.mjs);
// - cache: a region read again and again, zom with a ChunkCache and without, and zarrita
//   (no cache), over tests/fixtures/sample (bench/cache/cache.mjs; needs no bench/data);
// - plate: walking and validating OME-Zarr plates (96 and 384 wells, ome-zarr-py 0.21) by what
//   their metadata names, from a host without listing and behind an HTML index, at 20 and 50
//   ms, against zarrita as a viewer uses it, with the floor; the walk's concurrency in Chromium
//   (bench/plate/plate.mjs);
// - plate-pictures: the explorer's plate grid in Chromium, 96 and 384 wells with pixels
//   (bench/plate/generate_plate.py --keep-chunks) from another origin at 50 ms: the time to the
//   pictures of the wells in view, the requests by then and the levels drawn, against the
//   floor of their requests through 6 connections; the walk's end (bench/plate/plate-pictures.mjs);
// - viewer: reading as a web viewer does — tiles one by one and at once, whole arrays, zom's
//   HTTP concurrency, a panning soak's memory (Node and Chromium), time to first tile of an
//   OME-Zarr pyramid in Chromium — against zarrita, with floors (bench/viewer/viewer.mjs,
//   docs/benchmarks-viewer.md);
// - icechunk: an Icechunk repository (icechunk-python 2.3, bench/icechunk/generate_icechunk.py) over
//   HTTP at 20 and 50 ms — open + first chunk, a whole array, 16 tiles at once, and open + first
//   chunk in a new process — zom's IcechunkStore against @earthmover/icechunk's WebAssembly
//   build with zarrita, with floors; zom alone in Chromium (bench/icechunk/icechunk.mjs).
//
//   npm run bench [-- --runs N] [-- --cases v3_gzip,v3_zstd] [-- --no-native]
//                 [-- --only decode,read,walk,plate,plate-pictures,size,load,first,specs,cache,viewer,icechunk] [-- --read-runs N]
//                 [-- --quick]
//
// Steps: build pkg/ (incremental, as `npm run build`), write bench/data/ with
// bench/lib/generate.py when it is missing or the script changed (with the Python of .venv, which
// setup's python() creates with the pinned zarr-python and numcodecs of
// scripts/python-requirements.txt), run examples/bench_decode.rs (release) for the native
// numbers, then bench/decode/decode.mjs (writes bench/results.json), bench/read/read.mjs and
// bench/walk/walk.mjs (add their sections "read" and "walk" to it), bench/size/size.mjs and
// bench/load/load.mjs and bench/explorer/first-tree.mjs ("size", "load", "first_tree"); each prints its
// tables, and the targets of issue 16 it checks (results.json "targets").
// bench/specs/specs.mjs adds "specs", bench/cache/cache.mjs "cache". The viewer bench also needs the OME-Zarr
// pyramid bench/viewer/generate_pyramid.py writes with ome-zarr-py (in .venv-conventions, which setup's
// pythonConventions() creates) when it is missing or either generator changed, and the native
// decode speeds of its arrays (examples/bench_decode.rs on bench/data/viewer) for its floors;
// it writes "viewer". The icechunk bench's repository is written by bench/icechunk/generate_icechunk.py
// with icechunk-python (in .venv-icechunk, which setup's pythonIcechunk() creates) into
// bench/data/icechunk when it is missing or either generator changed, with the native decode
// speeds of its arrays (examples/bench_decode.rs on bench/data/icechunk/plain) for its floors;
// it writes "icechunk". The plate-pictures bench's plates are written by bench/plate/generate_plate.py
// --keep-chunks (with ome-zarr-py in .venv-ome) into bench/data/plates-pictures when missing or
// the generator changed; it writes "plate_pictures".
// --runs and --cases apply to the decode bench, --read-runs (default 5) to read, walk, specs,
// cache, viewer, icechunk and first; --quick makes the viewer and icechunk benches short (3 runs,
// fewer latencies and rounds).
// `node scripts/bench-tables.mjs --write` then refreshes the benchmark tables of README.md and
// docs/*.md from the results (`--check` tells whether they match).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build } from "./build.mjs";
import { root, run, runMain, StepError, seconds } from "./lib.mjs";
import { python, pythonConventions, pythonIcechunk, pythonOme, setup, twiggy } from "./setup.mjs";

const benchDir = join(root, "bench");
const dataDir = join(benchDir, "data");
const generator = join(benchDir, "lib", "generate.py");
const pyramidGenerator = join(benchDir, "viewer", "generate_pyramid.py");
const pyramidDir = join(dataDir, "viewer_pyramid");
const plateGenerator = join(benchDir, "plate", "generate_plate.py");
const platesDir = join(dataDir, "plates");
const platePicturesDir = join(dataDir, "plates-pictures");
const icechunkGenerator = join(benchDir, "icechunk", "generate_icechunk.py");
const icechunkDir = join(dataDir, "icechunk");
/** The plates of bench/plate/plate.mjs: name, rows, columns, OME-Zarr version (2 fields, 3 levels). */
const PLATES = [
  ["plate96-v0.5", 8, 12, "0.5"],
  ["plate96-v0.4", 8, 12, "0.4"],
  ["plate384-v0.5", 16, 24, "0.5"],
];
/** The plates of bench/plate/plate-pictures.mjs (OME-Zarr 0.5, 2 fields of 2 × 512 × 512 uint16 in 3 levels, chunks 256²). */
const PICTURE_PLATES = [
  ["plate96-v0.5", 8, 12],
  ["plate384-v0.5", 16, 24],
];

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    cases: { type: "string" },
    "no-native": { type: "boolean", default: false },
    "no-build": { type: "boolean", default: false },
    only: { type: "string", default: "decode,read,walk,plate,plate-pictures,size,load,first,specs,cache,viewer,icechunk" },
    "read-runs": { type: "string", default: "5" },
    quick: { type: "boolean", default: false },
  },
});
const benches = new Set(args.only.split(","));

function timed(label, fn) {
  const t0 = performance.now();
  const r = fn();
  console.log(`bench: ${label} (${seconds(performance.now() - t0)})`);
  return r;
}

/** True when bench/data/ was written by the current bench/lib/generate.py. */
function dataFresh() {
  const manifest = join(dataDir, "manifest.json");
  if (!existsSync(manifest)) return false;
  const want = createHash("sha256").update(readFileSync(generator)).digest("hex");
  try {
    return JSON.parse(readFileSync(manifest, "utf8")).generator_sha256 === want;
  } catch {
    return false;
  }
}

const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** True when bench/data/viewer_pyramid was written by the current bench/viewer/generate_pyramid.py from the current image. */
function pyramidFresh() {
  const manifest = join(pyramidDir, "manifest.json");
  if (!existsSync(manifest)) return false;
  try {
    const m = JSON.parse(readFileSync(manifest, "utf8"));
    return m.generator_sha256 === sha256(pyramidGenerator) && m.image_generator_sha256 === sha256(generator);
  } catch {
    return false;
  }
}

/** The viewer bench's OME-Zarr pyramid, written by ome-zarr-py in its own environment. */
function generatePyramid() {
  if (pyramidFresh()) {
    console.log("bench: bench/data/viewer_pyramid is up to date");
    return;
  }
  const py = pythonConventions();
  timed("generate bench/data/viewer_pyramid (bench/viewer/generate_pyramid.py, ome-zarr-py)", () =>
    run(py, [pyramidGenerator, pyramidDir]),
  );
}

/** The plate bench's plates, written by ome-zarr-py (.venv-ome) when missing or the generator changed. */
function generatePlates() {
  const stamp = join(platesDir, "generator.sha256");
  const want = sha256(plateGenerator);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want && PLATES.every(([name]) => existsSync(join(platesDir, name)))) {
    console.log("bench: bench/data/plates is up to date");
    return;
  }
  const py = pythonOme();
  for (const [name, rows, cols, format] of PLATES) {
    const args = [
      plateGenerator,
      "--rows",
      String(rows),
      "--cols",
      String(cols),
      "--fields",
      "2",
      "--levels",
      "3",
      "--format",
      format,
      join(platesDir, name),
    ];
    timed(`generate bench/data/plates/${name} (bench/plate/generate_plate.py, ome-zarr-py)`, () => run(py, args));
  }
  writeFileSync(stamp, want);
}

/** The plate pictures bench's plates, with their chunks (.venv-ome), when missing or the generator changed. */
function generatePlatePictures() {
  const stamp = join(platePicturesDir, "generator.sha256");
  const want = sha256(plateGenerator);
  if (
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === want &&
    PICTURE_PLATES.every(([name]) => existsSync(join(platePicturesDir, name)))
  ) {
    console.log("bench: bench/data/plates-pictures is up to date");
    return;
  }
  const py = pythonOme();
  for (const [name, rows, cols] of PICTURE_PLATES) {
    const args = [
      plateGenerator,
      "--rows",
      String(rows),
      "--cols",
      String(cols),
      "--fields",
      "2",
      "--levels",
      "3",
      "--format",
      "0.5",
      "--keep-chunks",
      "--channels",
      "2",
      "--size",
      "512",
      "--chunk",
      "256",
      join(platePicturesDir, name),
    ];
    timed(`generate bench/data/plates-pictures/${name} (bench/plate/generate_plate.py --keep-chunks, ome-zarr-py)`, () => run(py, args));
  }
  writeFileSync(stamp, want);
}

/** The icechunk bench's repository, written by icechunk-python (.venv-icechunk) when missing or either generator changed. */
function generateIcechunk() {
  const manifest = join(icechunkDir, "manifest.json");
  try {
    const m = JSON.parse(readFileSync(manifest, "utf8"));
    if (m.generator_sha256 === sha256(icechunkGenerator) && m.image_generator_sha256 === sha256(generator)) {
      console.log("bench: bench/data/icechunk is up to date");
      return;
    }
  } catch {
    // missing or unreadable: write it
  }
  const py = pythonIcechunk();
  timed("generate bench/data/icechunk (bench/icechunk/generate_icechunk.py, icechunk-python)", () =>
    run(py, [icechunkGenerator, icechunkDir]),
  );
}

function generate() {
  if (dataFresh()) {
    console.log("bench: bench/data is up to date");
    return;
  }
  // Also with --no-build, which skips setup(): the venv is the only Python the bench uses.
  const py = python();
  timed("generate bench/data (bench/lib/generate.py)", () => run(py, [generator, dataDir]));
}

// glibc hands each 2 MiB chunk buffer a fresh mmap and unmaps it on free, so every decode
// would pay page faults for its output (costly, in a VM most of all). WebAssembly
// reuses its grown memory and never pays them; keep the native heap too, so that the ceiling
// measures decoding. Other allocators ignore these variables.
const NATIVE_ENV = {
  MALLOC_MMAP_THRESHOLD_: String(2 ** 30),
  MALLOC_TRIM_THRESHOLD_: String(2 ** 30),
  MALLOC_TOP_PAD_: String(2 ** 28),
};

/**
 * Runs the native ceiling over the arrays of `dir` (bench/data, or bench/data/viewer for the
 * viewer bench's floors); returns the file with its JSON lines.
 */
function native(dir = dataDir, cases = args.cases) {
  const cargoArgs = ["run", "--release", "--quiet", "--example", "bench_decode", "--", dir, "--runs", args.runs];
  if (cases) cargoArgs.push(...cases.split(","));
  const r = timed(`native (cargo run --release --example bench_decode -- ${dir.slice(root.length + 1)})`, () =>
    spawnSync("cargo", cargoArgs, {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...NATIVE_ENV },
    }),
  );
  if (r.error || r.status !== 0) throw new StepError(`the native bench failed (${r.error?.message ?? `exit ${r.status}`})`);
  for (const line of r.stdout.trim().split("\n")) {
    const n = JSON.parse(line);
    console.log(`bench: native ${n.case.padEnd(24)} ${n.mb_per_s.toFixed(0).padStart(5)} MB/s`);
  }
  const file = join(mkdtempSync(join(tmpdir(), "zom-bench-")), "native.jsonl");
  writeFileSync(file, r.stdout);
  return file;
}

const BENCHES = ["decode", "read", "walk", "plate", "plate-pictures", "size", "load", "first", "specs", "cache", "viewer", "icechunk"];

runMain(() => {
  const t0 = performance.now();
  for (const b of benches) {
    if (!BENCHES.includes(b)) throw new StepError(`--only: unknown bench '${b}' (${BENCHES.join(", ")})`);
  }
  if (!args["no-build"]) {
    setup({
      browser: benches.has("viewer") || benches.has("icechunk"),
      pythonConventions: benches.has("viewer"),
      pythonIcechunk: benches.has("icechunk"),
    });
    build();
  }
  // The cache bench reads tests/fixtures only; the first and icechunk benches, their own data (and tests/fixtures).
  if ([...benches].some((b) => b !== "cache" && b !== "first" && b !== "icechunk")) generate();
  if (benches.has("decode")) {
    const nativeFile = args["no-native"] ? undefined : native();
    const decodeArgs = ["--expose-gc", join(benchDir, "decode", "decode.mjs"), "--runs", args.runs];
    if (args.cases) decodeArgs.push("--cases", args.cases);
    if (nativeFile) decodeArgs.push("--native", nativeFile);
    timed("decode (bench/decode/decode.mjs)", () => run(process.execPath, decodeArgs));
  }
  if (benches.has("size")) {
    twiggy(); // also with --no-build: only the size bench needs it
    run(process.execPath, [join(benchDir, "size", "size.mjs")]);
  }
  if (benches.has("load")) {
    setup({ browser: true });
    timed("load (bench/load/load.mjs, Chromium)", () => run(process.execPath, [join(benchDir, "load", "load.mjs"), "--runs", args.runs]));
    timed("first tree (bench/explorer/first-tree.mjs, Chromium)", () =>
      run(process.execPath, [join(benchDir, "explorer", "first-tree.mjs"), "--runs", args.runs]),
    );
    timed("explorer on 10,000 nodes (bench/explorer/explorer-large.mjs, Chromium)", () =>
      run(process.execPath, [join(benchDir, "explorer", "explorer-large.mjs"), "--runs", args["read-runs"]]),
    );
  }
  if (benches.has("first")) {
    setup({ browser: true, python: true }); // bench/first/first.mjs writes its data with .venv's zarr-python
    timed("first impressions (bench/first/first.mjs, Chromium and Firefox)", () =>
      run(process.execPath, [
        join(benchDir, "first", "first.mjs"),
        "--runs",
        String(Math.max(7, Number(args["read-runs"]))),
        "--encodings",
        "gzip,br",
      ]),
    );
  }
  for (const name of ["read", "walk", "specs", "cache"]) {
    if (!benches.has(name)) continue;
    const file = join(benchDir, name, `${name}.mjs`);
    timed(`${name} (bench/${name}/${name}.mjs)`, () => run(process.execPath, ["--expose-gc", file, "--runs", args["read-runs"]]));
  }
  if (benches.has("plate")) {
    setup({ browser: true });
    generatePlates();
    timed("plate (bench/plate/plate.mjs)", () =>
      run(process.execPath, ["--expose-gc", join(benchDir, "plate", "plate.mjs"), "--runs", args["read-runs"]]),
    );
  }
  if (benches.has("plate-pictures")) {
    setup({ browser: true });
    generatePlatePictures();
    timed("plate pictures (bench/plate/plate-pictures.mjs, Chromium)", () =>
      run(process.execPath, [join(benchDir, "plate", "plate-pictures.mjs"), "--runs", args["read-runs"]]),
    );
  }
  if (benches.has("viewer")) {
    generatePyramid();
    const viewerArgs = ["--expose-gc", join(benchDir, "viewer", "viewer.mjs"), "--runs", args["read-runs"]];
    if (!args["no-native"]) viewerArgs.push("--native", native(join(dataDir, "viewer"), undefined));
    if (args.quick) viewerArgs.push("--quick");
    timed("viewer (bench/viewer/viewer.mjs, Node and Chromium)", () => run(process.execPath, viewerArgs));
  }
  if (benches.has("icechunk")) {
    generateIcechunk(); // after generate(), which writes bench/data anew
    const icechunkArgs = ["--expose-gc", join(benchDir, "icechunk", "icechunk.mjs"), "--runs", args["read-runs"]];
    if (!args["no-native"]) icechunkArgs.push("--native", native(join(icechunkDir, "plain"), undefined));
    if (args.quick) icechunkArgs.push("--quick");
    timed("icechunk (bench/icechunk/icechunk.mjs, Node and Chromium)", () => run(process.execPath, icechunkArgs));
  }
  console.log(`bench: done in ${seconds(performance.now() - t0)}`);
});
