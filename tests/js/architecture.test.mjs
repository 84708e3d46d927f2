// ARCHITECTURE.md and the code agree: every path it cites in backquotes under the source
// folders exists, and its "Entry points and runtimes" section names every specifier of
// package.json's `exports`, with the files each resolves to.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { exportTargets, repoRoot } from "./helpers.mjs";

const text = readFileSync(join(repoRoot, "ARCHITECTURE.md"), "utf8");

/** The folders whose files ARCHITECTURE.md cites (pkg/ is build output: checked by the entries below). */
const SOURCES = ["src", "ts", "kernels", "www", "bin", "tests", "fuzz", "bench", "scripts", "docs", "examples", ".ci"];

test("every path ARCHITECTURE.md cites exists", () => {
  const missing = [];
  for (const [, cited] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = cited.replace(/[:#].*$/, "").replace(/[),.;]+$/, "");
    if (!SOURCES.some((dir) => path.startsWith(`${dir}/`))) continue;
    // A pattern (`ts/*.ts`, `pkg/zom_part_<name>.js`) names no one file.
    if (/[*<>{}]/.test(path)) continue;
    if (!existsSync(join(repoRoot, path))) missing.push(path);
  }
  assert.deepEqual([...new Set(missing)], [], "cited in ARCHITECTURE.md, not in the repository");
});

test('"Entry points and runtimes" names every specifier of package.json exports and the files it resolves to', () => {
  const start = text.indexOf("## Entry points and runtimes");
  assert.ok(start >= 0, "the section is there");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));
  const { exports } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  for (const [key, target] of Object.entries(exports)) {
    const specifier = key === "." ? "zom" : `zom/${key.slice(2)}`;
    assert.ok(section.includes(`"${specifier}"`), `${specifier} is not in the section`);
    for (const file of exportTargets(target).filter((f) => f.startsWith("./pkg/")))
      assert.ok(section.includes(`\`${file.slice(2)}\``), `${specifier}: ${file} is not in the section`);
  }
});
