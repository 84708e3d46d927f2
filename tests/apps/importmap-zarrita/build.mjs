// No bundler: dist/index.html whose import map sends "zarrita" to zom's "./zarrita" entry — the
// whole migration from zarrita for a page without a build — and "zom" to its main entry.
import { writeImportMapPage } from "../shared/importmap.mjs";

writeImportMapPage("importmap-zarrita", { zarrita: "./zarrita", zom: "." });
