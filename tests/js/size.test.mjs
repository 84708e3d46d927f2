// The size budget of the WebAssembly module: pkg/zom_wasm_bg.wasm (the one module
// scripts/build.mjs writes) compressed by `gzip -9`, as the build prints it, must stay within
// WASM_BUDGET bytes. Builds nothing: it reads what the build left in pkg/. docs/size.md says
// where the bytes go.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { gzipSize, WASM_BUDGET } from "../../scripts/lib.mjs";
import { repoRoot } from "./helpers.mjs";

const wasm = join(repoRoot, "pkg", "zom_wasm_bg.wasm");

test(`pkg/zom_wasm_bg.wasm compressed by gzip -9 is at most ${WASM_BUDGET} bytes`, () => {
  const name = relative(repoRoot, wasm);
  if (!existsSync(wasm)) assert.fail(`${name} is missing: build it first with \`npm run build\` (node scripts/build.mjs)`);
  const bytes = readFileSync(wasm);
  assert.ok(WebAssembly.validate(bytes), `${name} is not a valid WebAssembly module: build it again with \`npm run build\``);
  const gzipped = gzipSize(wasm);
  assert.ok(gzipped > bytes.length / 4, `gzip -9 gave ${gzipped} bytes for ${bytes.length}: not a measure of this module`);
  assert.ok(
    gzipped <= WASM_BUDGET,
    `${name} is ${gzipped} bytes gzipped (${bytes.length} raw), ${gzipped - WASM_BUDGET} over the ${WASM_BUDGET}-byte budget (docs/size.md: where the bytes go)`,
  );
});
