// zarrita's src/extension/consolidation.js, as the tests import it.
export { withConsolidatedMetadata, withMaybeConsolidatedMetadata } from "zom/zarrita";
