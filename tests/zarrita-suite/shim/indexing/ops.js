// zarrita's src/indexing/ops.js, as the tests import it (zom/zarrita reads only: no set).
export { get } from "zom/zarrita";
