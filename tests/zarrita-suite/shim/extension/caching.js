// zarrita's src/extension/caching.js, as the tests import it.
export { withByteCaching } from "zom/zarrita";
