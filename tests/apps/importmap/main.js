// The app, loaded by the browser as is (no bundler): "zom" comes from the page's import map.
import { FetchStore, openArray, version, workerStats } from "zom";
import { runPage } from "../shared/page.js";

runPage({ FetchStore, openArray, version, workerStats });
