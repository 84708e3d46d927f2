// Metadata bombs (issue 14): a hostile server's zarr.json — gzip that inflates to 900 MB, an
// endless chunked body, a Content-Length of 900 MB — is refused at maxDocumentBytes (64 MiB)
// while it streams, not after it was held whole. Each case runs in a child process
// (tests/js/child/metadata-bomb.mjs), whose peak RSS is the memory the bomb cost.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

const MiB = 2 ** 20;
const CHILD = join(repoRoot, "tests", "js", "child", "metadata-bomb.mjs");
/** A few hundred MB: Node, zom's module and the 64 MiB document limit, twice over at most. */
const PEAK_MIB = 400;

function run(kind) {
  const out = execFileSync(process.execPath, ["--expose-gc", CHILD, kind], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}

for (const kind of ["gzip", "chunked"]) {
  test(`a ${kind} zarr.json of 900 MB is refused at maxDocumentBytes while it streams`, { timeout: 90_000 }, () => {
    const r = run(kind);
    assert.equal(r.error?.code, "LimitExceeded", JSON.stringify(r));
    assert.match(r.error.message, /maxDocumentBytes = 67108864/);
    assert.equal(r.error.key, "zarr.json");
    assert.equal(r.error.path, "");
    assert.ok(r.storeBytes <= 64 * MiB + 16 * MiB, `the store read ${r.storeBytes} bytes`);
    assert.ok(r.storeBytes > 64 * MiB, `the store read ${r.storeBytes} bytes: past the limit, where it stopped`);
    assert.ok(r.peakRssMiB < PEAK_MIB, `peak RSS ${r.peakRssMiB} MiB`);
    assert.ok(r.heldAfterMiB < 64, `${r.heldAfterMiB} MiB still held after the store was dropped`);
    assert.equal(r.requestsAfterWalk, r.storeRequests + 1, "the refused document was not cached");
    assert.ok(r.ms < 20_000, `refused after ${r.ms} ms`);
    if (kind === "gzip") assert.ok(r.serverBytes < 4 * MiB, `the server sent ${r.serverBytes} bytes`);
  });
}

test("a zarr.json whose Content-Length says 900 MB is refused before its body is read", { timeout: 90_000 }, () => {
  const r = run("length");
  assert.equal(r.error?.code, "LimitExceeded", JSON.stringify(r));
  assert.match(r.error.message, /is \d+ bytes \(Content-Length\), over the limit maxBytes = 67108864/);
  assert.equal(r.storeBytes, 0);
  assert.ok(r.peakRssMiB < PEAK_MIB, `peak RSS ${r.peakRssMiB} MiB`);
});
