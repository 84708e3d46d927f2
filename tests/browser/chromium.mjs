// Debian's Chromium for the browser tests, headless, in a fresh profile directory (playwright
// passes it as --user-data-dir). The flags keep it off the network this machine does not have.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Debian's Chromium (the project's setup installs it), or CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** The flags Chromium runs with here (headless, no sandbox, no network of its own). */
export const CHROMIUM_ARGS = [
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
    args: CHROMIUM_ARGS,
    ...options,
  });
  return { browser, profile };
}

/** Records `page`'s console messages and uncaught errors into `lines` ("type: text", "pageerror: message"); returns `lines`. */
export function recordConsole(page, lines = []) {
  page.on("console", (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => lines.push(`pageerror: ${e.message}`));
  return lines;
}

/**
 * Opens a test page that sets `window[name]` once it has loaded zom, or `window[name + "Fatal"]`
 * when it could not, and fails in the second case with the page's console `lines`.
 */
export async function openTestPage(page, url, name, lines) {
  await page.goto(url);
  await page.waitForFunction((n) => n in window || `${n}Fatal` in window, name, { timeout: 30_000 });
  const fatal = await page.evaluate((n) => window[`${n}Fatal`], name);
  assert.equal(fatal, undefined, `the page failed to load zom: ${fatal}\n${lines.join("\n")}`);
}
