// Every export of ts/ is used or documented: a name that a module exports is named somewhere
// else (another module of ts/, the explorer, the CLI, a test, a bench) or in the documentation
// (README.md, ARCHITECTURE.md, docs/). An export nothing names is dead code, or an API nobody
// can find: either way this test names it. The modules an entry re-exports whole (`export *`,
// the API's types among them) are the API itself and are left out.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { exportTargets, repoRoot } from "./helpers.mjs";

/** Files under `dir` (relative to the repository) whose names match `pattern`, skipping build output and dependencies. */
function files(dir, pattern) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(join(repoRoot, d), { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) {
        if (!["node_modules", "dist", "generated", "target", "pkg"].includes(e.name)) walk(path);
      } else if (pattern.test(e.name)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * The values a TypeScript module exports (functions, constants, by declaration or by an export
 * list). Types, interfaces and classes are left out when the module itself uses them: one its
 * exported signatures name must be exported for its declarations.
 */
function exportedNames(text) {
  const names = new Set();
  for (const m of text.matchAll(/^export (?:declare )?(?:async )?(?:function\*?|const|let|enum) +([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  for (const m of text.matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type) +([A-Za-z_$][\w$]*)/gm)) {
    if (text.split(new RegExp(`(?<![\\w$])${m[1]}(?![\\w$])`)).length <= 2) names.add(m[1]);
  }
  for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const item of m[1].split(",")) {
      const name = item
        .trim()
        .replace(/^type +/, "")
        .split(/ +as +/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  }
  return names;
}

/** The modules of package.json's entries (pkg/x.js is ts/x.ts) and those they re-export whole (`export *`). */
function publicModules() {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  const todo = exportTargets(pkg.exports)
    .filter((t) => /^\.\/pkg\/.*\.js$/.test(t))
    .map((t) => join("ts", t.slice("./pkg/".length).replace(/\.js$/, ".ts")));
  const seen = new Set();
  while (todo.length > 0) {
    const file = todo.pop();
    // Generated modules (the worker's bundle, the carried parts) have no source in ts/.
    if (seen.has(file) || !existsSync(join(repoRoot, file))) continue;
    seen.add(file);
    const text = readFileSync(join(repoRoot, file), "utf8");
    for (const m of text.matchAll(/^export (?:type )?\* from "(\.[^"]+)\.js";/gm)) todo.push(join(file, "..", `${m[1]}.ts`));
  }
  return seen;
}

test("every export of ts/ is named by other code or by the documentation", () => {
  const exposed = publicModules();
  const modules = files("ts", /\.ts$/);
  const elsewhere = [
    ...files("www/src", /\.ts$/),
    ...files("bin", /\.m?js$/),
    ...files("tests", /\.(m?js|ts|cts)$/),
    ...files("bench", /\.m?js$/),
    ...files("scripts", /\.m?js$/),
    ...files("docs", /\.md$/),
    "README.md",
    "ARCHITECTURE.md",
  ];
  const texts = new Map([...modules, ...elsewhere].map((f) => [f, readFileSync(join(repoRoot, f), "utf8")]));
  const unused = [];
  for (const file of modules) {
    // A module an entry re-exports whole is the API's: its types reach users without a name here.
    if (exposed.has(file)) continue;
    for (const name of exportedNames(texts.get(file))) {
      const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
      const named = [...texts].some(([other, text]) => other !== file && word.test(text));
      if (!named) unused.push(`${relative(".", file)}: ${name}`);
    }
  }
  assert.deepEqual(unused, [], `exports nothing else names: export them from an entry and document them, or remove them`);
});
