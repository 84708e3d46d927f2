// No bundler: writes dist/index.html, whose import map sends "zom" to the browser entry the
// installed package's exports name (conditions "browser", "import", "default", in that
// order), under tests/apps/node_modules/zom/ — the files served as they were installed. The
// page is served with tests/ as the server root (the shared page code imports
// tests/browser/plain.mjs).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, "..", "node_modules", "zom", "package.json"), "utf8"));

/** The target of an exports entry for the browser: a string, or the first matching condition. */
function target(entry) {
  if (typeof entry === "string") return entry;
  if (Array.isArray(entry)) return entry.map(target).find(Boolean);
  if (entry && typeof entry === "object") {
    for (const [condition, value] of Object.entries(entry)) {
      if (["browser", "import", "default"].includes(condition)) {
        const found = target(value);
        if (found) return found;
      }
    }
  }
  return undefined;
}

const exp = pkg.exports;
const dot = typeof exp === "string" || Array.isArray(exp) || !Object.keys(exp ?? {}).some((k) => k.startsWith(".")) ? exp : exp["."];
const entry = target(dot) ?? pkg.browser ?? pkg.module ?? pkg.main;
if (typeof entry !== "string") throw new Error(`node_modules/zom/package.json names no browser entry for "zom": ${JSON.stringify(exp)}`);
const url = `../../node_modules/zom/${entry.replace(/^\.\//, "")}`;

mkdirSync(join(here, "dist"), { recursive: true });
writeFileSync(
  join(here, "dist", "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>zom app</title>
<link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify({ imports: { zom: url } })}</script>
<script type="module" src="../main.js"></script>
</head>
<body>
<pre id="out">loading…</pre>
</body>
</html>
`,
);
console.log(`import map: "zom" → ${url}`);
