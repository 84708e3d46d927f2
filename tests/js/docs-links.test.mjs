// Every relative link in README.md, ARCHITECTURE.md and docs/*.md points to a file or folder
// that exists, and every `#anchor` (in the same file or in another Markdown file) to a heading
// there, by GitHub's slug rules: moving a section or renaming a heading breaks no link.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { root } from "../../scripts/lib.mjs";

const FILES = [
  "README.md",
  "ARCHITECTURE.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, ""); // HTML tags
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings (a repeated one gets -1, -2, … as on GitHub). */
function anchors(file) {
  const seen = new Map();
  const out = new Set();
  const text = readFileSync(file, "utf8").replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link target in a Markdown text: inline `[text](target)` and definitions `[x]: target`. */
function targets(text) {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const defined = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]);
  return [...inline, ...defined];
}

for (const name of FILES) {
  test(`the relative links of ${name} resolve`, () => {
    const file = join(root, name);
    const broken = [];
    for (const target of targets(readFileSync(file, "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [path, anchor] = target.split("#");
      const dest = path ? join(dirname(file), decodeURIComponent(path)) : file;
      if (!existsSync(dest)) {
        broken.push(`${target}: no ${relative(root, dest)}`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (statSync(dest).isDirectory() || !dest.endsWith(".md")) {
        broken.push(`${target}: an anchor into ${relative(root, dest)}, which is not a Markdown file`);
        continue;
      }
      if (!anchors(dest).has(decodeURIComponent(anchor).toLowerCase()))
        broken.push(`${target}: no heading #${anchor} in ${relative(root, dest)}`);
    }
    assert.deepEqual(broken, [], `${name}:\n${broken.join("\n")}`);
  });
}

test("GitHub's heading slugs", () => {
  assert.equal(slug("Tiles: reading the way viewers read"), "tiles-reading-the-way-viewers-read");
  assert.equal(slug("zarrita's API"), "zarritas-api");
  assert.equal(slug("Reference stores (kerchunk)"), "reference-stores-kerchunk");
  assert.equal(slug("In apps: bundlers, CommonJS, servers, workers"), "in-apps-bundlers-commonjs-servers-workers");
  assert.equal(slug("`zom/zarrita`: zarrita's API over zom"), "zomzarrita-zarritas-api-over-zom");
  assert.equal(slug("Next to zarr-metadata and pydantic-zarr"), "next-to-zarr-metadata-and-pydantic-zarr");
});
