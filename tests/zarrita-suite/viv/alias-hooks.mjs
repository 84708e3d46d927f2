// The resolve hook alias.mjs registers: "zarrita" → zom's zarrita entry for Node.

import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const zomZarrita = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "pkg", "zarrita", "node.js")).href;

export async function resolve(specifier, context, next) {
  if (specifier === "zarrita") return { url: zomZarrita, shortCircuit: true };
  return next(specifier, context);
}
