// The resolve hook alias.mjs registers: "zarrita" → zom's zarrita entry for Node.
import { pathToFileURL } from "node:url";
import { fileURLToPath } from "node:url";
import { join, dirname } from "node:path";

const zomZarrita = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "pkg", "zarrita", "node.js")).href;

export async function resolve(specifier, context, next) {
  if (specifier === "zarrita") return { url: zomZarrita, shortCircuit: true };
  return next(specifier, context);
}
