// zarrita's src/open.js, as the tests import it.
export { open } from "zom/zarrita";
