// Debian's Chromium for the browser tests, headless, in a fresh profile directory (playwright
// passes it as --user-data-dir). The flags keep it off the network this machine does not have.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Debian's Chromium (the project's setup installs it), or CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Chromium with a new profile directory named from `prefix`; `options` are
 * playwright's launchPersistentContext options (viewport, acceptDownloads, …).
 * @returns {Promise<{browser: import("playwright-core").BrowserContext, profile: string}>}
 */
export async function launchChromium(prefix, options = {}) {
  const profile = mkdtempSync(join(tmpdir(), prefix));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    timeout: 60_000,
    args: ARGS,
    ...options,
  });
  return { browser, profile };
}
