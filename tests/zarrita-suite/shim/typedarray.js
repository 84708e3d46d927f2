// zarrita's src/typedarray.js, as the tests import it.
export { BoolArray, ByteStringArray, UnicodeStringArray } from "zom/zarrita";
