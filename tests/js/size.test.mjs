// The size budget of the WebAssembly module: pkg/zom_wasm_bg.wasm (the one module
// scripts/build.mjs writes) gzipped at level 9 by Node's zlib, as the build prints it, must stay
// within BUDGET bytes. Builds nothing: it reads what the build left in pkg/. docs/size.md says
// where the bytes go.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { repoRoot } from "./helpers.mjs";

/** The most the module may weigh gzipped, in bytes. */
const BUDGET = 420_000;

const wasm = join(repoRoot, "pkg", "zom_wasm_bg.wasm");

test(`pkg/zom_wasm_bg.wasm gzipped (level 9) is at most ${BUDGET} bytes`, () => {
  const name = relative(repoRoot, wasm);
  if (!existsSync(wasm)) assert.fail(`${name} is missing: build it first with \`npm run build\` (node scripts/build.mjs)`);
  const bytes = readFileSync(wasm);
  assert.ok(WebAssembly.validate(bytes), `${name} is not a valid WebAssembly module: build it again with \`npm run build\``);
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  assert.ok(
    gzipped <= BUDGET,
    `${name} is ${gzipped} bytes gzipped (${bytes.length} raw), ${gzipped - BUDGET} over the ${BUDGET}-byte budget (docs/size.md: where the bytes go)`,
  );
});
