// Only the standard plugins: node-resolve (browser builds) and terser. The output is a
// directory (rollup's form for code that splits): zom's codec parts are dynamic imports, each
// a file of its own next to main.js.
import { nodeResolve } from "@rollup/plugin-node-resolve";
import terser from "@rollup/plugin-terser";

export default {
  input: "src/main.js",
  output: { dir: "dist", format: "es" },
  plugins: [nodeResolve({ browser: true }), terser()],
};
