// The benchmark tables in README.md and docs/*.md are bench/results.json's: a table edited by
// hand, or a results.json refreshed without `node scripts/bench-tables.mjs --write`, fails.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

test("every generated benchmark table matches bench/results.json", () => {
  const r = spawnSync(process.execPath, [join(repoRoot, "scripts", "bench-tables.mjs"), "--check"], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
