// zarrita's src/extension/define-array.js, as the tests import it.
export { defineArrayExtension } from "zom/zarrita";
