// The pages of bench/first/first.mjs: each page × library bundled once by esbuild through
// bench/lib/util.mjs bundlePage (ESM, split, minified) into a folder of its own with an index.html,
// and what each folder's JS and WebAssembly files weigh (raw, gzip -9, brotli).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { benchDir, bundlePage } from "../lib/util.mjs";

const root = join(benchDir, "..");
/** This folder, where the pages' sources are. */
const pageDir = join(benchDir, "first");

/** True when package.json exports `subpath` and the file it names for browsers is built. */
function exportBuilt(subpath) {
  let target = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports?.[subpath];
  // Down the conditions a browser bundler takes, to the file.
  while (target && typeof target === "object") target = target.browser ?? target.import ?? target.default;
  return typeof target === "string" && existsSync(join(root, target));
}

/** The validator page's library: "zom/validate" where the package has that entry, else "zom". */
export const VALIDATOR_SPECIFIER = exportBuilt("./validate") ? "zom/validate" : "zom";

/** The libraries, in the tables' order, with their labels. */
export const LIBRARIES = {
  zarrita: "zarrita + numcodecs",
  zom: "zom",
  "zom/manual": "zom/manual (.wasm beside)",
  "zom/zarrita": "zom/zarrita",
};

/**
 * Page → library → [page source in bench/, the import specifier in it, the one bundled]. The
 * zom/zarrita pages are the zarrita pages' code with the specifier replaced.
 */
export const PAGES = {
  // The app pages read the array their URL names (bench/first/first.mjs: /data/tile for this one).
  tile: {
    zarrita: ["first-app-zarrita.js", "zarrita", "zarrita"],
    zom: ["first-app-zom.js", "zom", "zom"],
    "zom/manual": ["first-app-zom.js", "zom", "zom/manual"],
    "zom/zarrita": ["first-app-zarrita.js", "zarrita", "zom/zarrita"],
  },
  app: {
    zarrita: ["first-app-zarrita.js", "zarrita", "zarrita"],
    zom: ["first-app-zom.js", "zom", "zom"],
    "zom/manual": ["first-app-zom.js", "zom", "zom/manual"],
    "zom/zarrita": ["first-app-zarrita.js", "zarrita", "zom/zarrita"],
  },
  viewer: {
    zarrita: ["first-viewer-zarrita.js", "zarrita", "zarrita"],
    zom: ["first-viewer-zom.js", "zom", "zom"],
    "zom/manual": ["first-viewer-zom.js", "zom", "zom/manual"],
    "zom/zarrita": ["first-viewer-zarrita.js", "zarrita", "zom/zarrita"],
  },
  validator: {
    zom: ["first-validator.js", "zom/validate", VALIDATOR_SPECIFIER],
  },
};

/** The folder name of a page × library ("app-zom-zarrita"). */
export const caseDir = (page, lib) => `${page}-${lib.replace(/\//g, "-")}`;

/** The page's source with its library's import specifier replaced by `to`. */
function sourceWith(file, from, to) {
  const text = readFileSync(join(pageDir, file), "utf8");
  const pattern = new RegExp(`from "${from.replace(/[/.]/g, "\\$&")}"`, "g");
  if (!pattern.test(text)) throw new Error(`bench/first/${file} imports nothing from "${from}"`);
  return text.replace(pattern, `from "${to}"`);
}

/** The JS and WebAssembly files of a built folder: name → {raw, gzip, brotli} bytes. */
function weigh(dir) {
  const out = {};
  for (const name of readdirSync(dir).sort()) {
    if (!/\.(js|wasm)$/.test(name)) continue;
    const bytes = readFileSync(join(dir, name));
    out[name] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes).length };
  }
  return out;
}

/**
 * Bundles every page × library of `pages` into `outDir/<caseDir>/` (main.js, its split chunks,
 * index.html). Returns [{page, lib, dir, specifier, files}].
 */
export function buildPages(outDir, pages = Object.keys(PAGES)) {
  const built = [];
  for (const page of pages) {
    for (const [lib, [file, from, to]] of Object.entries(PAGES[page])) {
      const dir = join(outDir, caseDir(page, lib));
      mkdirSync(dir, { recursive: true });
      bundlePage({ source: sourceWith(file, from, to), resolveDir: pageDir, outdir: dir });
      // esbuild names the entry of a `source` stdin.js; no chunk imports the entry.
      renameSync(join(dir, "stdin.js"), join(dir, "main.js"));
      // "zom/manual" fetches the .wasm from beside its code, which Vite, webpack and Parcel
      // copy there; esbuild does not, so the bench does.
      if (to === "zom/manual") copyFileSync(join(root, "pkg", "zom_wasm_bg.wasm"), join(dir, "zom_wasm_bg.wasm"));
      writeFileSync(
        join(dir, "index.html"),
        '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="main.js"></script>\n',
      );
      if (!statSync(join(dir, "main.js")).size) throw new Error(`${caseDir(page, lib)}: empty bundle`);
      built.push({ page, lib, dir: caseDir(page, lib), specifier: to, files: weigh(dir) });
    }
  }
  return built;
}
