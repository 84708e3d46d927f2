// Installs what the build and the tests need, skipping what is already there:
// the wasm32 Rust target, clang and llvm-ar (C zstd for wasm32), wasm-bindgen-cli (the version
// Cargo.lock pins), the npm packages, a Python virtual environment at .venv with the pinned
// packages of scripts/python-requirements.txt (zarr-python for tests/codec_encode.rs, the
// fixture generators and the bench data), (tests only) Chromium and its chromedriver, Firefox
// ESR, WebKitGTK's WebKitWebDriver with MiniBrowser and Xvfb (tests/browser/engines.mjs), and
// (the size bench only) twiggy. Node built-ins only: it runs before `npm install`.
//
//   node scripts/setup.mjs                     # build tools
//   node scripts/setup.mjs --browser --python  # and what the tests need: Chromium + chromedriver,
//                                              # Firefox ESR, WebKitWebDriver + MiniBrowser, Xvfb; .venv
//   node scripts/setup.mjs --python-zarr2      # .venv-zarr2: zarr-python 2.18, for tests/fixtures/generate_zarr2.py
//   node scripts/setup.mjs --python-conventions  # .venv-conventions: ome-zarr-py, ngff-zarr, ome-zarr-models,
//                                              # xarray (Python 3.12), for tests/fixtures/conventions/generate.py
//   node scripts/setup.mjs --python-references  # .venv-references: kerchunk, h5py, scipy,
//                                              # for tests/fixtures/references/generate.py
//   node scripts/setup.mjs --python-ome        # .venv-ome: ome-zarr-py, ngff-zarr, ome-zarr-models
//                                              # (Python 3.12), for tests/fixtures/walk/generate.py
//                                              # and bench/plate/generate_plate.py
//   node scripts/setup.mjs --python-current    # .venv-current: zarr-python 3.4, numcodecs 0.17, cast-value-rs
//                                              # (Python 3.12), for tests/fixtures/current/generate.py
//                                              # and tests/fixtures/generate.py --copy
//   node scripts/setup.mjs --python-anndata    # .venv-anndata: anndata 0.13, zarr-python 3.4 (Python 3.12),
//                                              # for tests/fixtures/anndata/generate.py
//   node scripts/setup.mjs --python-icechunk   # .venv-icechunk: icechunk 2.3, zarr-python 3.4 (Python 3.12),
//                                              # for tests/fixtures/icechunk/generate.py
//   node scripts/setup.mjs --twiggy            # twiggy, the code size profiler bench/size/size.mjs runs
//   node scripts/setup.mjs --suites            # tests/zarrita-suite's packages: vitest, zarrita, @vivjs/loaders,
//                                              # and apps on @fideus-labs/ngff-zarr, ome-zarr.js and @vitessce/zarr
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { capture, isMain, root, run, runMain, StepError, seconds } from "./lib.mjs";

const WASM_TARGET = "wasm32-unknown-unknown";
export const CHROMIUM = "/usr/bin/chromium";
/** Debian's chromium-driver, the WebDriver wasm-bindgen-test-runner drives Chromium through. */
export const CHROMEDRIVER = "/usr/bin/chromedriver";
/** Debian's Firefox ESR (package firefox-esr), driven over WebDriver BiDi by puppeteer-core. */
export const FIREFOX = "/usr/bin/firefox-esr";
/** WebKitGTK's WebDriver (package webkit2gtk-driver); it launches MiniBrowser, which needs an X display. */
export const WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver";
/** xvfb-run (package xvfb; xauth for its cookie): the X display WebKitWebDriver's MiniBrowser draws on. */
export const XVFB_RUN = "/usr/bin/xvfb-run";

/**
 * WebKitGTK's MiniBrowser, which libwebkit2gtk (a dependency of webkit2gtk-driver) puts in its
 * private library directory, e.g. /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser; or
 * MINIBROWSER_PATH. null when there is none.
 * @returns {string | null}
 */
export function miniBrowser() {
  if (process.env.MINIBROWSER_PATH) return existsSync(process.env.MINIBROWSER_PATH) ? process.env.MINIBROWSER_PATH : null;
  const lib = "/usr/lib";
  const dirs = [
    lib,
    ...readdirSync(lib, { withFileTypes: true })
      .filter((e) => e.isDirectory() && /-linux-gnu/.test(e.name))
      .map((e) => join(lib, e.name)),
  ];
  for (const dir of dirs) {
    // webkit2gtk-4.1 (libsoup 3, Debian 12 and 13), webkit2gtk-4.0 (libsoup 2), webkitgtk-6.0 (GTK 4).
    for (const api of ["webkit2gtk-4.1", "webkit2gtk-4.0", "webkitgtk-6.0"]) {
      const path = join(dir, api, "MiniBrowser");
      if (existsSync(path)) return path;
    }
  }
  return null;
}

/** The project's Python virtual environment (never the system Python). */
export const VENV = join(root, ".venv");
/** Its interpreter, with the packages of scripts/python-requirements.txt: python() makes it. */
export const PYTHON = join(VENV, "bin", "python");
const PYTHON_REQUIREMENTS = join(root, "scripts", "python-requirements.txt");
/** zarr-python 2.18's own environment, for tests/fixtures/generate_zarr2.py only. */
export const VENV_ZARR2 = join(root, ".venv-zarr2");
/** Its interpreter: pythonZarr2() makes it. */
export const PYTHON_ZARR2 = join(VENV_ZARR2, "bin", "python");
/** ome-zarr-py, ome-zarr-models and xarray's environment, for tests/fixtures/conventions/generate.py only. */
export const VENV_CONVENTIONS = join(root, ".venv-conventions");
/** Its interpreter: pythonConventions() makes it. */
export const PYTHON_CONVENTIONS = join(VENV_CONVENTIONS, "bin", "python");
/** kerchunk, h5py and scipy's environment, for tests/fixtures/references/generate.py only. */
export const VENV_REFERENCES = join(root, ".venv-references");
/** Its interpreter: pythonReferences() makes it. */
export const PYTHON_REFERENCES = join(VENV_REFERENCES, "bin", "python");
/**
 * ome-zarr-py, ngff-zarr and ome-zarr-models' environment, for tests/fixtures/walk/generate.py
 * and bench/plate/generate_plate.py only. Its Python is the minor version its requirements file's
 * header names (`# python: 3.12`): the releases pinned there need Python >= 3.12.
 */
export const VENV_OME = join(root, ".venv-ome");
/** Its interpreter: pythonOme() makes it. */
export const PYTHON_OME = join(VENV_OME, "bin", "python");
/**
 * Today's writers' environment (zarr-python 3.4, numcodecs 0.17, cast-value-rs), for
 * tests/fixtures/current/generate.py only; Python as its requirements file's header names.
 */
export const VENV_CURRENT = join(root, ".venv-current");
/** Its interpreter: pythonCurrent() makes it. */
export const PYTHON_CURRENT = join(VENV_CURRENT, "bin", "python");
/** anndata's environment, for tests/fixtures/anndata/generate.py only; Python as its requirements file's header names. */
export const VENV_ANNDATA = join(root, ".venv-anndata");
/** Its interpreter: pythonAnndata() makes it. */
export const PYTHON_ANNDATA = join(VENV_ANNDATA, "bin", "python");
/** icechunk's environment, for tests/fixtures/icechunk/generate.py only; Python as its requirements file's header names. */
export const VENV_ICECHUNK = join(root, ".venv-icechunk");
/** Its interpreter: pythonIcechunk() makes it. */
export const PYTHON_ICECHUNK = join(VENV_ICECHUNK, "bin", "python");
/** sha256 of the requirements file the venv was last installed from. */
const _PYTHON_STAMP = join(VENV, "zom-requirements.sha256");
/** zarr 3.1.6 (and numpy 2.4) need Python 3.11 or later. */
const MIN_PYTHON_MINOR = 11;

/** The wasm-bindgen version Cargo.lock pins (the CLI must match it exactly). */
export function lockedWasmBindgenVersion() {
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const m = lock.match(/\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!m) throw new StepError("Cargo.lock has no wasm-bindgen package");
  return m[1];
}

/** The twiggy release bench/size/size.mjs attributes the module's bytes with (its output format is parsed). */
export const TWIGGY_VERSION = "0.8.0";

/**
 * twiggy, pinned: installed with `cargo install` (its own Cargo.lock) when absent or another
 * version. Only the size bench needs it, so neither the build nor the tests install it.
 * @returns {string} the command
 */
export function twiggy() {
  const have = capture("twiggy", ["--version"])?.trim().split(/\s+/)[1];
  if (have === TWIGGY_VERSION) {
    console.log(`ok: twiggy ${TWIGGY_VERSION}`);
    return "twiggy";
  }
  console.log(`installing: twiggy ${TWIGGY_VERSION} (was ${have ?? "absent"}; takes minutes)`);
  run("cargo", ["install", "twiggy", "--version", TWIGGY_VERSION, "--locked", "--force"]);
  return "twiggy";
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

/** `npm ci` in `dir` (the repository, or a test harness with its own lock) unless node_modules is fresh. */
function npmPackages(dir = root) {
  const lock = join(dir, "package-lock.json");
  // npm writes node_modules/.package-lock.json on every install: its age says when it ran.
  const stamp = join(dir, "node_modules", ".package-lock.json");
  const fresh = existsSync(stamp) && (!existsSync(lock) || statSync(stamp).mtimeMs >= statSync(lock).mtimeMs);
  const what = dir === root ? "npm packages" : `npm packages of ${relative(root, dir)}`;
  if (fresh) {
    console.log(`ok: ${what}`);
    return;
  }
  const cmd = existsSync(lock) ? "ci" : "install";
  console.log(`installing: ${what} (npm ${cmd})`);
  run("npm", [cmd, "--no-audit", "--no-fund"], { cwd: dir });
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

/** Firefox ESR for the browser journeys in three engines (tests/browser/engines.test.mjs). */
function firefox() {
  if (existsSync(FIREFOX)) {
    console.log(`ok: firefox-esr (${FIREFOX})`);
    return;
  }
  console.log("installing: firefox-esr (apt-get)");
  aptInstall(["firefox-esr"]);
  if (!existsSync(FIREFOX)) throw new StepError(`apt installed firefox-esr but ${FIREFOX} is absent`);
}

/** WebKitWebDriver and MiniBrowser, and xvfb-run for the display MiniBrowser needs. */
function webkit() {
  const missing = [];
  if (!existsSync(WEBKIT_DRIVER) || miniBrowser() === null) missing.push("webkit2gtk-driver");
  if (!existsSync(XVFB_RUN) || !existsSync("/usr/bin/xauth")) missing.push("xvfb", "xauth");
  if (missing.length === 0) {
    console.log(`ok: webkit2gtk-driver (${WEBKIT_DRIVER}, ${miniBrowser()}), xvfb-run`);
    return;
  }
  console.log(`installing: ${missing.join(", ")} (apt-get)`);
  aptInstall(missing);
  if (!existsSync(WEBKIT_DRIVER)) throw new StepError(`apt installed webkit2gtk-driver but ${WEBKIT_DRIVER} is absent`);
  if (miniBrowser() === null) throw new StepError("apt installed webkit2gtk-driver but no MiniBrowser is under /usr/lib/*/webkit2gtk-*/");
  if (!existsSync(XVFB_RUN)) throw new StepError(`apt installed xvfb but ${XVFB_RUN} is absent`);
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

// What an interpreter is: its version, its path, and whether it can make a venv (Debian and
// Ubuntu ship venv's ensurepip in the separate python3-venv package).
const PYTHON_PROBE = `import json, sys
try:
    import ensurepip, venv
    ok = True
except ImportError:
    ok = False
print(json.dumps({"version": list(sys.version_info[:2]), "executable": sys.executable, "venv": ok}))`;

/** @returns {{ cmd: string, version: number[], executable: string, venv: boolean } | null} */
function probePython(cmd) {
  const out = capture(cmd, ["-c", PYTHON_PROBE]);
  if (out === null) return null;
  try {
    return { cmd, ...JSON.parse(out) };
  } catch {
    return null;
  }
}

const recentPython = (p) => p.version[0] === 3 && p.version[1] >= MIN_PYTHON_MINOR;

/** A Python >= 3.11 with the venv module to create .venv from (installs python3-venv on Debian). */
function basePython() {
  const seen = [];
  let withoutVenv = null;
  for (const cmd of ["python3", "python3.14", "python3.13", "python3.12", `python3.${MIN_PYTHON_MINOR}`]) {
    const p = probePython(cmd);
    if (p === null) continue;
    seen.push(`${cmd} ${p.version.join(".")}`);
    if (!recentPython(p)) continue;
    if (p.venv) return p;
    withoutVenv ??= p;
  }
  const debian = existsSync("/etc/debian_version");
  if (withoutVenv) {
    const { cmd, executable } = withoutVenv;
    if (!debian || !executable.startsWith("/usr/bin/")) {
      throw new StepError(
        `${cmd} (${executable}) has no venv/ensurepip module: install it, or put a Python >= 3.${MIN_PYTHON_MINOR} that has it on PATH`,
      );
    }
    const pkg = cmd === "python3" ? "python3-venv" : `${cmd}-venv`;
    console.log(`installing: ${pkg} (apt-get; for python -m venv)`);
    aptInstall([pkg]);
    const p = probePython(cmd);
    if (!p?.venv) throw new StepError(`apt installed ${pkg} but ${cmd} still has no venv/ensurepip module`);
    return p;
  }
  if (seen.length === 0 && debian) {
    console.log("installing: python3, python3-venv (apt-get)");
    aptInstall(["python3", "python3-venv"]);
    const p = probePython("python3");
    if (p && recentPython(p) && p.venv) return p;
    if (p) seen.push(`python3 ${p.version.join(".")}`);
  }
  throw new StepError(
    `the Python packages (zarr 3.1.6) need Python >= 3.${MIN_PYTHON_MINOR} with the venv module; found ${seen.join(", ") || "no python3 on PATH"}`,
  );
}

/**
 * The project's Python: creates the virtual environment .venv when it is missing or unusable
 * and installs scripts/python-requirements.txt into it with its own pip, again whenever that
 * file changes (the stamp .venv/zom-requirements.sha256 holds the sha256 it was installed
 * from). Never installs into the system Python.
 * @returns {string} the interpreter (PYTHON)
 */
export function python() {
  return pythonVenv(VENV, PYTHON, PYTHON_REQUIREMENTS);
}

/**
 * zarr-python 2.18's environment .venv-zarr2 (scripts/python-requirements-zarr2.txt), the same
 * way: only tests/fixtures/generate_zarr2.py needs it (the tests read its committed output).
 * @returns {string} the interpreter (PYTHON_ZARR2)
 */
export function pythonZarr2() {
  return pythonVenv(VENV_ZARR2, PYTHON_ZARR2, join(root, "scripts", "python-requirements-zarr2.txt"));
}

/**
 * The convention fixtures' environment .venv-conventions (scripts/python-requirements-conventions.txt),
 * the same way, from a Python of the minor version the file's header names (pinnedPython): only
 * tests/fixtures/conventions/generate.py needs it (the tests read its committed output).
 * @returns {string} the interpreter (PYTHON_CONVENTIONS)
 */
export function pythonConventions() {
  return pinnedVenv(VENV_CONVENTIONS, PYTHON_CONVENTIONS, join(root, "scripts", "python-requirements-conventions.txt"));
}

/**
 * The kerchunk reference fixtures' environment .venv-references
 * (scripts/python-requirements-references.txt), the same way: only
 * tests/fixtures/references/generate.py needs it (the tests read its committed output).
 * @returns {string} the interpreter (PYTHON_REFERENCES)
 */
export function pythonReferences() {
  return pythonVenv(VENV_REFERENCES, PYTHON_REFERENCES, join(root, "scripts", "python-requirements-references.txt"));
}

/**
 * The OME-Zarr writers' environment .venv-ome (scripts/python-requirements-ome.txt), the same
 * way, from a Python of the minor version the file's header names (pinnedPython): only
 * tests/fixtures/walk/generate.py and bench/plate/generate_plate.py need it (the tests read the
 * committed output).
 * @returns {string} the interpreter (PYTHON_OME)
 */
export function pythonOme() {
  return pinnedVenv(VENV_OME, PYTHON_OME, join(root, "scripts", "python-requirements-ome.txt"));
}

/**
 * Today's writers' environment .venv-current (scripts/python-requirements-current.txt), the
 * same way: only tests/fixtures/current/generate.py needs it (the tests read its committed output).
 * @returns {string} the interpreter (PYTHON_CURRENT)
 */
export function pythonCurrent() {
  return pinnedVenv(VENV_CURRENT, PYTHON_CURRENT, join(root, "scripts", "python-requirements-current.txt"));
}

/**
 * The AnnData writer's environment .venv-anndata (scripts/python-requirements-anndata.txt), the
 * same way: only tests/fixtures/anndata/generate.py needs it (the tests read its committed output).
 * @returns {string} the interpreter (PYTHON_ANNDATA)
 */
export function pythonAnndata() {
  return pinnedVenv(VENV_ANNDATA, PYTHON_ANNDATA, join(root, "scripts", "python-requirements-anndata.txt"));
}

/**
 * The Icechunk writer's environment .venv-icechunk (scripts/python-requirements-icechunk.txt),
 * the same way: only tests/fixtures/icechunk/generate.py needs it (the tests read its committed
 * output).
 * @returns {string} the interpreter (PYTHON_ICECHUNK)
 */
export function pythonIcechunk() {
  return pinnedVenv(VENV_ICECHUNK, PYTHON_ICECHUNK, join(root, "scripts", "python-requirements-icechunk.txt"));
}

/** A venv of `requirementsFile` from a Python of the minor version its `# python: 3.N` header names. */
function pinnedVenv(venv, interpreter, requirementsFile) {
  const pin = readFileSync(requirementsFile, "utf8").match(/^# python: 3\.(\d+)$/m);
  if (!pin) throw new StepError(`${relative(root, requirementsFile)} has no \`# python: 3.N\` header line`);
  const minor = Number(pin[1]);
  return pythonVenv(venv, interpreter, requirementsFile, {
    base: () => pinnedPython(minor, `${relative(root, venv)} (${relative(root, requirementsFile)})`),
    fits: (p) => p.version[0] === 3 && p.version[1] === minor,
  });
}

/**
 * A Python 3.<minor> with the venv module: python3.<minor> or python3 on PATH, else the newest
 * 3.<minor>.* under pyenv's root (pyenv's shims run only the versions `pyenv global` selects).
 */
function pinnedPython(minor, forWhat) {
  const want = `3.${minor}`;
  const pyenvRoot = process.env.PYENV_ROOT || capture("pyenv", ["root"])?.trim() || join(homedir(), ".pyenv");
  const versions = join(pyenvRoot, "versions");
  const patch = (v) => Number(v.split(".")[2]);
  const pyenv = existsSync(versions)
    ? readdirSync(versions)
        .filter((v) => new RegExp(`^3\\.${minor}\\.\\d+$`).test(v))
        .sort((a, b) => patch(b) - patch(a))
        .map((v) => join(versions, v, "bin", "python3"))
    : [];
  const seen = [];
  for (const cmd of [`python${want}`, "python3", ...pyenv]) {
    const p = probePython(cmd);
    if (p === null) continue;
    seen.push(`${cmd} ${p.version.join(".")}${p.venv ? "" : " (no venv module)"}`);
    if (p.version[0] === 3 && p.version[1] === minor && p.venv) return p;
  }
  throw new StepError(
    `${forWhat} needs Python ${want} with the venv module (its requirements pin it): ` +
      `looked for python${want} and python3 on PATH and ${join(versions, `${want}.*`, "bin", "python3")}; ` +
      `found ${seen.join(", ") || "none of them"}. Install Python ${want} (e.g. \`pyenv install ${want}\`)`,
  );
}

/**
 * A virtual environment at `venv` (interpreter `interpreter`) with `requirementsFile` installed,
 * made from `base()` (basePython) and remade when its interpreter does not `fit` (recentPython).
 */
function pythonVenv(venv, interpreter, requirementsFile, { base: basePy = basePython, fits = recentPython } = {}) {
  const name = venv.slice(root.length + 1);
  const file = requirementsFile.slice(root.length + 1);
  const stampFile = join(venv, "zom-requirements.sha256");
  const requirements = readFileSync(requirementsFile);
  const want = createHash("sha256").update(requirements).digest("hex");
  const zarrPin = requirements.toString("utf8").match(/^zarr==(\S+)/m)?.[1];
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : null;
  const zarrVersion = () => capture(interpreter, ["-c", "from importlib.metadata import version; print(version('zarr'))"])?.trim();
  if (stamp === want && zarrVersion() === zarrPin) {
    console.log(`ok: python venv (${name}, zarr ${zarrPin})`);
    return interpreter;
  }
  const t0 = performance.now();
  const current = existsSync(interpreter) ? probePython(interpreter) : null;
  if (current === null || !fits(current)) {
    // No venv, or one whose interpreter is gone (base Python removed) or does not fit (too old,
    // or not the minor version pinned): (re)create it.
    const base = basePy();
    const why = existsSync(venv) ? (current ? `its Python ${current.version.join(".")} does not fit` : "it is broken") : "absent";
    console.log(`installing: python venv (${name}: ${why}; from ${base.cmd} ${base.version.join(".")} at ${base.executable})`);
    run(base.executable, ["-m", "venv", "--clear", venv]);
  } else {
    const why = stamp === null ? "not installed by setup" : stamp !== want ? `${file} changed` : "zarr missing";
    console.log(`installing: python packages into ${name} (${why})`);
  }
  rmSync(stampFile, { force: true });
  console.log(`installing: ${file} (pip, into ${name})`);
  run(interpreter, [
    "-m",
    "pip",
    "install",
    "--require-virtualenv",
    "--disable-pip-version-check",
    "--no-input",
    "--quiet",
    "-r",
    requirementsFile,
  ]);
  const installed = zarrVersion();
  if (installed !== zarrPin)
    throw new StepError(`pip installed the requirements but ${name} has zarr ${installed ?? "absent"}, not ${zarrPin}`);
  writeFileSync(stampFile, `${want}\n`);
  console.log(`installed: python venv (${name}, zarr ${installed}) in ${seconds(performance.now() - t0)}`);
  return interpreter;
}

/**
 * Installs whatever is missing.
 * @param {{ browser?: boolean, python?: boolean, pythonZarr2?: boolean, pythonConventions?: boolean, pythonReferences?: boolean, pythonOme?: boolean, pythonCurrent?: boolean, pythonAnndata?: boolean, pythonIcechunk?: boolean, twiggy?: boolean, suites?: boolean }} [opts]
 *   browser: also Chromium and chromedriver, Firefox ESR, WebKitWebDriver with MiniBrowser and
 *   xvfb-run (the browser tests); python: also .venv (the tests
 *   that run zarr-python); pythonZarr2: also .venv-zarr2 (the zarr-python 2 fixture generator);
 *   pythonConventions: also .venv-conventions (the OME-Zarr and xarray convention fixture generator);
 *   pythonReferences: also .venv-references (the kerchunk reference fixture generator);
 *   pythonOme: also .venv-ome (the OME-Zarr walk fixtures' and bench plates' generators);
 *   pythonCurrent: also .venv-current (tests/fixtures/current/generate.py's writers);
 *   pythonAnndata: also .venv-anndata (tests/fixtures/anndata/generate.py's writer);
 *   pythonIcechunk: also .venv-icechunk (tests/fixtures/icechunk/generate.py's writer);
 *   twiggy: also twiggy (the size bench's byte attribution)
 */
export function setup(opts = {}) {
  rustTarget();
  cToolchain();
  wasmBindgen();
  npmPackages();
  // zarrita's own tests and viv's loader (tests/js/zarrita-suite.test.mjs, viv-loaders.test.mjs).
  if (opts.suites) {
    npmPackages(join(root, "tests", "zarrita-suite"));
    // Apps on @fideus-labs/ngff-zarr, on ome-zarr.js and on @vitessce/zarr, each with the zarrita
    // it depends on (tests/js/ngff-zarr.test.mjs, ome-zarr-js.test.mjs, vitessce.test.mjs).
    npmPackages(join(root, "tests", "zarrita-suite", "ngff-zarr"));
    npmPackages(join(root, "tests", "zarrita-suite", "ome-zarr-js"));
    npmPackages(join(root, "tests", "zarrita-suite", "vitessce"));
  }
  if (opts.python) python();
  if (opts.pythonZarr2) pythonZarr2();
  if (opts.pythonConventions) pythonConventions();
  if (opts.pythonReferences) pythonReferences();
  if (opts.pythonOme) pythonOme();
  if (opts.pythonCurrent) pythonCurrent();
  if (opts.pythonAnndata) pythonAnndata();
  if (opts.pythonIcechunk) pythonIcechunk();
  if (opts.browser) {
    chromium();
    chromedriver();
    firefox();
    webkit();
  }
  if (opts.twiggy) twiggy();
}

if (isMain(import.meta.url)) {
  const flag = (name) => process.argv.includes(name);
  runMain(() =>
    setup({
      browser: flag("--browser"),
      python: flag("--python"),
      pythonZarr2: flag("--python-zarr2"),
      pythonConventions: flag("--python-conventions"),
      pythonReferences: flag("--python-references"),
      pythonOme: flag("--python-ome"),
      pythonCurrent: flag("--python-current"),
      pythonAnndata: flag("--python-anndata"),
      pythonIcechunk: flag("--python-icechunk"),
      twiggy: flag("--twiggy"),
      suites: flag("--suites"),
    }),
  );
}
