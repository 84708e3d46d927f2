// zarrita's src/index.js, as the tests import it: all of zom/zarrita.
export * from "zom/zarrita";
