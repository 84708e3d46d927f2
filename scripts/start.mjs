// `npm start`: installs what is missing, builds (the package, then the explorer into
// www/dist/), and serves the explorer with the bundled sample hierarchy on 127.0.0.1: the page
// at /, tests/fixtures under /data/ (the sample at /data/sample/, which the page opens first).
// PORT chooses the port (default 8080; when it is taken, a free one is picked).
import { join } from "node:path";
import { startServer } from "../tests/server/server.mjs";
import { wwwDist } from "../www/build.mjs";
import { build } from "./build.mjs";
import { isMain, root, runMain } from "./lib.mjs";
import { setup } from "./setup.mjs";

/** The port `npm start` asks for when PORT is not set. */
export const DEFAULT_PORT = 8080;

/**
 * Serves the built explorer (www/dist) at / and tests/fixtures at /data/ with S3-style listing
 * (so that walks of hierarchies without consolidated metadata find their members), on
 * 127.0.0.1. `port` 0 picks a free port; a taken port falls back to a free one.
 * @param {{ port?: number, host?: string }} [options]
 * @returns {Promise<{url: string, sampleUrl: string, close: () => Promise<void>, stats: object}>}
 */
export async function serveExplorer({ port = DEFAULT_PORT, host = "127.0.0.1" } = {}) {
  const options = {
    root: wwwDist,
    mounts: { "/data/": join(root, "tests", "fixtures") },
    indexHtml: true,
    s3Listing: true,
    host,
  };
  let server;
  try {
    server = await startServer({ ...options, port });
  } catch (e) {
    if (e?.code !== "EADDRINUSE") throw e;
    console.log(`port ${port} is taken: using a free one`);
    server = await startServer({ ...options, port: 0 });
  }
  return { ...server, url: `${server.url}/`, sampleUrl: `${server.url}/data/sample/` };
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    setup();
    build();
    const asked = process.env.PORT;
    const port = asked === undefined || asked === "" ? DEFAULT_PORT : Number(asked);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not '${asked}'`);
    const server = await serveExplorer({ port });
    console.log(`\nzom explorer: ${server.url}`);
    console.log(`  the sample hierarchy (tests/fixtures/sample) is at ${server.sampleUrl}; open others with ${server.url}?url=URL`);
    console.log("  Ctrl-C stops the server");
    const stop = () => server.close().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
