// The resolve hook read.mjs registers in its "modules" mode: "@vitessce/zarr" and
// "@vitessce/zarr-utils" → the package's dist-tsc/index.js. Each @vitessce package publishes a
// Vite bundle (dist/index.js, its "exports") that inlines its dependencies, zarrita 0.7.5 among
// them, so no alias of "zarrita" reaches the zarr reads of @vitessce/zarr or @vitessce/zarr-utils
// as published. The same package's dist-tsc/ holds its modules one for one, as tsc compiled them
// from Vitessce's sources, with their `import … from "zarrita"` intact: the hook loads those, so
// that zarrita is whichever "zarrita" resolves to (zom/zarrita under ../viv/alias.mjs).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The packages whose bundles carry zarrita and whose zarr reads the app makes. */
const UNBUNDLED = new Set(["@vitessce/zarr", "@vitessce/zarr-utils"]);

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (UNBUNDLED.has(specifier) && resolved.url.endsWith("/dist/index.js")) {
    const url = resolved.url.replace(/\/dist\/index\.js$/, "/dist-tsc/index.js");
    if (existsSync(fileURLToPath(url))) return { ...resolved, url, shortCircuit: true };
  }
  return resolved;
}
