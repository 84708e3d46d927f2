// One small interface over three browser engines, for the journeys of engines.test.mjs:
//   chromium  Debian's Chromium through playwright-core (chromium.mjs, as the other browser tests)
//   firefox   Debian's Firefox ESR through puppeteer-core over WebDriver BiDi
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver (W3C WebDriver, classic), on an X
//             display of its own from xvfb-run (MiniBrowser has no headless mode)
// Each launch gets a fresh profile; each browser reaches only loopback (requests to any other
// host go to a proxy on 127.0.0.1:9, where nothing listens; Firefox's background services are
// off by prefs). Every operation is bounded in time. scripts/setup.mjs installs the three.
//
// WebKit's driver speaks only classic WebDriver here (WebKitGTK 2.50 has no BiDi: a session
// asking for webSocketUrl is refused), so its console is read from the page itself: after each
// navigation a recorder wraps console.error/console.warn and listens for uncaught errors and
// rejections. What a page logs before that (while it loads) is not seen; the pages the journeys
// open report a failed start in their own state instead.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FIREFOX, miniBrowser, WEBKIT_DRIVER, XVFB_RUN } from "../../scripts/setup.mjs";
import { CHROMIUM_ARGS, launchChromium } from "./chromium.mjs";

export const ENGINES = ["chromium", "firefox", "webkit"];

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** A proxy no one answers on: whatever is not loopback fails at once instead of leaving the machine. */
const DEAD_PROXY = { host: "127.0.0.1", port: 9 };

/** The longest any single operation (launch aside) may take. */
const OP_TIMEOUT = 60_000;
const LAUNCH_TIMEOUT = 60_000;

/**
 * Why `engine` cannot run on this machine (a binary is missing), or null when it can.
 * @param {string} engine
 * @returns {string | null}
 */
export function missing(engine) {
  // [path or null, what it is, the Debian package that brings it]
  const need = {
    chromium: [[CHROMIUM, CHROMIUM, "chromium"]],
    firefox: [[FIREFOX, FIREFOX, "firefox-esr"]],
    webkit: [
      [WEBKIT_DRIVER, WEBKIT_DRIVER, "webkit2gtk-driver"],
      [miniBrowser(), "MiniBrowser (/usr/lib/*/webkit2gtk-*/MiniBrowser)", "webkit2gtk-driver"],
      [XVFB_RUN, XVFB_RUN, "xvfb"],
    ],
  }[engine];
  const absent = need.filter(([path]) => !path || !existsSync(path));
  if (absent.length === 0) return null;
  return `not installed: ${absent.map(([, what, pkg]) => `${what} (Debian package ${pkg})`).join(", ")}; \`node scripts/setup.mjs --browser\` installs it`;
}

/** Rejects when `promise` has not settled within `ms`. */
export async function bounded(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @typedef {object} Engine
 * @property {string} name          "chromium", "firefox" or "webkit"
 * @property {string} version       the browser's own name and version
 * @property {(url: string) => Promise<void>} open   navigates and waits for the load event
 * @property {<A, R>(fn: (arg: A) => R | Promise<R>, arg?: A) => Promise<R>} evaluate
 *   runs `fn(arg)` in the page (fn must not close over anything; arg and result are JSON-like)
 * @property {<A>(fn: (arg: A) => unknown, arg?: A, options?: { timeout?: number, what?: string }) => Promise<unknown>} waitFor
 *   polls `fn(arg)` in the page until it is truthy; fails after `timeout` ms (30 s)
 * @property {(selector: string) => Promise<void>} click   a real click on the first match of a CSS selector
 * @property {() => Promise<string[]>} consoleLines   "type: text" of what the pages logged ("pageerror: …" for uncaught errors)
 * @property {() => Promise<string[]>} consoleErrors   those lines that are errors or uncaught errors
 * @property {(path: string) => Promise<void>} screenshot   a PNG of the viewport
 * @property {() => Promise<void>} close   closes the browser and removes its profile
 */

/** Polls `evaluate(fn, arg)` until truthy, at most `timeout` ms. */
async function poll(engine, fn, arg, { timeout = 30_000, what = "a condition in the page" } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await engine.evaluate(fn, arg);
    if (value) return value;
    if (Date.now() >= end) throw new Error(`${engine.name}: timed out after ${timeout} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Whether a console line is an error of the page's. Chromium asks for /favicon.ico by itself
 * when a page names no icon and logs the 404 as an error: not the page's doing.
 */
const isError = (line) => /^(error|pageerror):/.test(line) && !/^error: Failed to load resource: .* \(\S+\/favicon\.ico\)$/.test(line);

/**
 * Launches `engine` with a fresh profile.
 * @param {string} engine one of ENGINES
 * @param {{ prefix?: string, viewport?: { width: number, height: number } }} [options]
 * @returns {Promise<Engine>}
 */
export async function launchEngine(engine, { prefix = "zom-engine-", viewport = { width: 1400, height: 900 } } = {}) {
  const reason = missing(engine);
  if (reason) throw new Error(`${engine}: ${reason}`);
  if (engine === "chromium") return launchChromiumEngine(prefix, viewport);
  if (engine === "firefox") return launchFirefox(prefix, viewport);
  if (engine === "webkit") return launchWebKit(prefix, viewport);
  throw new Error(`unknown engine ${engine}`);
}

/** playwright-core and puppeteer-core pages answer the same calls for what the interface needs. */
function fromPage(name, version, page, lines, close) {
  const engine = {
    name,
    version,
    async open(url) {
      await bounded(page.goto(url, { waitUntil: "load", timeout: OP_TIMEOUT }), OP_TIMEOUT, `${name}: open ${url}`);
    },
    evaluate: (fn, arg) => bounded(page.evaluate(fn, arg), OP_TIMEOUT, `${name}: evaluate`),
    waitFor: (fn, arg, options) => poll(engine, fn, arg, options),
    click: (selector) => bounded(page.click(selector), OP_TIMEOUT, `${name}: click ${selector}`),
    consoleLines: async () => [...lines],
    consoleErrors: async () => lines.filter(isError),
    screenshot: (path) => bounded(page.screenshot({ path }), OP_TIMEOUT, `${name}: screenshot`).then(() => undefined),
    close,
  };
  return engine;
}

async function launchChromiumEngine(prefix, viewport) {
  const { browser, profile } = await launchChromium(`${prefix}chromium-`, {
    viewport,
    // Chromium never sends loopback through a proxy (its implicit bypass rules).
    args: [...CHROMIUM_ARGS, `--proxy-server=http://${DEAD_PROXY.host}:${DEAD_PROXY.port}`],
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // As chromium.mjs's recordConsole, with the URL of a resource that failed to load.
    const lines = [];
    page.on("console", (m) => {
      const text = m.text();
      const url = text.startsWith("Failed to load resource") ? m.location()?.url : undefined;
      lines.push(`${m.type()}: ${text}${url ? ` (${url})` : ""}`);
    });
    page.on("pageerror", (e) => lines.push(`pageerror: ${e.message}`));
    const version = `Chromium ${browser.browser()?.version() ?? "?"}`;
    return fromPage("chromium", version, page, lines, async () => {
      try {
        await bounded(browser.close(), 20_000, "chromium: close");
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    });
  } catch (e) {
    await browser.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}

/** Firefox prefs on top of puppeteer's (which already turn off updates, safe browsing, telemetry uploads, …). */
export const FIREFOX_PREFS = {
  // Anything not loopback goes to a proxy that is not there (loopback is never proxied:
  // network.proxy.allow_hijacking_localhost is false).
  "network.proxy.type": 1,
  "network.proxy.http": DEAD_PROXY.host,
  "network.proxy.http_port": DEAD_PROXY.port,
  "network.proxy.ssl": DEAD_PROXY.host,
  "network.proxy.ssl_port": DEAD_PROXY.port,
  "network.proxy.share_proxy_settings": true,
  "network.proxy.no_proxies_on": "localhost, 127.0.0.1",
  "network.trr.mode": 5,
  "network.dns.disablePrefetch": true,
  "network.prefetch-next": false,
  "network.predictor.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "browser.safebrowsing.update.enabled": false,
  "browser.region.network.url": "",
  "browser.region.update.enabled": false,
  "toolkit.telemetry.enabled": false,
  "toolkit.telemetry.server": "",
  "datareporting.policy.dataSubmissionEnabled": false,
  "app.update.auto": false,
  "app.update.enabled": false,
  "extensions.blocklist.enabled": false,
  "browser.ping-centre.telemetry": false,
  "messaging-system.rsexperimentloader.enabled": false,
  "app.shield.optoutstudies.enabled": false,
  "browser.discovery.enabled": false,
  "media.gmp-gmpopenh264.enabled": false,
  "security.OCSP.enabled": 0,
  "security.remote_settings.crlite_filters.enabled": false,
};

async function launchFirefox(prefix, viewport) {
  const { default: puppeteer } = await import("puppeteer-core");
  const profile = mkdtempSync(join(tmpdir(), `${prefix}firefox-`));
  let browser;
  try {
    browser = await puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profile,
      timeout: LAUNCH_TIMEOUT,
      protocolTimeout: OP_TIMEOUT,
      defaultViewport: viewport,
      extraPrefsFirefox: FIREFOX_PREFS,
      // Firefox's own output (a few lines per run) is of no use to the tests.
      dumpio: false,
    });
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    page.setDefaultTimeout(OP_TIMEOUT);
    // The first tab keeps Firefox's window size otherwise.
    await page.setViewport(viewport);
    const lines = [];
    page.on("console", (m) => lines.push(`${m.type() === "warn" ? "warning" : m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => lines.push(`pageerror: ${e?.message ?? e}`));
    const version = (await browser.version()).replace(/^firefox\//, "Firefox ");
    return fromPage("firefox", version, page, lines, async () => {
      try {
        await bounded(browser.close(), 20_000, "firefox: close");
      } catch {
        browser.process()?.kill("SIGKILL");
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    });
  } catch (e) {
    await browser?.close().catch(() => browser?.process()?.kill("SIGKILL"));
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}

/** A port free at the time of asking, on loopback (WebKitWebDriver needs one named). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * Installed in the page after each navigation (WebKit: no console events over classic
 * WebDriver): keeps error and warning messages and uncaught errors in window.__zomConsole.
 */
function installConsoleRecorder() {
  if (window.__zomConsole) return;
  const lines = (window.__zomConsole = []);
  const text = (v) =>
    v instanceof Error
      ? `${v.name}: ${v.message}`
      : typeof v === "object"
        ? (() => {
            try {
              return JSON.stringify(v);
            } catch {
              return String(v);
            }
          })()
        : String(v);
  for (const [method, type] of [
    ["error", "error"],
    ["warn", "warning"],
  ]) {
    const original = console[method].bind(console);
    console[method] = (...args) => {
      lines.push(`${type}: ${args.map(text).join(" ")}`);
      original(...args);
    };
  }
  addEventListener("error", (e) => lines.push(`pageerror: ${e.message}`));
  addEventListener("unhandledrejection", (e) => lines.push(`pageerror: ${text(e.reason)}`));
}

async function launchWebKit(prefix, viewport) {
  const home = mkdtempSync(join(tmpdir(), `${prefix}webkit-`));
  const port = await freePort();
  // Its own process group (detached), so that close() ends xvfb-run, Xvfb, the driver,
  // MiniBrowser and WebKit's helper processes together. HOME and the XDG folders point at the
  // fresh profile folder: nothing is read from or left in the user's.
  const driver = spawn(
    XVFB_RUN,
    [
      "--auto-servernum",
      `--server-args=-screen 0 ${viewport.width + 200}x${viewport.height + 300}x24 -nolisten tcp`,
      WEBKIT_DRIVER,
      `--port=${port}`,
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        HOME: home,
        XDG_CACHE_HOME: join(home, "cache"),
        XDG_CONFIG_HOME: join(home, "config"),
        XDG_DATA_HOME: join(home, "data"),
        // No accessibility bus or portal to look for on a bare machine.
        NO_AT_BRIDGE: "1",
        GTK_A11Y: "none",
      },
    },
  );
  // Should this process end without close() (a test runner's timeout), the group goes with it.
  const killGroup = () => {
    try {
      process.kill(-driver.pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", killGroup);
  let output = "";
  driver.stdout.on("data", (d) => (output = (output + d).slice(-4000)));
  driver.stderr.on("data", (d) => (output = (output + d).slice(-4000)));
  let exited = null;
  const exit = new Promise((resolve) => driver.on("exit", (code, signal) => resolve((exited = signal ?? code))));
  const base = `http://127.0.0.1:${port}`;
  let session = null;

  /** One WebDriver command; resolves to its value, rejects with the driver's error. */
  async function command(method, path, body, ms = OP_TIMEOUT) {
    const url = session ? `${base}/session/${session}${path}` : `${base}${path}`;
    const res = await fetch(url, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
    const json = await res.json();
    if (!res.ok || json.value?.error)
      throw new Error(`webkit: ${method} ${path}: ${json.value?.error ?? res.status}: ${json.value?.message ?? ""}`);
    return json.value;
  }

  async function stop() {
    if (session) await command("DELETE", "", undefined, 10_000).catch(() => {});
    session = null;
    if (exited === null) {
      try {
        process.kill(-driver.pid, "SIGTERM");
      } catch {}
      const done = await Promise.race([exit.then(() => true), sleep(5_000).then(() => false)]);
      if (!done) {
        try {
          process.kill(-driver.pid, "SIGKILL");
        } catch {}
      }
    }
    // Helpers of MiniBrowser that outlived the group signal (none expected): the group again.
    killGroup();
    process.removeListener("exit", killGroup);
    rmSync(home, { recursive: true, force: true });
  }

  try {
    // The driver answers /status once it listens.
    const end = Date.now() + LAUNCH_TIMEOUT;
    for (;;) {
      if (exited !== null) throw new Error(`xvfb-run WebKitWebDriver exited (${exited}):\n${output}`);
      const ready = await command("GET", "/status", undefined, 2_000).then(
        (v) => v?.ready === true,
        () => false,
      );
      if (ready) break;
      if (Date.now() >= end) throw new Error(`WebKitWebDriver did not answer within ${LAUNCH_TIMEOUT} ms:\n${output}`);
      await sleep(100);
    }
    const created = await command(
      "POST",
      "/session",
      {
        capabilities: {
          alwaysMatch: {
            pageLoadStrategy: "normal",
            timeouts: { script: OP_TIMEOUT, pageLoad: OP_TIMEOUT, implicit: 0 },
            "webkitgtk:browserOptions": {
              binary: miniBrowser(),
              args: [
                "--automation",
                `--proxy=http://${DEAD_PROXY.host}:${DEAD_PROXY.port}`,
                "--ignore-host=127.0.0.0/8",
                "--ignore-host=localhost",
                "--ignore-host=::1",
              ],
            },
          },
        },
      },
      LAUNCH_TIMEOUT,
    );
    session = created.sessionId;
    const caps = created.capabilities;
    await command("POST", "/window/rect", { width: viewport.width, height: viewport.height });
    const earlier = [];
    /** What the current page recorded (it is lost with the page on the next navigation). */
    const pageLines = async () => {
      try {
        return (await engine.evaluate(() => window.__zomConsole ?? [])) ?? [];
      } catch {
        return [];
      }
    };
    const engine = {
      name: "webkit",
      version: `WebKitGTK ${caps.browserVersion} (${caps.browserName})`,
      async open(url) {
        earlier.push(...(await pageLines()));
        await command("POST", "/url", { url });
        await engine.evaluate(installConsoleRecorder);
      },
      async evaluate(fn, arg) {
        // Executed as a function body: its last argument is the callback that ends the script.
        const script = `const done = arguments[arguments.length - 1];
const arg = arguments[0];
Promise.resolve().then(() => (${fn.toString()})(arg)).then(
  (value) => done({ zomValue: value === undefined ? null : value }),
  (e) => done({ zomError: String(e) + (e && e.stack ? "\\n" + e.stack : "") }),
);`;
        const result = await command("POST", "/execute/async", { script, args: [arg === undefined ? null : arg] }, OP_TIMEOUT + 5_000);
        if (result?.zomError) throw new Error(`webkit: evaluate: ${result.zomError}`);
        return result?.zomValue;
      },
      waitFor: (fn, arg, options) => poll(engine, fn, arg, options),
      async click(selector) {
        const element = await command("POST", "/element", { using: "css selector", value: selector });
        const id = element["element-6066-11e4-a52e-4f735466cecf"]; // the W3C web element identifier
        await command("POST", `/element/${id}/click`, {});
      },
      consoleLines: async () => [...earlier, ...(await pageLines())],
      consoleErrors: async () => (await engine.consoleLines()).filter(isError),
      async screenshot(path) {
        // WebKitGTK's screenshot is of what its compositor last showed, which follows the page's
        // frames with a delay: a canvas drawn just before shows as not there (two animation
        // frames are not enough; 100 ms was here, 250 leaves a margin).
        await engine.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))));
        await sleep(250);
        const png = await command("GET", "/screenshot");
        writeFileSync(path, Buffer.from(png, "base64"));
      },
      close: stop,
    };
    return engine;
  } catch (e) {
    await stop();
    throw e;
  }
}
