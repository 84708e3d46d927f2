// Runs zarrita.js's own tests (laid out in work/ by tests/js/zarrita-suite.test.mjs) with every
// import of zarrita's source (`../src/open.js`, `../../src/indexing/ops.js`…) answered by
// shim/, which re-exports zom/zarrita, and zom/zarrita resolved to the built package as Node
// resolves it.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^(?:\.\.\/)+src\/(.*)$/, replacement: `${join(here, "shim")}/$1` },
      { find: /^zarrita$/, replacement: join(here, "shim", "index.js") },
      { find: /^zom\/zarrita$/, replacement: join(here, "..", "..", "pkg", "zarrita", "node.js") },
    ],
  },
  test: {
    root: join(here, "work"),
    include: ["packages/**/*.test.js"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
