// The page starts the app's own module worker, which imports zom and reads there; the
// worker's answer becomes window.zomApp (or window.zomAppFatal).
import { dataUrl, show } from "../../shared/page.js";

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (e) => {
  if (e.data.fatal !== undefined) {
    window.zomAppFatal = `in the worker: ${e.data.fatal}`;
    show(`failed: ${window.zomAppFatal}`);
  } else {
    window.zomApp = e.data.result;
    show(`zom ${e.data.result.version} (in a worker): ${e.data.result.reads.length} arrays read in ${e.data.result.ms.toFixed(1)} ms`);
  }
};
worker.onerror = (e) => {
  window.zomAppFatal = `the worker failed: ${e.message || "(no message: it could not load)"}${e.filename ? ` at ${e.filename}:${e.lineno}` : ""}`;
  show(`failed: ${window.zomAppFatal}`);
};
worker.postMessage({ url: dataUrl() });
