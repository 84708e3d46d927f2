// Runs a server bundle the way an SSR server does, where browser globals must not be
// touched: defines globalThis.window and globalThis.document as getters that throw (and note
// who touched them), imports the bundle, awaits its render(url) and prints one line of JSON:
// {result, touched} (touched: the stacks of every access).
//
//   node shared/ssr-run.mjs BUNDLE URL
import { pathToFileURL } from "node:url";

const [bundle, url] = process.argv.slice(2);
const touched = [];
for (const name of ["window", "document"]) {
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      const e = new Error(`server code touched globalThis.${name}`);
      touched.push(String(e.stack));
      throw e;
    },
  });
}

let result;
try {
  const mod = await import(pathToFileURL(bundle).href);
  result = await mod.render(url);
} catch (e) {
  result = { fatal: String(e?.stack ?? e) };
}
process.stdout.write(`${JSON.stringify({ result, touched })}\n`);
