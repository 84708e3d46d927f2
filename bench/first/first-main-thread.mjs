// The main thread's work before a cold page's first chunk request, in Chromium (bench/first/first.mjs):
// from the moment the page's JS has arrived (the end of its script's response) to the request of
// the first chunk (a data request that is not a metadata document), the union of the main
// thread's top-level tasks (DevTools' "RunTask"), from a CDP trace, with what they spent their
// time on (the self time of the events inside them, by name: script compile and evaluation,
// function calls, WebAssembly compile and instantiation, garbage collection). A trace costs
// time itself, so these runs are apart from the timed ones. Unthrottled (loopback): the work
// does not depend on the network, and the window is then mostly that work.
import { setTimeout as sleep } from "node:timers/promises";
import { kindOf } from "./first-browsers.mjs";

// DevTools' Performance panel's own categories (a trace adds less work to what it measures).
const CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "v8.execute", "blink.user_timing", "loading"];
const METADATA = /(?:^|\/)(?:zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;
const isChunk = (url) => kindOf(url) === "data" && !METADATA.test(new URL(url).pathname);

/** The trace's events, read from the stream Tracing.end leaves. */
async function readTrace(cdp, stream) {
  const chunks = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send("IO.read", { handle: stream, size: 1 << 20 });
    chunks.push(Buffer.from(data, base64Encoded ? "base64" : "utf8"));
    if (eof) break;
  }
  await cdp.send("IO.close", { handle: stream });
  // Decoded once: a chunk may end inside a character.
  const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/**
 * What the trace says of one run: {window_ms, busy_ms, by_name: {name: ms}}, the window from the
 * end of `script`'s response to the first chunk request, in ms.
 * @param {object[]} events
 * @param {string} script the path of the page's first JS file
 */
export function mainThreadWork(events, script) {
  const sends = events.filter((e) => e.name === "ResourceSendRequest" && e.args?.data?.url);
  const scriptSend = sends.find((e) => new URL(e.args.data.url).pathname === script);
  if (scriptSend === undefined) throw new Error(`the trace has no request of ${script}`);
  const finish = events.find((e) => e.name === "ResourceFinish" && e.args?.data?.requestId === scriptSend.args.data.requestId);
  const chunk = sends.filter((e) => isChunk(e.args.data.url)).sort((a, b) => a.ts - b.ts)[0];
  if (finish === undefined || chunk === undefined)
    throw new Error(`the trace lacks ${finish ? "a chunk request" : `the end of ${script}`}`);
  // The main thread of the renderer that asked for the page's script.
  const thread = events.find(
    (e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain" && e.pid === scriptSend.pid,
  );
  if (thread === undefined) throw new Error("the trace has no renderer main thread");
  const [from, to] = [finish.ts, chunk.ts];
  const own = events
    .filter((e) => e.pid === thread.pid && e.tid === thread.tid && e.ph === "X" && typeof e.dur === "number")
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const clip = (e) => Math.max(0, Math.min(e.ts + e.dur, to) - Math.max(e.ts, from));
  let busy = 0;
  let end = -Infinity;
  const isTask = (e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask";
  for (const t of own.filter(isTask)) {
    if (t.ts + t.dur <= end) continue; // nested in a task already counted
    busy += Math.max(0, Math.min(t.ts + t.dur, to) - Math.max(t.ts, end, from));
    end = t.ts + t.dur;
  }
  // Self time by name: each event's time in the window less its children's.
  const byName = {};
  const stack = [];
  const settle = (e) => {
    const self = clip(e) - e.childTime;
    if (!isTask(e) && self > 0) byName[e.name] = (byName[e.name] ?? 0) + self / 1000;
  };
  for (const e of own) {
    while (stack.length > 0 && stack.at(-1).ts + stack.at(-1).dur <= e.ts) settle(stack.pop());
    const parent = stack.at(-1);
    const node = { name: e.name, ts: e.ts, dur: e.dur, childTime: 0 };
    if (parent !== undefined) parent.childTime += clip(node);
    stack.push(node);
  }
  while (stack.length > 0) settle(stack.pop());
  return { window_ms: (to - from) / 1000, busy_ms: busy / 1000, by_name: byName, chunk: new URL(chunk.args.data.url).pathname };
}

/**
 * One cold, traced run of `url` in a new context of `browser` (unthrottled, cache disabled):
 * what {@link mainThreadWork} finds, for the page whose first JS file is `script`.
 */
export async function chromiumMainThread(browser, url, script, timeout) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Tracing.start", { traceConfig: { includedCategories: CATEGORIES }, transferMode: "ReturnAsStream" });
    await page.goto(url, { waitUntil: "commit", timeout });
    await page.waitForFunction(() => "firstResult" in window, undefined, { timeout, polling: 20 });
    const result = await page.evaluate(() => window.firstResult);
    if (result.error) throw new Error(`${url}: ${result.error}`);
    await sleep(100);
    let timer;
    const complete = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("no Tracing.tracingComplete in 30 s")), 30_000);
      cdp.once("Tracing.tracingComplete", resolve);
    });
    complete.catch(() => undefined); // awaited below, unless Tracing.end throws first
    try {
      await cdp.send("Tracing.end");
      const { stream } = await complete;
      return mainThreadWork(await readTrace(cdp, stream), script);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await context.close();
  }
}
