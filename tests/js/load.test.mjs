// init() sources in Node: file URL, path string, Response, WebAssembly.Module. Each case runs
// in a fresh Node process, since the module instance is loaded once per process.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const wasm = new URL("../../pkg/zom_wasm_bg.wasm", import.meta.url);

function runWith(sourceExpr) {
  const script = `
    import { readFileSync } from "node:fs";
    import { init, version } from "zom/manual";
    const wasm = new URL(${JSON.stringify(wasm.href)});
    await init(${sourceExpr});
    process.stdout.write(version());`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

for (const [what, expr] of [
  ["a file: URL", "wasm"],
  ["a file: URL string", "wasm.href"],
  ["a file path", "wasm.pathname"],
  ["a Response", 'new Response(readFileSync(wasm), { headers: { "content-type": "application/wasm" } })'],
  ["a WebAssembly.Module", "new WebAssembly.Module(readFileSync(wasm))"],
  ["an ArrayBuffer", "new Uint8Array(readFileSync(wasm)).buffer"],
  ["nothing (next to the module)", ""],
]) {
  test(`init from ${what}`, () => {
    assert.match(runWith(expr), /^\d+\.\d+\.\d+$/);
  });
}

test("init from a missing file rejects", () => {
  assert.throws(() => runWith('new URL("file:///nonexistent/zom.wasm")'), /ENOENT/);
});
