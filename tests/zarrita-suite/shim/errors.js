// zarrita's src/errors.js, as the tests import it: zom/zarrita's errors.
export { NotFoundError, isZarritaError } from "zom/zarrita";
