// Only the standard plugins: node-resolve (browser builds) and terser.
import { nodeResolve } from "@rollup/plugin-node-resolve";
import terser from "@rollup/plugin-terser";

export default {
  input: "src/main.js",
  output: { file: "dist/main.js", format: "es" },
  plugins: [nodeResolve({ browser: true }), terser()],
};
