// Installs what the build and the tests need, skipping what is already there:
// the wasm32 Rust target, clang and llvm-ar (C zstd for wasm32), wasm-bindgen-cli (the version
// Cargo.lock pins), the npm packages, and (tests only) Chromium and its chromedriver. Node built-ins only: it runs before `npm install`.
//
//   node scripts/setup.mjs            # build tools
//   node scripts/setup.mjs --browser  # and Chromium + chromedriver for the browser tests
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { StepError, capture, isMain, root, run, runMain } from "./lib.mjs";

const WASM_TARGET = "wasm32-unknown-unknown";
export const CHROMIUM = "/usr/bin/chromium";
/** Debian's chromium-driver, the WebDriver wasm-bindgen-test-runner drives Chromium through. */
export const CHROMEDRIVER = "/usr/bin/chromedriver";

/** The wasm-bindgen version Cargo.lock pins (the CLI must match it exactly). */
export function lockedWasmBindgenVersion() {
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const m = lock.match(/\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!m) throw new StepError("Cargo.lock has no wasm-bindgen package");
  return m[1];
}

function rustTarget() {
  const installed = capture("rustup", ["target", "list", "--installed"]);
  if (installed === null) throw new StepError("rustup is not installed (https://rustup.rs)");
  if (installed.split("\n").includes(WASM_TARGET)) {
    console.log(`ok: rust target ${WASM_TARGET}`);
    return;
  }
  console.log(`installing: rust target ${WASM_TARGET}`);
  run("rustup", ["target", "add", WASM_TARGET]);
}

function wasmBindgen() {
  const want = lockedWasmBindgenVersion();
  const have = capture("wasm-bindgen", ["--version"])?.trim().split(/\s+/)[1];
  const runner = capture("wasm-bindgen-test-runner", ["--version"])?.trim().split(/\s+/)[1];
  if (have === want && runner === want) {
    console.log(`ok: wasm-bindgen-cli ${want}`);
    return;
  }
  console.log(`installing: wasm-bindgen-cli ${want} (was ${have ?? "absent"}; takes minutes)`);
  run("cargo", ["install", "wasm-bindgen-cli", "--version", want, "--force"]);
}

function npmPackages() {
  const lock = join(root, "package-lock.json");
  // npm writes node_modules/.package-lock.json on every install: its age says when it ran.
  const stamp = join(root, "node_modules", ".package-lock.json");
  const fresh =
    existsSync(stamp) && (!existsSync(lock) || statSync(stamp).mtimeMs >= statSync(lock).mtimeMs);
  if (fresh) {
    console.log("ok: npm packages");
    return;
  }
  const cmd = existsSync(lock) ? "ci" : "install";
  console.log(`installing: npm packages (npm ${cmd})`);
  run("npm", [cmd, "--no-audit", "--no-fund"]);
  // `npm install` may write package-lock.json after node_modules: keep the stamp newer.
  if (existsSync(stamp)) {
    const now = new Date();
    utimesSync(stamp, now, now);
  }
}

let aptUpdated = false;

/** Installs Debian packages with apt-get (as root, or through passwordless sudo). */
function aptInstall(packages) {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot && capture("sudo", ["-n", "true"]) === null) {
    throw new StepError(`missing: run \`apt-get install -y ${packages.join(" ")}\` as root`);
  }
  // sudo resets the environment: pass DEBIAN_FRONTEND through env(1).
  const [cmd, ...pre] = [...(isRoot ? [] : ["sudo", "-n"]), "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"];
  // Wait for another apt/dpkg run (unattended upgrades) instead of failing on its lock.
  const lockWait = ["-o", "DPkg::Lock::Timeout=600"];
  if (!aptUpdated) {
    run(cmd, [...pre, ...lockWait, "update"]);
    aptUpdated = true;
  }
  run(cmd, [...pre, ...lockWait, "install", "-y", ...packages]);
}

function chromium() {
  if (existsSync(CHROMIUM)) {
    console.log(`ok: chromium (${CHROMIUM})`);
    return;
  }
  console.log("installing: chromium (apt-get)");
  aptInstall(["chromium"]);
  if (!existsSync(CHROMIUM)) throw new StepError(`apt installed chromium but ${CHROMIUM} is absent`);
}

/** chromedriver of the same Chromium (the rust tests in Chromium). */
function chromedriver() {
  if (existsSync(CHROMEDRIVER)) {
    console.log(`ok: chromedriver (${CHROMEDRIVER})`);
    return;
  }
  console.log("installing: chromium-driver (apt-get)");
  aptInstall(["chromium-driver"]);
  if (!existsSync(CHROMEDRIVER)) throw new StepError(`apt installed chromium-driver but ${CHROMEDRIVER} is absent`);
}

/** clang and llvm-ar compile C zstd for wasm32 (see .cargo/config.toml). */
function cToolchain() {
  const have = (tool) => capture(tool, ["--version"]) !== null;
  if (have("clang") && have("llvm-ar")) {
    console.log("ok: clang, llvm-ar");
    return;
  }
  console.log("installing: clang, llvm (apt-get; C zstd for wasm32)");
  aptInstall(["clang", "llvm"]);
  if (!have("clang") || !have("llvm-ar")) throw new StepError("apt installed clang and llvm but clang or llvm-ar is missing");
}

/**
 * Installs whatever is missing.
 * @param {{ browser?: boolean }} [opts] browser: also Chromium and chromedriver (for the browser tests)
 */
export function setup(opts = {}) {
  rustTarget();
  cToolchain();
  wasmBindgen();
  npmPackages();
  if (opts.browser) {
    chromium();
    chromedriver();
  }
}

if (isMain(import.meta.url)) {
  runMain(() => setup({ browser: process.argv.includes("--browser") }));
}
