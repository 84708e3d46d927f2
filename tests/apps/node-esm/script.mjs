// A Node ESM script: imports zom by name, reads the sample hierarchy at the URL given as
// its argument and prints the result as one line of JSON.
import { FetchStore, openArray, version, workerStats } from "zom";
import { readSample } from "../shared/read.js";

const result = await readSample({ FetchStore, openArray, version, workerStats }, process.argv[2]);
process.stdout.write(`${JSON.stringify(result)}\n`);
