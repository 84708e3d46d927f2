// The browser apps' page logic: reads the sample hierarchy served at /data/sample/ on the
// page's own origin (or ?data=URL) and sets window.zomApp to the result, or
// window.zomAppFatal to the error; the page shows the outcome too.
import { describe, readSample } from "./read.js";

/** The hierarchy's URL: ?data=… or /data/sample/ on this origin. */
export function dataUrl() {
  return new URL(new URLSearchParams(location.search).get("data") ?? "/data/sample/", location.href).href;
}

/** Shows `text` on the page. */
export function show(text) {
  const out = document.getElementById("out") ?? document.body.appendChild(document.createElement("pre"));
  out.textContent = text;
}

/** Reads with `zom`'s functions and publishes the result on window. */
export async function runPage(zom) {
  try {
    const result = await readSample(zom, dataUrl());
    window.zomApp = result;
    show(`zom ${result.version}: ${result.reads.length} arrays read in ${result.ms.toFixed(1)} ms`);
  } catch (e) {
    window.zomAppFatal = describe(e);
    show(`failed: ${window.zomAppFatal}`);
  }
}
