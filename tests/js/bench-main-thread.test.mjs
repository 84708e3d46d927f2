// bench/first/first-main-thread.mjs's reading of a trace, on a trace made up here: the window from the
// end of the page's script to the first chunk request, top-level tasks counted once however
// they nest, clipped to the window, and self time by name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mainThreadWork } from "../../bench/first/first-main-thread.mjs";

const MAIN = { pid: 7, tid: 1 };
const OTHER = { pid: 7, tid: 2 };
const send = (id, url, ts) => ({ ...MAIN, ph: "I", name: "ResourceSendRequest", ts, args: { data: { requestId: id, url } } });
const task = (where, ts, dur, name = "RunTask") => ({ ...where, ph: "X", name, ts, dur });

const events = [
  { ...MAIN, ph: "M", name: "thread_name", args: { name: "CrRendererMain" } },
  { ...OTHER, ph: "M", name: "thread_name", args: { name: "ThreadPoolForegroundWorker" } },
  send("1", "http://h/p/main.js", 0),
  { ...MAIN, ph: "I", name: "ResourceFinish", ts: 1_000, args: { data: { requestId: "1" } } },
  send("2", "http://h/data/a/zarr.json", 3_000), // metadata: not the window's end
  send("3", "http://h/data/a/c/0/0", 20_000),
  // Before the window: not counted.
  task(MAIN, 0, 500),
  // Straddles the window's start: 1,000 of its 2,000 µs count, all of it its child's.
  task(MAIN, 0, 2_000),
  task(MAIN, 1_000, 1_000, "EvaluateScript"),
  // A task with events nested in it: 4,000 µs once; FunctionCall's self time 1,000 (less
  // RunMicrotasks' 1,000 inside it).
  task(MAIN, 5_000, 4_000),
  task(MAIN, 5_500, 2_000, "FunctionCall"),
  task(MAIN, 6_000, 1_000, "RunMicrotasks"),
  task(MAIN, 10_000, 500), // a short task of its own: 500 µs
  // Another thread: not the main thread's work.
  task(OTHER, 5_000, 10_000),
  task(OTHER, 5_000, 10_000, "DecompressionStream Inflate"),
  // Straddles the window's end: 1,000 of it counts.
  task(MAIN, 19_000, 3_000),
];

test("the main thread's work between the script's arrival and the first chunk request", () => {
  const got = mainThreadWork(events, "/p/main.js");
  assert.equal(got.chunk, "/data/a/c/0/0");
  assert.equal(got.window_ms, 19);
  // 1,000 (straddling the start) + 4,000 (the nested pair, once) + 500 + 1,000 (straddling the end).
  assert.equal(got.busy_ms, 6.5);
  assert.deepEqual(got.by_name, { EvaluateScript: 1, FunctionCall: 1, RunMicrotasks: 1 });
});

test("a trace without the script's request or a chunk request is refused", () => {
  assert.throws(() => mainThreadWork(events, "/p/other.js"), /no request of \/p\/other\.js/);
  assert.throws(
    () =>
      mainThreadWork(
        events.filter((e) => e.args?.data?.requestId !== "3"),
        "/p/main.js",
      ),
    /chunk request/,
  );
});
