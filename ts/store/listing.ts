/**
 * Reading directory listings: S3 ListObjectsV2 XML bodies and HTML directory indexes
 * (`python -m http.server`, nginx autoindex, Apache), without a DOM (the code runs in Node too).
 * @module
 */

/** One page of a ListObjectsV2 answer. */
export interface S3Page {
  /** The `<Contents><Key>` values. */
  keys: string[];
  /** The `<CommonPrefixes><Prefix>` values. */
  prefixes: string[];
  /** `<IsTruncated>`. */
  truncated: boolean;
  /** `<NextContinuationToken>`, when present. */
  next: string | null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Replaces XML/HTML character references (named basics and numeric). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref] ?? whole;
  });
}

/** The text of every `<tag>…</tag>` in `xml` (no nesting of the same tag assumed). */
function elements(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "g");
  for (const m of xml.matchAll(re)) out.push(m[1] ?? "");
  return out;
}

/** Parses a ListObjectsV2 body; null when it is not a `<ListBucketResult>`. */
export function parseS3Listing(text: string): S3Page | null {
  const body = elements(text, "ListBucketResult")[0];
  if (body === undefined) return null;
  const keys: string[] = [];
  for (const contents of elements(body, "Contents")) {
    const key = elements(contents, "Key")[0];
    if (key !== undefined) keys.push(decodeEntities(key));
  }
  const prefixes: string[] = [];
  for (const common of elements(body, "CommonPrefixes")) {
    const prefix = elements(common, "Prefix")[0];
    if (prefix !== undefined) prefixes.push(decodeEntities(prefix));
  }
  const truncated = (elements(body, "IsTruncated")[0] ?? "").trim().toLowerCase() === "true";
  const token = elements(body, "NextContinuationToken")[0];
  return { keys, prefixes, truncated, next: token === undefined ? null : decodeEntities(token.trim()) };
}

/** Names directly below a directory: files and sub-directories (the latter ending in "/"). */
export interface DirectoryEntries {
  /** File names. */
  files: string[];
  /** Directory names, each ending in "/". */
  dirs: string[];
}

/**
 * The children an HTML directory index at `dirUrl` links to: every `<a href>` that resolves to
 * a name directly below `dirUrl` (same origin, no query or fragment). Parent links, sort links
 * (`?C=N;O=D`), links elsewhere and deeper links are skipped. Names are percent-decoded.
 */
export function parseHtmlIndex(html: string, dirUrl: string): DirectoryEntries {
  let base: URL;
  try {
    base = new URL(dirUrl);
  } catch {
    return { files: [], dirs: [] };
  }
  const dirPath = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  const files = new Set<string>();
  const dirs = new Set<string>();
  const re = /<a\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
  for (const m of html.matchAll(re)) {
    const raw = decodeEntities((m[1] ?? m[2] ?? m[3] ?? "").trim());
    if (raw === "" || raw.startsWith("?") || raw.startsWith("#")) continue;
    let target: URL;
    try {
      target = new URL(raw, new URL(dirPath, base));
    } catch {
      continue;
    }
    if (target.origin !== base.origin || target.search !== "" || target.hash !== "") continue;
    if (!target.pathname.startsWith(dirPath)) continue;
    const rest = target.pathname.slice(dirPath.length);
    const isDir = rest.endsWith("/");
    const segment = isDir ? rest.slice(0, -1) : rest;
    if (segment === "" || segment.includes("/")) continue;
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      continue;
    }
    if (name === "." || name === ".." || name.includes("/")) continue;
    (isDir ? dirs : files).add(isDir ? `${name}/` : name);
  }
  return { files: [...files].sort(), dirs: [...dirs].sort() };
}

/** True when a body looks like HTML (by Content-Type, else by its first characters). */
export function looksLikeHtml(contentType: string | null, text: string): boolean {
  if (contentType !== null && /html/i.test(contentType)) return true;
  if (contentType !== null && !/text\/plain|octet-stream/i.test(contentType)) return false;
  return /^\s*<(!doctype\s+html|html|head|body|pre|ul|table|h1)\b/i.test(text);
}

/**
 * Where a bucket's ListObjectsV2 endpoint may be for a store at `base` (an absolute URL whose
 * path is the store's root): the origin (virtual-hosted buckets, custom domains), then each
 * path prefix (path-style buckets, `https://host/bucket/…`). Each candidate pairs the listing URL
 * (ending in "/") with the key prefix of the store's root inside the bucket.
 */
export function s3Candidates(base: URL): { root: string; storePrefix: string }[] {
  const segments = base.pathname.split("/").filter((s) => s !== "");
  const out: { root: string; storePrefix: string }[] = [];
  for (let i = 0; i <= segments.length; i++) {
    const rootPath = segments.slice(0, i).map((s) => `${s}/`).join("");
    const inside = segments
      .slice(i)
      .map((s) => {
        try {
          return `${decodeURIComponent(s)}/`;
        } catch {
          return `${s}/`;
        }
      })
      .join("");
    out.push({ root: `${base.origin}/${rootPath}`, storePrefix: inside });
  }
  return out;
}
