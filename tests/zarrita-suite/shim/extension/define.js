// zarrita's src/extension/define.js, as the tests import it.
export { defineStoreExtension } from "zom/zarrita";
