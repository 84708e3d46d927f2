// zarrita's src/hierarchy.js, as the tests import it.
export { Array, Group, Location, root } from "zom/zarrita";
