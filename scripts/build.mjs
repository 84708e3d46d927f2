// Builds the npm package into pkg/: the Rust crate to WebAssembly (+simd128, from
// .cargo/config.toml) with Cargo's `wasm-release` profile (zom compiled for size, the codec
// hot paths for speed: see Cargo.toml), the wasm-bindgen JS glue, wasm-opt -Oz, then the
// TypeScript wrapper.
// Run scripts/setup.mjs first (npm start / npm test / npm run build do).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { isMain, root, run, runMain, seconds, StepError, targetDir } from "./lib.mjs";
import { buildWww } from "../www/build.mjs";

const pkgDir = join(root, "pkg");
const wasmOut = join(pkgDir, "zom_wasm_bg.wasm");
const bin = (name) => join(root, "node_modules", ".bin", name);
/** The Cargo profile of the WebAssembly build (Cargo.toml). */
const PROFILE = "wasm-release";

// What the wasm-bindgen output uses (rustc's default wasm32 features plus +simd128). wasm-opt
// must be told, or it rejects the module; every engine zom supports has them all.
const WASM_FEATURES = [
  "--enable-simd",
  "--enable-bulk-memory",
  "--enable-sign-ext",
  "--enable-nontrapping-float-to-int",
  "--enable-mutable-globals",
  "--enable-reference-types",
  "--enable-multivalue",
];
// zstd-sys exports its C runtime shims (malloc, memcpy, qsort, …) from the cdylib; nothing in
// JS calls them, and the export keeps unused code alive (qsort alone is ~30 KB): drop them
// before optimising so that wasm-opt removes what the C decoder does not use.
const DROP_EXPORTS = ["--remove-exports", "--pass-arg=remove-exports@rust_zstd_wasm_shim_*"];
// -Oz: the speed-critical code arrives already optimised for speed by LLVM, and measures the
// same after -Oz as after -O3; --converge repeats the passes while they still shrink the module.
// --flatten --rereloop first rebuilds the control flow, which -Oz then shrinks further
// (1.7 KiB gzipped; decoding speed the same, blosc faster).
const WASM_OPT_ARGS = [
  ...DROP_EXPORTS,
  "--flatten",
  "--rereloop",
  "-Oz",
  "-Oz",
  "--converge",
  ...WASM_FEATURES,
  "--strip-debug",
  "--strip-producers",
];

function timed(label, fn) {
  const t0 = performance.now();
  fn();
  console.log(`build: ${label} (${seconds(performance.now() - t0)})`);
}

/** Identifies one cargo output and the post-processing applied to it. */
function stampOf(file) {
  const s = statSync(file);
  return JSON.stringify({ size: s.size, mtime: s.mtimeMs, wasmOpt: WASM_OPT_ARGS });
}

/** Builds pkg/ from the sources. */
export function build() {
  timed(`cargo build (wasm32, ${PROFILE})`, () =>
    run("cargo", ["build", "--profile", PROFILE, "--target", "wasm32-unknown-unknown", "--lib"]),
  );

  const cargoWasm = join(targetDir, "wasm32-unknown-unknown", PROFILE, "zom.wasm");
  if (!existsSync(cargoWasm)) throw new StepError(`cargo produced no ${cargoWasm}`);
  // Kept out of pkg/, which is what npm publishes.
  const stampFile = join(targetDir, "zom-pkg-wasm.stamp");
  const stamp = stampOf(cargoWasm);
  const upToDate =
    existsSync(wasmOut) &&
    existsSync(join(pkgDir, "zom_wasm.js")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === stamp;
  if (upToDate) {
    console.log("build: wasm-bindgen + wasm-opt skipped (zom.wasm unchanged)");
  } else {
    mkdirSync(pkgDir, { recursive: true });
    timed("wasm-bindgen", () =>
      run("wasm-bindgen", ["--target", "web", "--out-dir", pkgDir, "--out-name", "zom_wasm", cargoWasm]),
    );
    timed("wasm-opt", () => run(bin("wasm-opt"), [...WASM_OPT_ARGS, wasmOut, "-o", wasmOut]));
    if (!WebAssembly.validate(readFileSync(wasmOut))) {
      throw new StepError(`${wasmOut} does not validate in this Node (${process.version})`);
    }
    writeFileSync(stampFile, stamp);
  }

  timed("tsc", () => run(bin("tsc"), ["-p", join(root, "tsconfig.json")]));
  timed("tsc (Node-only: zom/fs, CLI)", () => run(bin("tsc"), ["-p", join(root, "tsconfig.node.json")]));

  const bytes = readFileSync(wasmOut);
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(
    `build: pkg/zom_wasm_bg.wasm ${bytes.length} bytes (${(bytes.length / 1024).toFixed(1)} KiB), ` +
      `gzipped ${gz} bytes (${(gz / 1024).toFixed(1)} KiB)`,
  );
  timed("explorer (www/dist)", () => buildWww(run));
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const { setup } = await import("./setup.mjs");
    setup();
    build();
  });
}
