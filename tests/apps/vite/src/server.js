// The server side of the app (vite build --ssr): imports zom in a server bundle and reads
// the sample hierarchy from a URL. ../../shared/ssr-run.mjs runs it in Node with window and
// document defined as getters that throw.
import { FetchStore, openArray, version, workerStats } from "zom";
import { readSample } from "../../shared/read.js";

export function render(url) {
  return readSample({ FetchStore, openArray, version, workerStats }, url);
}
