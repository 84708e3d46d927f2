/**
 * "zom/zarrita" for browsers and workers: zarrita 0.7's API (`open`, `get`, `Array`,
 * `FetchStore`, …) over zom's core, so that `resolve.alias: { zarrita: "zom/zarrita" }` moves
 * a zarrita viewer onto zom. Loads zom's browser entry (the WebAssembly it carries).
 * @module
 */
import "../index.js";

export * from "./exports.js";
