// The app, loaded by the browser as is (no bundler): a zarrita viewer's imports, "zarrita"
// sent to zom/zarrita by the page's import map.
import { FetchStore, get, open, root } from "zarrita";
import { version, workerStats } from "zom";
import { runPage } from "../shared/page.js";
import { viaZarrita } from "../shared/zarrita.js";

runPage({ ...viaZarrita({ FetchStore, get, open, root }), version, workerStats });
