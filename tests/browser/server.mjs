// A static file server for the browser test: serves the repository root on 127.0.0.1 at a
// random port, read-only, nothing outside the root; with `isolated`, every page it serves is
// cross-origin isolated (COOP same-origin + COEP require-corp: SharedArrayBuffer can be
// posted to workers).

import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".map": "application/json",
};

/**
 * Starts the server; resolves to { url, close }.
 * @param {string} root directory to serve
 * @param {{isolated?: boolean}} [options]
 */
export function serve(root, options = {}) {
  const isolation = options.isolated ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } : {};
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
      const file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      const info = await stat(file);
      const target = info.isDirectory() ? join(file, "index.html") : file;
      const body = await readFile(target);
      res.writeHead(200, {
        "content-type": TYPES[extname(target)] ?? "application/octet-stream",
        "cache-control": "no-store",
        ...isolation,
      });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (e) {
      res.writeHead(e?.code === "ENOENT" || e?.code === "ENOTDIR" ? 404 : 500, { "content-type": "text/plain" });
      res.end(String(e?.message ?? e));
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => server.close(() => done(undefined))),
      });
    });
  });
}
