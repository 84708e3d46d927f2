// The app's own module worker: imports zom, reads the sample hierarchy at the URL the page
// sends and posts the result back.
import { FetchStore, openArray, version, workerStats } from "zom";
import { describe, readSample } from "../../shared/read.js";

self.onmessage = async (e) => {
  try {
    self.postMessage({ result: await readSample({ FetchStore, openArray, version, workerStats }, e.data.url) });
  } catch (err) {
    self.postMessage({ fatal: describe(err) });
  }
};
