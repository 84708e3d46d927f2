// `node --import ./alias.mjs …`: Node's counterpart of a bundler alias or an import map —
// every `import … from "zarrita"`, a library's included, loads zom/zarrita (the built package's
// Node entry) instead.
import { register } from "node:module";

register("./alias-hooks.mjs", import.meta.url);
