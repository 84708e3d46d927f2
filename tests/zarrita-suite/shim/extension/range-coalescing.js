// zarrita's src/extension/range-coalescing.js, as the tests import it.
export { withRangeCoalescing } from "zom/zarrita";
