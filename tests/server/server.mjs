// A real HTTP server for the store tests and the benches: serves the files under a root
// directory on 127.0.0.1 (random port by default), with byte ranges, CORS, request counters and
// switchable misbehaviours that real servers, CDNs and object stores show.
//
//   import { startServer } from "../server/server.mjs";
//   const server = await startServer({ root, latencyMs: 20, s3Listing: true });
//   ... fetch(`${server.url}/v3/zarr.json`) ...; server.stats.requests; await server.close();
//
//   node tests/server/server.mjs DIR [--port N] [--latency MS] [--html] [--s3] [--max-keys N]
//        [--ignore-range] [--refuse-suffix[=400|416|501|ignore]] [--forbidden-for-missing]
//        [--fail-every-other] [--retry-after S] [--truncate] [--wrong-content-range]
//        [--mount /prefix/=DIR] [--index-html]
//        [--redirect[=301|302|307]] [--stall=headers|body] [--stall-match S] [--spa-fallback]
//        [--html-match S] [--compress]
//
// Behaviour (every mode off by default; modes combine):
// - GET/HEAD of a file: 200 with Content-Length; `Range: bytes=a-b`, `bytes=a-` and the suffix
//   form `bytes=-n` → 206 with Content-Range (an end past the file is clamped); a start at or
//   past the end, or `bytes=-0` → 416 with `Content-Range: bytes */size`. A Range header this
//   server does not understand (several ranges, a > b, not bytes) is ignored (200, RFC 9110).
// - A missing file → 404 (403 with `forbiddenForMissing`, as S3/CloudFront answer when listing
//   is not allowed). Directories are not files: 404 unless `htmlIndex`.
// - Every response carries CORS headers (any origin; Range allowed; Content-Range,
//   Content-Length, Retry-After exposed); OPTIONS preflights → 204 (not counted as requests).
// Modes:
// - latencyMs: each response waits this long before it is produced (setLatency(ms) changes it).
// - ignoreRange: Range headers are ignored; every GET → 200 with the whole file.
// - refuseSuffix: a suffix range (`bytes=-n`) is refused the way some servers and CORS proxies
//   do: `true` or 400 → 400 Bad Request; 416 → 416 with `bytes */size`; 501 → 501;
//   "ignore" → 200 with the whole file. Prefix ranges keep working.
// - forbiddenForMissing: 403 instead of 404.
// - failEveryOther: every second request (the 2nd, 4th, …; OPTIONS not counted) → 503, with
//   `Retry-After: <retryAfter>` when retryAfter (seconds) is set.
// - s3Listing: `GET /?list-type=2&prefix=P&delimiter=/[&continuation-token=T][&max-keys=N]`
//   → an S3 ListObjectsV2 XML body for the files under the root (keys without a leading "/").
//   Pages hold at most min(max-keys, maxKeys) entries (keys and common prefixes together).
// - htmlIndex: a GET of a directory URL ending in "/" → an HTML listing like
//   `python -m http.server` (`<a href="name">name</a>`, directories with a trailing "/"); a
//   directory URL without the "/" → 301 to the URL with it.
// - truncate: GET bodies of files announce their full Content-Length but the connection is cut
//   after half of the bytes.
// - wrongContentRange: 206 answers carry the right bytes but a Content-Range shifted by one.
// - mounts: `{ "/data/": dir, … }` serves other directories under URL prefixes (ending in "/");
//   the longest matching prefix wins, everything else comes from root. The S3 listing at "/"
//   sees the mounted directories under their prefixes (keys "data/…").
// - indexHtml: a GET of a directory URL ending in "/" that holds an index.html serves it (before
//   htmlIndex), as static web servers do.
// - redirect: 301, 302 or 307 (`true`: 302): every GET/HEAD of a file or a listing is answered
//   with a redirect to the same path under `/__moved` (query kept), where it is served; the
//   redirected request itself behaves as without the mode.
// - stall: the response of a file whose path contains `stallMatch` (default: every file)
//   never completes: "headers" → nothing is ever sent; "body" → the headers and the first half
//   of the body, then silence (the connection stays open).
// - spaFallback: a missing file → 200 with an HTML page (text/html), as single-page-app hosts
//   answer every unknown path with their index.html.
// - htmlMatch: files whose path contains this string → 200 with an HTML page instead of their
//   bytes (a captive portal, a login page, an error page sent with status 200).
// - routes: `{ "/path": (req) => answer }` answers GETs/HEADs of that exact path (before
//   redirects and files) with what the function returns: `{ status, headers, body }`, where
//   body is a string, a Buffer, or an iterable of Buffers written in turn with backpressure
//   (no Content-Length unless the headers give one; writing stops when the client goes away).
//   For hostile answers no file can give: bombs, endless bodies, redirect loops.
// - compress: a whole file under root (never a mount, never an answer to a Range request) goes
//   compressed as static hosts send assets: brotli when the request's Accept-Encoding names br,
//   else gzip when it names gzip, with Content-Encoding and `Vary: Accept-Encoding`; each file
//   is compressed once (brotli quality 11, gzip level 9), as hosts keep compressed copies.
// - validators: files are answered with `ETag` (nginx's form: `"<mtime hex>-<size hex>"`) and
//   `Last-Modified` (the file's mtime), as static hosts and object stores send them (off by
//   default: browsers cache what carries a Last-Modified heuristically, and the benches
//   measure cold reads).
// stats: requests (not OPTIONS), bytes (body bytes written), inFlight, maxInFlight, preflights,
// log ([{ method, url, range, status, start, end }], start and end the request's arrival and its
// answer's end by performance.now()); resetStats() zeroes them.

import { open, readdir, readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync } from "node:zlib";

const TYPES = {
  ".json": "application/json",
  ".zarray": "application/json",
  ".zgroup": "application/json",
  ".zattrs": "application/json",
  ".zmetadata": "application/json",
  ".html": "text/html; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** Where redirect mode sends every request (the path follows). */
const MOVED = "/__moved";

/** The page spaFallback and htmlMatch answer with. */
const SPA_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>App</title><script type="module" src="/assets/index.js"></script></head>
<body><div id="root"></div></body>
</html>
`;

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Content-Range, Content-Length, Content-Type, Accept-Ranges, Retry-After, ETag",
};

const xmlEscape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const htmlEscape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Parses a Range header against a file size.
 * @returns {{kind: "none"} | {kind: "range", start: number, end: number, suffix: boolean} |
 *   {kind: "unsatisfiable", suffix: boolean}}
 */
export function parseRange(header, size) {
  if (typeof header !== "string") return { kind: "none" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "none" };
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: "unsatisfiable", suffix: true };
    return { kind: "range", start: Math.max(0, size - n), end: size - 1, suffix: true };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Number(m[2]);
  if (end < start) return { kind: "none" };
  if (start >= size) return { kind: "unsatisfiable", suffix: false };
  return { kind: "range", start, end: Math.min(end, size - 1), suffix: false };
}

/** Every file under `dir`, as "/"-separated paths relative to it, sorted. */
async function allFiles(dir) {
  const out = [];
  async function visit(d) {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) out.push(relative(dir, full).split(sep).join("/"));
    }
  }
  await visit(dir);
  return out.sort();
}

/**
 * The keys a listing of `prefix` has to look at: with the "/" delimiter only the directory the
 * prefix points into (sub-directories as "name/", which the delimiter turns into common
 * prefixes), else every file below it.
 */
async function candidateKeys(resolvePath, prefix, delimiter) {
  const dirRel = prefix.slice(0, prefix.lastIndexOf("/") + 1);
  const dir = resolvePath(`/${dirRel}`);
  if (dir === null) return [];
  try {
    if (delimiter !== "/") return (await allFiles(dir)).map((k) => dirRel + k);
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isFile() || e.isDirectory()).map((e) => dirRel + e.name + (e.isDirectory() ? "/" : ""));
  } catch {
    return [];
  }
}

/** The ListObjectsV2 answer for the files under root. */
async function s3List(resolvePath, params, maxKeysCap) {
  const prefix = params.get("prefix") ?? "";
  const delimiter = params.get("delimiter") ?? "";
  const token = params.get("continuation-token");
  const startAfter = params.get("start-after") ?? "";
  const askedMax = params.has("max-keys") ? Number(params.get("max-keys")) : 1000;
  if (!Number.isInteger(askedMax) || askedMax < 0) return { status: 400, body: s3Error("InvalidArgument", "max-keys") };
  const maxKeys = Math.min(askedMax, maxKeysCap);
  let after = startAfter;
  if (token !== null) {
    after = Buffer.from(token, "base64url").toString("utf8");
    if (!after || Buffer.from(after, "utf8").toString("base64url") !== token) {
      return { status: 400, body: s3Error("InvalidArgument", "The continuation token provided is incorrect") };
    }
  }
  const entries = []; // [name, isPrefix], sorted, unique
  const seen = new Set();
  for (const key of await candidateKeys(resolvePath, prefix, delimiter)) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    const cut = delimiter ? rest.indexOf(delimiter) : -1;
    const name = cut >= 0 ? prefix + rest.slice(0, cut + delimiter.length) : key;
    if (seen.has(name)) continue;
    seen.add(name);
    entries.push([name, cut >= 0]);
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const rest = entries.filter(([name]) => name > after);
  const page = rest.slice(0, maxKeys);
  const truncated = rest.length > page.length;
  const last = page.at(-1)?.[0];
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
    `<Name>bucket</Name><Prefix>${xmlEscape(prefix)}</Prefix>`,
    delimiter ? `<Delimiter>${xmlEscape(delimiter)}</Delimiter>` : "",
    `<MaxKeys>${maxKeys}</MaxKeys><KeyCount>${page.length}</KeyCount>`,
    token !== null ? `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>` : "",
    `<IsTruncated>${truncated}</IsTruncated>`,
    truncated && last !== undefined
      ? `<NextContinuationToken>${Buffer.from(last, "utf8").toString("base64url")}</NextContinuationToken>`
      : "",
  ];
  for (const [name, isPrefix] of page) {
    lines.push(
      isPrefix
        ? `<CommonPrefixes><Prefix>${xmlEscape(name)}</Prefix></CommonPrefixes>`
        : `<Contents><Key>${xmlEscape(name)}</Key><StorageClass>STANDARD</StorageClass></Contents>`,
    );
  }
  lines.push(`</ListBucketResult>`);
  return { status: 200, body: lines.filter(Boolean).join("\n") };
}

function s3Error(code, message) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`;
}

/** A directory listing in the shape `python -m http.server` writes. */
async function htmlListing(dir, urlPath) {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const title = `Directory listing for ${htmlEscape(urlPath)}`;
  const items = names.map(
    (n) => `<li><a href="${encodeURIComponent(n.replace(/\/$/, ""))}${n.endsWith("/") ? "/" : ""}">${htmlEscape(n)}</a></li>`,
  );
  return [
    `<!DOCTYPE HTML>`,
    `<html lang="en">`,
    `<head>`,
    `<meta charset="utf-8">`,
    `<title>${title}</title>`,
    `</head>`,
    `<body>`,
    `<h1>${title}</h1>`,
    `<hr>`,
    `<ul>`,
    ...items,
    `</ul>`,
    `<hr>`,
    `</body>`,
    `</html>`,
    ``,
  ].join("\n");
}

/**
 * Starts a server; resolves when it listens.
 * @param {object} options
 * @param {string} options.root directory to serve (nothing outside it is reachable)
 * @param {number} [options.port] 0 (default) for a random free port
 * @param {string} [options.host] default "127.0.0.1"
 * @param {number} [options.latencyMs]
 * @param {boolean} [options.ignoreRange]
 * @param {boolean | 400 | 416 | 501 | "ignore"} [options.refuseSuffix]
 * @param {boolean} [options.forbiddenForMissing]
 * @param {boolean} [options.failEveryOther]
 * @param {number} [options.retryAfter] seconds, sent with failEveryOther's 503s
 * @param {boolean} [options.s3Listing]
 * @param {number} [options.maxKeys] the most entries in one listing page (default 1000)
 * @param {boolean} [options.htmlIndex]
 * @param {boolean} [options.truncate]
 * @param {boolean} [options.wrongContentRange]
 * @param {Record<string, string>} [options.mounts] URL prefix ("/data/") → directory
 * @param {boolean} [options.indexHtml]
 * @param {boolean | 301 | 302 | 307} [options.redirect]
 * @param {"headers" | "body"} [options.stall]
 * @param {string} [options.stallMatch]
 * @param {boolean} [options.spaFallback]
 * @param {string} [options.htmlMatch]
 * @param {boolean} [options.compress]
 * @param {Record<string, (req: import("node:http").IncomingMessage) => {status: number, headers?: object, body?: string | Buffer | Iterable<Buffer>}>} [options.routes]
 * @returns {Promise<{url: string, close: () => Promise<void>, stats: object, resetStats: () => void}>}
 */
/** Bytes `start..end` of `file`, read alone (fewer at its end). */
async function readPart(file, start, end) {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * How many round trips a client made one after another in a server's `log`: the longest chain
 * of requests each of which arrived after the one before it was answered. Requests a client
 * sends together count once; it depends on no clock's speed, only on the order of events.
 */
export function roundTrips(log) {
  const entries = log.filter((e) => e.end !== null).sort((a, b) => a.start - b.start);
  const chain = [];
  entries.forEach((e, i) => {
    let before = 0;
    for (let j = 0; j < i; j++) if (entries[j].end <= e.start) before = Math.max(before, chain[j]);
    chain.push(before + 1);
  });
  return Math.max(0, ...chain);
}

export async function startServer(options) {
  const o = { port: 0, host: "127.0.0.1", latencyMs: 0, maxKeys: 1000, ...options };
  const root = resolve(o.root);
  // [URL prefix, directory], longest prefix first; "/" → root last.
  const mounts = [
    ...Object.entries(o.mounts ?? {}).map(([prefix, dir]) => [prefix.endsWith("/") ? prefix : `${prefix}/`, resolve(dir)]),
    ["/", root],
  ].sort((a, b) => b[0].length - a[0].length);
  /** The file a decoded URL path names, or null when it is outside every served directory. */
  const resolvePath = (path) => {
    const [prefix, dir] = mounts.find(([p]) => path.startsWith(p)) ?? ["/", root];
    const file = resolve(dir, `./${path.slice(prefix.length)}`);
    return path.includes("\0") || (file !== dir && !file.startsWith(dir + sep)) ? null : file;
  };
  const stats = { requests: 0, bytes: 0, inFlight: 0, maxInFlight: 0, preflights: 0, log: [] };
  const resetStats = () => {
    Object.assign(stats, { requests: 0, bytes: 0, maxInFlight: stats.inFlight, preflights: 0 });
    stats.log.length = 0;
  };
  let counter = 0; // for failEveryOther
  /** Compressed copies of files (compress mode), by file, modification time and encoding. */
  const compressed = new Map();
  /** The encoding and bytes `file` goes with to a request that accepts `accept`, or null. */
  const compressedCopy = async (file, info, accept = "") => {
    const encoding = /\bbr\b/.test(accept) ? "br" : /\bgzip\b/.test(accept) ? "gzip" : null;
    if (encoding === null) return null;
    const key = `${encoding}:${info.mtimeMs}:${file}`;
    if (!compressed.has(key)) {
      const data = await readFile(file);
      compressed.set(key, encoding === "br" ? brotliCompressSync(data) : gzipSync(data, { level: 9 }));
    }
    return { encoding, body: compressed.get(key) };
  };

  async function handle(req, res, entry) {
    const send = (status, headers, body) => {
      entry.status = status;
      const buf = body === undefined ? undefined : Buffer.from(body);
      res.writeHead(status, { ...CORS, ...headers, ...(buf ? { "content-length": buf.length } : {}) });
      if (buf && req.method !== "HEAD") {
        stats.bytes += buf.length;
        res.end(buf);
      } else res.end();
    };
    const notFound = () =>
      o.spaFallback
        ? send(200, { "content-type": "text/html; charset=utf-8" }, SPA_PAGE)
        : o.forbiddenForMissing
          ? send(403, { "content-type": "application/xml" }, s3Error("AccessDenied", "Access Denied"))
          : send(404, { "content-type": "text/plain" }, "not found");

    if (req.method !== "GET" && req.method !== "HEAD") return send(405, { allow: "GET, HEAD, OPTIONS" }, "method not allowed");
    counter += 1;
    if (o.failEveryOther && counter % 2 === 0) {
      return send(
        503,
        { "content-type": "text/plain", ...(o.retryAfter !== undefined ? { "retry-after": String(o.retryAfter) } : {}) },
        "try again",
      );
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = o.routes?.[url.pathname];
    if (route) return answerRoute(req, res, entry, route(req));
    if (o.redirect) {
      if (!url.pathname.startsWith(MOVED)) {
        const status = o.redirect === true ? 302 : o.redirect;
        return send(status, { location: `${MOVED}${url.pathname}${url.search}` }, "");
      }
      url.pathname = url.pathname.slice(MOVED.length) || "/";
    }
    if (o.s3Listing && url.pathname === "/" && url.searchParams.get("list-type") === "2") {
      const { status, body } = await s3List(resolvePath, url.searchParams, o.maxKeys);
      return send(status, { "content-type": "application/xml" }, body);
    }
    let path;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return send(400, { "content-type": "text/plain" }, "bad path");
    }
    const file = resolvePath(path);
    if (file === null) return notFound();
    let info;
    try {
      info = await stat(file);
    } catch {
      return notFound();
    }
    if (info.isDirectory() && o.indexHtml && url.pathname.endsWith("/")) {
      const index = join(file, "index.html");
      const page = await readFile(index).catch(() => null);
      if (page !== null) return send(200, { "content-type": TYPES[".html"], "cache-control": "no-cache" }, page);
    }
    if (info.isDirectory()) {
      if (!o.htmlIndex) return notFound();
      if (!url.pathname.endsWith("/")) return send(301, { location: `${url.pathname}/${url.search}` }, "");
      return send(200, { "content-type": "text/html; charset=utf-8" }, await htmlListing(file, path));
    }
    if (!info.isFile() || path.endsWith("/")) return notFound();
    if (o.htmlMatch && path.includes(o.htmlMatch)) return send(200, { "content-type": "text/html; charset=utf-8" }, SPA_PAGE);
    // A range is read from the file alone, as object stores and static servers do: a tile of
    // a large shard costs the server what the tile's bytes cost, not the whole shard.
    const size = info.size;
    if (o.stall && path.includes(o.stallMatch ?? "")) {
      const data = await readFile(file);
      entry.status = 200;
      if (o.stall === "headers") return; // nothing, ever
      res.writeHead(200, { ...CORS, "content-type": "application/octet-stream", "content-length": data.length });
      res.write(data.subarray(0, Math.floor(data.length / 2)));
      return; // the rest never comes
    }
    const type = TYPES[extname(file)] ?? (file.endsWith("zarr.json") ? "application/json" : "application/octet-stream");
    const base = { "content-type": type, "accept-ranges": o.ignoreRange ? "none" : "bytes", ...(o.validators ? validatorsOf(info) : {}) };
    const range = o.ignoreRange ? { kind: "none" } : parseRange(req.headers.range, size);
    const whole = async () => {
      const packed =
        o.compress && mounts.find(([p]) => path.startsWith(p))[0] === "/" && req.headers.range === undefined
          ? await compressedCopy(file, info, req.headers["accept-encoding"])
          : null;
      if (packed) return send(200, { ...base, "content-encoding": packed.encoding, vary: "Accept-Encoding" }, packed.body);
      const data = await readFile(file);
      if (o.truncate && req.method === "GET" && data.length > 1) {
        entry.status = 200;
        res.writeHead(200, { ...CORS, ...base, "content-length": data.length });
        const half = data.subarray(0, Math.floor(data.length / 2));
        stats.bytes += half.length;
        res.write(half, () => res.destroy());
        return;
      }
      send(200, base, data);
    };
    if (range.kind !== "none" && range.suffix && o.refuseSuffix) {
      const how = o.refuseSuffix === true ? 400 : o.refuseSuffix;
      if (how === "ignore") return whole();
      if (how === 416) return send(416, { "content-range": `bytes */${size}` }, "");
      return send(how, { "content-type": "text/plain" }, "suffix ranges are not supported");
    }
    if (range.kind === "unsatisfiable") return send(416, { "content-range": `bytes */${size}` }, "");
    if (range.kind === "none") return whole();
    const shift = o.wrongContentRange ? 1 : 0;
    const contentRange = `bytes ${range.start + shift}-${range.end + shift}/${size}`;
    return send(206, { ...base, "content-range": contentRange }, await readPart(file, range.start, range.end + 1));
  }

  /** The `ETag` and `Last-Modified` of a file, as nginx makes them. */
  function validatorsOf(info) {
    const mtime = Math.floor(info.mtimeMs / 1000);
    return { etag: `"${mtime.toString(16)}-${info.size.toString(16)}"`, "last-modified": new Date(mtime * 1000).toUTCString() };
  }

  /** Writes a route's answer (see `routes`). */
  async function answerRoute(req, res, entry, { status, headers = {}, body = "" }) {
    entry.status = status;
    if (typeof body === "string" || Buffer.isBuffer(body)) {
      const buf = Buffer.from(body);
      res.writeHead(status, { ...CORS, "content-length": buf.length, ...headers });
      if (req.method !== "HEAD") stats.bytes += buf.length;
      res.end(req.method === "HEAD" ? undefined : buf);
      return;
    }
    res.writeHead(status, { ...CORS, ...headers });
    if (req.method === "HEAD") return res.end();
    for (const part of body) {
      if (res.destroyed) return;
      stats.bytes += part.length;
      if (!res.write(part)) {
        await new Promise((done) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            done(undefined);
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
    if (!res.destroyed) res.end();
  }

  const server = createServer((req, res) => {
    if (req.method === "OPTIONS") {
      stats.preflights += 1;
      res.writeHead(204, {
        ...CORS,
        "access-control-allow-methods": "GET, HEAD, OPTIONS",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "Range",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    stats.requests += 1;
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    const entry = { method: req.method, url: req.url, range: req.headers.range ?? null, status: 0, start: performance.now(), end: null };
    stats.log.push(entry);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        entry.end = performance.now();
        stats.inFlight -= 1;
      }
    };
    res.on("finish", finish);
    res.on("close", finish);
    const go = () =>
      handle(req, res, entry).catch((e) => {
        if (!res.headersSent) {
          res.writeHead(500, { ...CORS, "content-type": "text/plain" });
          res.end(String(e?.message ?? e));
        } else res.destroy();
      });
    if (o.latencyMs > 0) setTimeout(() => (res.destroyed ? finish() : go()), o.latencyMs);
    else go();
  });
  server.keepAliveTimeout = 1000;

  await new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(o.port, o.host, () => done(undefined));
  });
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://${o.host}:${port}`,
    stats,
    resetStats,
    /** Sets latencyMs for the requests that arrive from now on. */
    setLatency: (ms) => {
      o.latencyMs = ms;
    },
    close: () =>
      new Promise((done) => {
        server.close(() => done(undefined));
        server.closeAllConnections();
      }),
  };
}

function cli(argv) {
  const [dir, ...rest] = argv;
  if (!dir || dir.startsWith("--")) {
    console.error("usage: node tests/server/server.mjs DIR [--port N] [--latency MS] [--html] [--s3] [--max-keys N] ...");
    process.exit(2);
  }
  const options = { root: dir, htmlIndex: false };
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].split("=", 2);
    const value = () => inline ?? rest[++i];
    switch (flag) {
      case "--port":
        options.port = Number(value());
        break;
      case "--host":
        options.host = value();
        break;
      case "--latency":
        options.latencyMs = Number(value());
        break;
      case "--html":
        options.htmlIndex = true;
        break;
      case "--s3":
        options.s3Listing = true;
        break;
      case "--max-keys":
        options.maxKeys = Number(value());
        break;
      case "--ignore-range":
        options.ignoreRange = true;
        break;
      case "--refuse-suffix": {
        const v = inline;
        options.refuseSuffix = v === undefined ? true : v === "ignore" ? "ignore" : Number(v);
        break;
      }
      case "--forbidden-for-missing":
        options.forbiddenForMissing = true;
        break;
      case "--fail-every-other":
        options.failEveryOther = true;
        break;
      case "--retry-after":
        options.retryAfter = Number(value());
        break;
      case "--truncate":
        options.truncate = true;
        break;
      case "--wrong-content-range":
        options.wrongContentRange = true;
        break;
      case "--index-html":
        options.indexHtml = true;
        break;
      case "--mount": {
        const [prefix, target] = value().split("=", 2);
        options.mounts = { ...options.mounts, [prefix]: target };
        break;
      }
      case "--redirect":
        options.redirect = inline === undefined ? true : Number(inline);
        break;
      case "--stall":
        options.stall = value();
        break;
      case "--stall-match":
        options.stallMatch = value();
        break;
      case "--spa-fallback":
        options.spaFallback = true;
        break;
      case "--html-match":
        options.htmlMatch = value();
        break;
      case "--compress":
        options.compress = true;
        break;
      default:
        console.error(`unknown option ${rest[i]}`);
        process.exit(2);
    }
  }
  startServer(options).then((s) => {
    console.log(`serving ${resolve(dir)} at ${s.url}/`);
    const report = () => console.log(`requests ${s.stats.requests}, bytes ${s.stats.bytes}`);
    process.on("SIGINT", () => {
      report();
      s.close().then(() => process.exit(0));
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) cli(process.argv.slice(2));
