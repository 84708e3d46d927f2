// The app: a zarrita viewer's imports, "zarrita" aliased to "zom/zarrita" in vite.config.js.
import { FetchStore, get, open, root } from "zarrita";
import { version, workerStats } from "zom";
import { runPage } from "../../shared/page.js";
import { viaZarrita } from "../../shared/zarrita.js";

runPage({ ...viaZarrita({ FetchStore, get, open, root }), version, workerStats });
