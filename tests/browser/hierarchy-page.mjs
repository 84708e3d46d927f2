// The page of tests/browser/hierarchy.test.mjs: loads the built package from /pkg/index.js (no
// bundler) and offers window.zomHierarchy, whose calls read a Zarr hierarchy from another
// origin with FetchStore, list what they did in the page's table, and answer in a form
// Playwright carries back to Node unchanged (ZOMs as zom's JSON text, values as `plain`).
import { describeError as describe, plain } from "./plain.mjs";

const table = document.getElementById("results");
const status = document.getElementById("status");

function show(step, cls, text) {
  const row = table.insertRow();
  row.insertCell().textContent = step;
  const cell = row.insertCell();
  cell.className = cls;
  const pre = document.createElement("pre");
  pre.textContent = text;
  cell.append(pre);
}

/** The `data` of a read: a TypedArray becomes an array of its values, an array keeps its elements' forms. */
const plainData = (data) => (ArrayBuffer.isView(data) ? Array.from(data, plain) : data.map(plain));

const fmtSel = (s) => (s === undefined ? "whole" : JSON.stringify(s));

try {
  // The reader ("zom") and the validator ("zom/validate", for walk), as one namespace.
  const zom = { ...(await import("/pkg/index.js")), ...(await import("/pkg/validate.js")) };
  const { FetchStore, open, openArray, stringify, walk } = zom;
  let held = null;

  window.zomHierarchy = {
    /** walk(new FetchStore(url)): the ZOM as JSON text, the report and the store's request count. */
    async walk(url, options = {}) {
      const store = new FetchStore(url);
      const t0 = performance.now();
      const tree = await walk(store, options);
      const ms = performance.now() - t0;
      const out = {
        zom: stringify(tree),
        errors: tree.errors.map(describe),
        unlisted: tree.unlisted,
        consolidated: tree.consolidated,
        members: Object.keys(tree.members ?? {}).length,
        requests: store.stats.requests,
      };
      show(
        `walk ${url}`,
        out.errors.length ? "fail" : "ok",
        `${out.members} members at the root, consolidated: ${out.consolidated}, ${out.requests} request(s), ${ms.toFixed(0)} ms`,
      );
      return out;
    },

    /** open(new FetchStore(url)): its kind, whether consolidated, its ZOM and the request count. */
    async open(url) {
      const store = new FetchStore(url);
      const node = await open(store);
      const out = { kind: node.kind, consolidated: node.consolidated ?? false, zom: stringify(node.zom), requests: store.stats.requests };
      show(`open ${url}`, "ok", `${out.kind}, consolidated: ${out.consolidated}, ${out.requests} request(s)`);
      return out;
    },

    /**
     * Every array of `plan` ([{path, selections}]) opened with openArray and read with
     * arr.get(selection) for each selection (null in the plan: the whole array, get()).
     */
    async readAll(url, plan) {
      const store = new FetchStore(url);
      const out = [];
      let reads = 0;
      let failed = 0;
      const t0 = performance.now();
      for (const { path, selections } of plan) {
        const entry = { path, dtype: null, shape: null, reads: [] };
        out.push(entry);
        let arr;
        try {
          arr = await openArray(store, path);
        } catch (e) {
          entry.error = describe(e);
          failed++;
          show(`openArray ${path}`, "fail", `${e?.name} ${e?.code}: ${e?.message}`);
          continue;
        }
        entry.dtype = plain(arr.dtype);
        entry.shape = arr.shape;
        for (const selection of selections) {
          try {
            const { data, shape } = await arr.get(selection ?? undefined);
            entry.reads.push({ shape, data: plainData(data) });
            reads++;
          } catch (e) {
            entry.reads.push({ error: describe(e) });
            failed++;
            show(`${path} ${fmtSel(selection)}`, "fail", `${e?.name} ${e?.code}: ${e?.message}`);
          }
        }
        arr.free();
      }
      show(
        `read ${url}`,
        failed ? "fail" : "info",
        `${plan.length} arrays, ${reads} reads (whole and by selections) in ${(performance.now() - t0).toFixed(0)} ms, ` +
          `${store.stats.requests} requests, ${store.stats.bytes} bytes${failed ? `, ${failed} failed` : ""}`,
      );
      return out;
    },

    /** Opens one array and keeps it for getHeld / getChunkHeld (so that Node can count their requests alone). */
    async hold(url, path) {
      held?.free();
      held = await openArray(new FetchStore(url), path);
      return { shape: held.shape, chunks: held.chunks, shards: held.shards, dtype: plain(held.dtype) };
    },

    async getHeld(selection) {
      const { data, shape } = await held.get(selection);
      show(`${held.path} get ${fmtSel(selection)}`, "info", `shape [${shape}]`);
      return { shape, data: plainData(data) };
    },

    async getChunkHeld(coords) {
      const { data, shape } = await held.getChunk(coords);
      show(`${held.path} getChunk [${coords}]`, "info", `shape [${shape}]`);
      return { shape, data: plainData(data) };
    },

    /** A row for a check Node made. */
    verdict(step, ok, text) {
      show(step, ok ? "ok" : "fail", text);
    },
  };
  status.textContent = `zom ${zom.version()} loaded; page origin ${location.origin}`;
} catch (e) {
  window.zomHierarchyFatal = String(e?.stack ?? e);
  status.textContent = `failed: ${e}`;
}
