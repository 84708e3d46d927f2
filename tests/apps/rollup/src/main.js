// The app: imports what it uses from "zom" by name and reads the sample hierarchy.
import { FetchStore, openArray, version, workerStats } from "zom";
import { runPage } from "../../shared/page.js";

runPage({ FetchStore, openArray, version, workerStats });
