/**
 * Reading directory listings — S3 ListObjectsV2 XML bodies and HTML directory indexes
 * (`python -m http.server`, nginx autoindex, Apache) — and the URLs involved, through the
 * WebAssembly module (`src/store/wire/`, the rules the Rust `HttpStore` follows too): the
 * validator's when it has started, else the listing part (`src/wasm/listing.rs`), loaded by the
 * first listing, since a viewer's open and reads list nothing.
 * @module
 */

import { KEY_VERBATIM } from "../generated/boundary.js";
import { lazyPart } from "../parts/carried.js";
import { startedWith, whenShared } from "../parts/shared.js";
import { converting } from "../shared/errors.js";
import type * as Glue from "../zom_listing.js";
import { wire } from "./wire.js";

/** The listing rules' exports. */
type ListingGlue = Pick<typeof Glue, "httpS3Page" | "httpS3PageUrl" | "httpHtmlIndex" | "httpS3Candidates">;

const part = /* @__PURE__ */ lazyPart(() => Promise.all([import("../zom_listing.js"), import("../zom_listing_inline.js")]));

/** Calls a listing rule: through a started part that has the rules (the validator), else through the listing part, loaded once. */
async function rule<T>(f: (raw: ListingGlue) => unknown): Promise<T> {
  await whenShared();
  const raw = startedWith<ListingGlue>("httpS3Page") ?? (await part());
  return converting<T>(() => f(raw));
}

/** One page of a ListObjectsV2 answer. */
export interface S3Page {
  /** The `<Contents><Key>` values (with `full`: the names of values directly below it). */
  keys: string[];
  /** The `<CommonPrefixes><Prefix>` values (with `full`: the names of prefixes directly below it, ending in "/"). */
  prefixes: string[];
  /** `<IsTruncated>`. */
  truncated: boolean;
  /** `<NextContinuationToken>`, when present. */
  next: string | null;
}

/**
 * Parses a ListObjectsV2 body (text or bytes); null when it is not a `<ListBucketResult>`.
 * With `full`, the key prefix listed, the page's keys and common prefixes are sorted into the
 * names directly below it: values, and prefixes ending in "/" (also the deeper keys of a
 * server that ignores the delimiter).
 */
export function parseS3Listing(body: string | Uint8Array, full?: string): Promise<S3Page | null> {
  return rule((raw) => raw.httpS3Page(body, full));
}

/** The URL of a ListObjectsV2 page: `root` ends in "/", `full` is the key prefix listed. */
export function s3PageUrl(root: string, full: string, token: string | null): Promise<string> {
  return rule((raw) => raw.httpS3PageUrl(root, full, token ?? undefined));
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
 * With `contentType` (the header's value, null when absent) a body that does not look like
 * HTML gives null.
 */
export function parseHtmlIndex(html: string | Uint8Array, dirUrl: string): Promise<DirectoryEntries>;
export function parseHtmlIndex(html: string | Uint8Array, dirUrl: string, contentType: string | null): Promise<DirectoryEntries | null>;
export function parseHtmlIndex(html: string | Uint8Array, dirUrl: string, contentType?: string | null): Promise<DirectoryEntries | null> {
  return rule((raw) => raw.httpHtmlIndex(html, dirUrl, contentType));
}

/**
 * Where a bucket's ListObjectsV2 endpoint may be for a store at `base` (an absolute URL whose
 * path is the store's root): the origin (virtual-hosted buckets, custom domains), then each
 * path prefix (path-style buckets, `https://host/bucket/…`). Each candidate pairs the listing URL
 * (ending in "/") with the key prefix of the store's root inside the bucket.
 */
export function s3Candidates(base: URL): Promise<{ root: string; storePrefix: string }[]> {
  return rule((raw) => raw.httpS3Candidates(base.origin, base.pathname));
}

/**
 * The URL path of a store key given without its leading "/": each segment percent-encoded as
 * `encodeURIComponent` does. A key the encoding leaves as it is (`KEY_VERBATIM`, printed from
 * the core's rule) needs no module, so a request can go out while the module compiles.
 */
export function encodeKey(key: string): string {
  if (KEY_VERBATIM.test(key)) return key;
  return wire((raw) => raw.httpEncodeKey(key));
}
