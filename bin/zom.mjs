#!/usr/bin/env node
// The `zom` command (npx zom …): the CLI lives in ts/cli/, built into pkg/cli/.
import { main } from "../pkg/cli/main.js";

process.stdout.on("error", (e) => {
  // `zom get … | head`: the reader left; stop quietly.
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2));
