// Builds the explorer (www/) into www/dist/: type-checks www/src with tsc --strict, bundles the
// page (src/main.ts) and its worker (src/worker.ts, which imports the zom package) with esbuild,
// and copies index.html, style.css and the package's WebAssembly next to them. The worker loads
// the .wasm from beside itself through `zom/manual`'s init, so nothing else has to be served.
// Run after the package build (scripts/build.mjs calls it): it reads pkg/.
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const www = dirname(fileURLToPath(import.meta.url));
const root = dirname(www);

/** The folder `npm start` serves (not committed). */
export const wwwDist = join(www, "dist");

/**
 * Type-checks and bundles the explorer into www/dist/.
 * @param {(cmd: string, args: string[]) => void} run runs a command, throwing when it fails
 */
export function buildWww(run) {
  const wasm = join(root, "pkg", "zom_wasm_bg.wasm");
  if (!existsSync(wasm)) throw new Error(`${wasm} is missing: build the package first`);
  run(join(root, "node_modules", ".bin", "tsc"), ["-p", join(www, "tsconfig.json"), "--noEmit"]);
  // Loaded here, not imported at the top: the scripts import this file before setup has
  // installed the npm packages.
  const { buildSync } = createRequire(import.meta.url)("esbuild");
  rmSync(wwwDist, { recursive: true, force: true });
  mkdirSync(wwwDist, { recursive: true });
  buildSync({
    entryPoints: { main: join(www, "src", "main.ts"), worker: join(www, "src", "worker.ts") },
    outdir: wwwDist,
    bundle: true,
    format: "esm",
    platform: "browser",
    // Module workers (the explorer's own, www/src/client.ts): every current engine has them.
    target: ["es2022", "chrome100", "firefox114", "safari16"],
    sourcemap: true,
    minify: true,
    logLevel: "warning",
  });
  copyFileSync(wasm, join(wwwDist, "zom_wasm_bg.wasm"));
  for (const file of ["index.html", "style.css"]) copyFileSync(join(www, file), join(wwwDist, file));
}
