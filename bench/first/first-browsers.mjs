// One cold run of a bench/first/first.mjs page in a browser, and what crossed the network before its
// data was in hand.
// - Chromium (Debian's, tests/browser/chromium.mjs's flags, through playwright-core): a new
//   browser context per run (its own renderer process, HTTP cache and code cache), over CDP
//   Network.setCacheDisabled and, for a throttled profile, Network.emulateNetworkConditions
//   (latency added to each request, throughput shared by the page's requests, as DevTools
//   throttles); bytes are Network.loadingFinished's encodedDataLength (headers and body as
//   received, compressed), or the Network.dataReceived before the data was in hand.
// - Firefox ESR (Debian's, puppeteer-core over WebDriver BiDi, as tests/browser/engines.mjs
//   launches it): a new browser context (user context) per run, cache bypassed
//   (network.setCacheBehavior); no throttling (see firefoxThrottling); bytes from the page's
//   Resource Timing (transferSize: headers and body as received).
// A request is counted when it started before the data was in hand; its bytes are those
// received by then. Its kind is "data" under the data mounts (/data/, /fixtures/), else "code"
// (the HTML, JS and WebAssembly of the page).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import { FIREFOX } from "../../scripts/setup.mjs";
import { CHROMIUM_ARGS } from "../../tests/browser/chromium.mjs";
import { FIREFOX_PREFS } from "../../tests/browser/engines.mjs";

/** The network profiles: download (= upload) bits per second and latency per request; null: none. */
export const PROFILES = [
  { name: "2 Mbps, 100 ms", mbps: 2, latency_ms: 100 },
  { name: "10 Mbps, 40 ms", mbps: 10, latency_ms: 40 },
  { name: "50 Mbps, 20 ms", mbps: 50, latency_ms: 20 },
  { name: "loopback", mbps: null, latency_ms: 0 },
];

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** A request's kind: "data" under the data mounts, else "code" (the page's HTML, JS and WebAssembly). */
export const kindOf = (url) => (/^\/(data|fixtures)\//.test(new URL(url).pathname) ? "data" : "code");

/** Waits for the page's window.firstResult, at most `timeout` ms; throws what the page reported. */
async function pageResult(page, problems, timeout) {
  await page.waitForFunction(() => "firstResult" in window, undefined, { timeout, polling: 20 });
  const result = await page.evaluate(() => window.firstResult);
  if (result.error || problems.length) throw new Error(`${page.url()}: ${result.error ?? ""}\n${problems.join("\n")}`);
  return result;
}

/**
 * Records the console errors and warnings and the uncaught errors of a page into a list. A
 * missing document under the data mounts is not one: libraries probe for metadata that way
 * (zarrita asks for Zarr v2's before v3's), and the browser logs each 404.
 */
function watch(page) {
  const problems = [];
  page.on("console", (m) => {
    if (!["error", "warning", "warn"].includes(m.type())) return;
    const at = m.location()?.url ?? "";
    if (/^Failed to load resource: .* 404/.test(m.text()) && /^https?:/.test(at) && kindOf(at) === "data") return;
    problems.push(`${m.type()}: ${m.text()}${at ? ` (${at})` : ""}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e?.message ?? e}`));
  return problems;
}

export async function launchChromiumBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  return { browser, version: `Chromium ${browser.version()}`, close: () => browser.close() };
}

/**
 * One cold run of `url` in a new context of `browser` under `profile`: {ms, summary, requests}
 * (requests: [{url, kind, bytes, status, encoding}]). A profile's `encoding` ("gzip", "br") is
 * the Accept-Encoding every request sends (the server then compresses the JS that way);
 * without one, Chromium's own.
 */
export async function chromiumRun(browser, url, profile, timeout) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = watch(page);
    const cdp = await context.newCDPSession(page);
    const requests = new Map();
    let navigationStart = null;
    cdp.on("Network.requestWillBeSent", (e) => {
      if (!/^https?:/.test(e.request.url)) return;
      if (e.type === "Document") navigationStart ??= e.timestamp;
      requests.set(e.requestId, {
        url: e.request.url,
        method: e.request.method,
        start: e.timestamp,
        headers: null,
        received: [],
        finished: null,
        failed: null,
        status: 0,
        encoding: "",
      });
    });
    cdp.on("Network.responseReceived", (e) => {
      const r = requests.get(e.requestId);
      if (!r) return;
      r.status = e.response.status;
      r.headers = [e.timestamp, e.response.encodedDataLength];
      const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      r.encoding = h["content-encoding"] ?? "";
    });
    cdp.on("Network.dataReceived", (e) => requests.get(e.requestId)?.received.push([e.timestamp, e.encodedDataLength]));
    cdp.on("Network.loadingFinished", (e) => {
      const r = requests.get(e.requestId);
      if (r) r.finished = [e.timestamp, e.encodedDataLength];
    });
    cdp.on("Network.loadingFailed", (e) => {
      const r = requests.get(e.requestId);
      if (r) r.failed = e.errorText;
    });
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    if (profile.encoding) await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": profile.encoding } });
    if (profile.mbps !== null) {
      const bytesPerSecond = (profile.mbps * 1e6) / 8;
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: profile.latency_ms,
        downloadThroughput: bytesPerSecond,
        uploadThroughput: bytesPerSecond,
      });
    }
    await page.goto(url, { waitUntil: "commit", timeout });
    const result = await pageResult(page, problems, timeout);
    await sleep(100); // the network events of the last responses
    if (navigationStart === null) throw new Error(`${url}: no document request seen`);
    // The page's clock starts at the navigation, just before the document's request.
    const done = navigationStart + result.ms / 1000;
    const counted = [];
    for (const r of requests.values()) {
      if (r.start > done) continue;
      // Unfinished by then, or cancelled (a 404 whose body the library does not read, a HEAD):
      // its headers and the body received by then.
      const partial = () =>
        (r.headers && r.headers[0] <= done ? r.headers[1] : 0) + r.received.filter(([t]) => t <= done).reduce((s, [, n]) => s + n, 0);
      const bytes = r.finished && r.finished[0] <= done ? r.finished[1] : partial();
      const ms = (t) => Math.round((t - navigationStart) * 1e4) / 10;
      const request = {
        url: new URL(r.url).pathname,
        method: r.method,
        kind: kindOf(r.url),
        bytes,
        status: r.status,
        encoding: r.encoding,
        start_ms: ms(r.start),
        end_ms: r.finished ? ms(r.finished[0]) : null,
      };
      counted.push(r.failed ? { ...request, failed: r.failed } : request);
    }
    return { ms: result.ms, summary: result.summary, requests: counted };
  } finally {
    await context.close();
  }
}

export async function launchFirefoxBrowser() {
  const { default: puppeteer } = await import("puppeteer-core");
  const profile = mkdtempSync(join(tmpdir(), "zom-bench-first-firefox-"));
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    timeout: 60_000,
    protocolTimeout: 60_000,
    // tests/browser/engines.mjs's: nothing but loopback, no background services.
    extraPrefsFirefox: FIREFOX_PREFS,
  });
  const version = (await browser.version()).replace(/^firefox\//, "Firefox ");
  return {
    browser,
    version,
    async close() {
      try {
        await browser.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Whether Firefox can throttle here: asks puppeteer-core for the slowest profile on a blank
 * page. Returns null when it can, else why not.
 */
export async function firefoxThrottling(browser) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const p = PROFILES[0];
    await page.emulateNetworkConditions({ download: (p.mbps * 1e6) / 8, upload: (p.mbps * 1e6) / 8, latency: p.latency_ms });
    return null;
  } catch (e) {
    return `${e?.name ?? "Error"}${e?.message ? `: ${e.message}` : ""}`;
  } finally {
    await context.close();
  }
}

/** One cold run of `url` in a new context of Firefox, unthrottled: {ms, summary, requests, acceptEncoding}. */
export async function firefoxRun(browser, url, timeout) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(timeout);
    const problems = watch(page);
    await page.setCacheEnabled(false);
    let acceptEncoding = null;
    page.on("request", (r) => (acceptEncoding ??= r.headers()["accept-encoding"] ?? ""));
    await page.goto(url, { waitUntil: "load", timeout });
    const result = await pageResult(page, problems, timeout);
    const requests = result.resources
      .filter((r) => /^https?:/.test(r.url) && r.responseEnd <= result.ms + 1)
      .map((r) => ({ url: new URL(r.url).pathname, kind: kindOf(r.url), bytes: r.transferSize }));
    return { ms: result.ms, summary: result.summary, requests, acceptEncoding };
  } finally {
    await context.close();
  }
}
