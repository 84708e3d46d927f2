/**
 * Failures as readable boxes: what went wrong in words, the store key it happened at, and a
 * hint for the usual causes (CORS, 403, 404, bad JSON, unknown codec).
 * @module
 */
import { h } from "./dom.js";
import type { Failure } from "./protocol.js";

/** A likely cause and what to do, for the failures people meet most. */
export function hint(f: Failure): string | null {
  const m = f.message;
  if (/failed to fetch|networkerror|load failed|network error|cors/i.test(m)) {
    return "The browser could not read the response: the server may be down, or it does not allow cross-origin requests (it must send Access-Control-Allow-Origin, and allow the Range header).";
  }
  if (/\b403\b/.test(m)) return "The server refused access (403). Buckets without public listing answer 403 for missing keys too.";
  if (f.code === "NotFound")
    return "There is no Zarr node here: check the URL (it must point at the hierarchy's root, where zarr.json or .zgroup is).";
  if (f.code === "InvalidMetadata")
    return "The metadata document is broken: not JSON, or not a Zarr document zom can read (the Validation section lists what the spec says is wrong).";
  if (f.code === "UnknownCodec" || f.code === "UnsupportedExtension")
    return "zom does not know this codec or extension, so the values cannot be decoded; the metadata is still shown.";
  return null;
}

/** A failure box: "code: message", the store key and node, and the hint. */
export function failureBox(f: Failure, title?: string): HTMLElement {
  const tip = hint(f);
  return h(
    "div.failure",
    { role: "alert", dataset: { code: f.code } },
    h("div.failure-title", null, title ?? "Could not read this node"),
    h("div.failure-message", null, h("b", null, f.code), ": ", f.message),
    f.key !== null && h("div.failure-where", null, "store key ", h("code.key", null, f.key)),
    f.path !== null && f.path !== "" && h("div.failure-where", null, "node ", h("code", null, `/${f.path}`)),
    tip !== null && h("div.failure-hint", null, tip),
  );
}
