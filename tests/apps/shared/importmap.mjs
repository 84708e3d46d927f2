// The import-map apps' build (no bundler): writes <app>/dist/index.html, whose import map sends
// each bare specifier to the browser entry the installed zom package's exports name for it
// (conditions "browser", "import", "default", in that order), under tests/apps/node_modules/zom/
// — the files served as they were installed. The page is served with tests/ as the server root
// (the shared page code imports tests/browser/plain.mjs).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const appsDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(appsDir, "node_modules", "zom", "package.json"), "utf8"));

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

/** The browser file of zom's export `subpath` ("." or "./zarrita"), as a URL relative to <app>/dist/. */
function entryUrl(subpath) {
  const exp = pkg.exports;
  const bare = typeof exp === "string" || Array.isArray(exp) || !Object.keys(exp ?? {}).some((k) => k.startsWith("."));
  const found = bare ? (subpath === "." ? target(exp) : undefined) : target(exp[subpath]);
  const entry = found ?? (subpath === "." ? (pkg.browser ?? pkg.module ?? pkg.main) : undefined);
  if (typeof entry !== "string")
    throw new Error(`node_modules/zom/package.json names no browser entry for "${subpath}": ${JSON.stringify(exp)}`);
  return `../../node_modules/zom/${entry.replace(/^\.\//, "")}`;
}

/**
 * Writes `<app>/dist/index.html` loading `<app>/main.js` with an import map of `specifiers`
 * (bare specifier → zom's export subpath, e.g. {zarrita: "./zarrita"}).
 */
export function writeImportMapPage(app, specifiers) {
  const imports = Object.fromEntries(Object.entries(specifiers).map(([name, subpath]) => [name, entryUrl(subpath)]));
  const dist = join(appsDir, app, "dist");
  mkdirSync(dist, { recursive: true });
  writeFileSync(
    join(dist, "index.html"),
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>zom app</title>
<link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="../main.js"></script>
</head>
<body>
<pre id="out">loading…</pre>
</body>
</html>
`,
  );
  for (const [name, url] of Object.entries(imports)) console.log(`import map: "${name}" → ${url}`);
}
