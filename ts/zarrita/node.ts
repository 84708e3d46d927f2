/**
 * "zom/zarrita" for Node: as ts/zarrita/index.ts, with zom's Node entry.
 * @module
 */
import "../node.js";

export * from "./exports.js";
