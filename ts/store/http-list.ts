/**
 * `FetchStore.list`: children of a prefix from an S3 ListObjectsV2 endpoint (found by probing
 * where the bucket root may be, then following continuation tokens) or from an HTML directory
 * index.
 * @module
 */
import type { HttpContext } from "./http.js";
import { httpError, send } from "./http.js";
import type { S3Page } from "./listing-rules.js";
import { parseHtmlIndex, parseS3Listing, s3Candidates, s3PageUrl } from "./listing-rules.js";
import type { StoreListing } from "./readable.js";
import { sortedListing } from "./wire.js";

/** Where a store's S3 listing is: the bucket URL and the store root's key prefix in it. */
export interface S3Root {
  /** The bucket's URL, ending in "/" (the ListObjectsV2 endpoint). */
  root: string;
  /** The key prefix of the store's root inside the bucket ("" or "path/to/store/"). */
  storePrefix: string;
}

/** Pages followed at most (a guard against servers that never stop). */
const MAX_PAGES = 100_000;

/** One page, its names sorted into those directly below `full` (null: not a ListBucketResult). */
async function fetchPage(
  ctx: HttpContext,
  root: S3Root,
  full: string,
  token: string | null,
  signal: AbortSignal | undefined,
): Promise<{ page: S3Page | null; status: number; url: string }> {
  const url = await s3PageUrl(root.root, full, token);
  const ans = await send(ctx, { url, method: "GET", key: `/${full}`, signal });
  if (ans.status !== 200) return { page: null, status: ans.status, url };
  return { page: await parseS3Listing(ans.body, full), status: ans.status, url };
}

/**
 * Lists `prefix` (absolute, ending in "/") through ListObjectsV2. With `known` (a root that
 * answered before) a failure is an HttpError; without it each candidate root of `base` is
 * tried and null returned when none answers with a `<ListBucketResult>`.
 */
export async function listS3(
  ctx: HttpContext,
  known: S3Root | undefined,
  base: URL | null,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<{ root: S3Root; listing: StoreListing } | null> {
  const candidates = known ? [known] : base ? await s3Candidates(base) : [];
  for (const root of candidates) {
    const full = root.storePrefix + prefix.slice(1);
    let answer = await fetchPage(ctx, root, full, null, signal);
    if (answer.page === null) {
      if (known) throw httpError({ method: "GET", url: answer.url, key: prefix }, `HTTP ${answer.status}: no ListBucketResult`);
      continue;
    }
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    const seen = new Set<string>();
    for (let pages = 1; ; pages++) {
      const page: S3Page = answer.page;
      for (const name of page.keys) keys.add(prefix + name);
      for (const name of page.prefixes) prefixes.add(prefix + name);
      if (!page.truncated) break;
      const next = page.next;
      if (next === null || next === "" || seen.has(next) || pages >= MAX_PAGES) {
        throw httpError({ method: "GET", url: answer.url, key: prefix }, "S3 listing is truncated without a new continuation token");
      }
      seen.add(next);
      answer = await fetchPage(ctx, root, full, next, signal);
      if (answer.page === null) {
        throw httpError({ method: "GET", url: answer.url, key: prefix }, `HTTP ${answer.status}: no ListBucketResult`);
      }
    }
    return { root, listing: sortedListing(prefix, keys, prefixes) };
  }
  return null;
}

/**
 * Lists `prefix` from the HTML index at `url`: the listing, "missing" for a 404 (or what
 * `missing` says), null when the answer is not an HTML index.
 */
export async function listHtml(
  ctx: HttpContext,
  url: string,
  prefix: string,
  signal: AbortSignal | undefined,
  missing: (status: number) => boolean,
): Promise<StoreListing | "missing" | null> {
  const ans = await send(ctx, { url, method: "GET", key: prefix, signal });
  if (missing(ans.status)) return "missing";
  if (ans.status !== 200) return null;
  const index = await parseHtmlIndex(ans.body, ans.url, ans.headers.get("content-type"));
  if (index === null) return null;
  const { files, dirs } = index;
  return { keys: files.map((f) => prefix + f), prefixes: dirs.map((d) => prefix + d) };
}
