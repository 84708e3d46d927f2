// No bundler: dist/index.html with an import map sending "zom" to the installed package's
// browser entry (shared/importmap.mjs).
import { writeImportMapPage } from "../shared/importmap.mjs";

writeImportMapPage("importmap", { zom: "." });
