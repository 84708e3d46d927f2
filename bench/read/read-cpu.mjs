// The main thread's CPU time per whole-array read, which is what decode workers are for (the
// wall time of bench/read/read.mjs hardly shows it on a machine with few, busy cores). The server
// (tests/server, 20 ms latency) runs in a child process so that only the reader's own work is
// on this thread; V8's sampling profiler (node:inspector) records this thread during the
// reads of each variant, and the figure is the non-idle time per read, with the functions that
// took most of it.
//
//   node bench/read/read-cpu.mjs [--data DIR] [--reads N]
//
// Variants: 2 workers with the output shared (SharedArrayBuffer, the default in Node), 2
// workers with decoded chunks transferred back (`sharedOutput: false`, as in a browser page
// that is not cross-origin isolated), and no workers.
import { spawn } from "node:child_process";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as zom from "zom";
import { benchDir } from "../lib/util.mjs";

const { values: args } = parseArgs({
  options: { data: { type: "string", default: join(benchDir, "data") }, reads: { type: "string", default: "20" } },
});
const READS = Number(args.reads);
const CASES = ["v3_blosc_zstd_shuffle", "v3_sharded_blosc_zstd"];
const VARIANTS = {
  "2 workers, shared output": { workers: 2 },
  "2 workers, transfer": { workers: 2, sharedOutput: false },
  "main thread": { workers: 0 },
};

const server = spawn(process.execPath, [join(benchDir, "..", "tests", "server", "server.mjs"), args.data, "--latency", "20"], {
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(/http:\/\/[\d.:]+/.exec(String(d))?.[0])));
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });

/** Non-idle time of a profile in ms, and its functions by self time. */
function summarize(profile) {
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + profile.timeDeltas[i] / 1000);
  });
  const idle = self.get("(idle) :-1") ?? 0;
  const busy = [...self.values()].reduce((a, b) => a + b, 0) - idle;
  const top = [...self]
    .filter(([n]) => n !== "(idle) :-1")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);
  return { busy, top };
}

try {
  for (const c of CASES) {
    for (const [name, options] of Object.entries(VARIANTS)) {
      const read = async () => {
        const arr = await zom.openArray(new zom.FetchStore(`${url}/${c}`));
        await arr.get(undefined, options);
        arr.free();
      };
      await read(); // warm-up: the pool starts, the code is compiled
      await session.post("Profiler.start");
      const t0 = performance.now();
      for (let i = 0; i < READS; i++) await read();
      const wall = (performance.now() - t0) / READS;
      const { profile } = await session.post("Profiler.stop");
      const { busy, top } = summarize(profile);
      console.log(
        `${c.padEnd(22)} ${name.padEnd(26)} main thread ${(busy / READS).toFixed(0).padStart(4)} ms CPU per read (wall ${wall.toFixed(0)} ms); most: ` +
          top.map(([n, ms]) => `${n.trim()} ${(ms / READS).toFixed(1)}`).join(", "),
      );
    }
  }
} finally {
  server.kill();
  zom.closeWorkers();
  session.disconnect();
}
