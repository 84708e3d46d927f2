// Helpers of the store tests: a server over tests/fixtures for the length of one callback, and
// the fixture bytes to compare with.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.mjs";

/** tests/fixtures, the root the store tests serve. */
export const fixtures = join(dirname(dirname(fileURLToPath(import.meta.url))), "fixtures");

/** Runs `fn(server)` against a server over tests/fixtures with `options`, closing it after. */
export async function withServer(options, fn) {
  const server = await startServer({ root: fixtures, ...options });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** The bytes of a fixture file ("v3/zarr.json"). */
export function fixture(path) {
  return new Uint8Array(readFileSync(join(fixtures, path)));
}

/** What a store listing of fixture directory `dir` ("v3/group1") with prefix `prefix` must hold. */
export function expectedListing(dir, prefix) {
  const entries = readdirSync(join(fixtures, dir), { withFileTypes: true });
  return {
    keys: entries
      .filter((e) => e.isFile())
      .map((e) => prefix + e.name)
      .sort(),
    prefixes: entries
      .filter((e) => e.isDirectory())
      .map((e) => `${prefix}${e.name}/`)
      .sort(),
  };
}

/** Milliseconds `fn` takes, with its result or error. */
export async function timed(fn) {
  const t0 = performance.now();
  try {
    return { value: await fn(), ms: performance.now() - t0 };
  } catch (error) {
    return { error, ms: performance.now() - t0 };
  }
}

/** The server log without OPTIONS entries, as "METHOD url range status" lines. */
export function logLines(server) {
  return server.stats.log.map((e) => `${e.method} ${e.url}${e.range ? ` ${e.range}` : ""} ${e.status}`);
}
