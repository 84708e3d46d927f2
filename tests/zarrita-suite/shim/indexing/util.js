// zarrita's src/indexing/util.js: `range` is a helper of the tests themselves (they build
// expected values with it), not what they test, so it stays zarrita's own; `slice` is zom's.

export { slice } from "zom/zarrita";
export { range } from "../../node_modules/zarrita/dist/src/indexing/util.js";
