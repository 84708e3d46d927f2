/**
 * The zom explorer page: opens a hierarchy (the bundled sample, `?url=`, the URL box, a local
 * folder or .zip chosen or dropped), walks it in the worker with a progress bar and the store's request and byte counters, and
 * shows its tree, the selected node's panel, and the comparison with an expected ZOM. Plain DOM, no framework.
 * @module
 */

import { showBytes } from "../../ts/shared/units.js";
import { WorkerFailure, ZomWorker } from "./client.js";
import { byId, h, replace, SETTLED } from "./dom.js";
import { renderExpected } from "./expected.js";
import { failureBox } from "./failure.js";
import type { Convention, Hierarchy } from "./model.js";
import { addSummaries, addValidation, hierarchy } from "./model.js";
import { renderPanel } from "./panel.js";
import type { Failure, IcechunkInfo, IcechunkRef, Response, Source } from "./protocol.js";
import { TreeView } from "./tree.js";
import type { ViewContext } from "./view.js";
import { fillView, forgetViews, refreshVerdicts, viewCard } from "./view.js";
import type { Verdict } from "./view-plate.js";

/** The hierarchy `npm start` serves beside the page. */
const SAMPLE = "data/sample/";
/**
 * The performance mark of the first tree's rows put into the page (bench/explorer/first-tree.mjs and
 * bench/explorer/explorer-large.mjs read it). The first walk's steps in the worker are marked too, as
 * `zom:` and the step ("zom:walk-done", "zom:summarized", "zom:validated", …), and the page's
 * "zom:tree-received" and DETAILS_MARK.
 */
const FIRST_TREE_MARK = "zom:first-tree";
/** The performance mark of the first tree's rows drawn again with zom's summaries (kinds, shapes, data types). */
const DETAILS_MARK = "zom:tree-details";

const els = {
  form: byId<HTMLFormElement>("open-form"),
  url: byId<HTMLInputElement>("url"),
  requests: byId("requests"),
  bytes: byId("bytes"),
  cacheHits: byId("cache-hits"),
  decodeWorkers: byId("decode-workers"),
  cacheStat: byId("cache-stat"),
  download: byId<HTMLButtonElement>("download"),
  progress: byId<HTMLProgressElement>("walk-progress"),
  walkStatus: byId("walk-status"),
  summary: byId("summary"),
  icechunk: byId("icechunk"),
  tree: byId("tree"),
  nodeView: byId("node-view"),
  expectedView: byId("expected-view"),
  tabNode: byId<HTMLButtonElement>("tab-node"),
  tabExpected: byId<HTMLButtonElement>("tab-expected"),
  banner: byId("banner"),
  version: byId("version"),
  openFolder: byId<HTMLButtonElement>("open-folder"),
  openZip: byId<HTMLButtonElement>("open-zip"),
  folderInput: byId<HTMLInputElement>("folder-input"),
  zipInput: byId<HTMLInputElement>("zip-input"),
  drop: byId("drop"),
};

const worker = new ZomWorker();
const tree = new TreeView(els.tree, select);
let hier: Hierarchy | null = null;
let selected = "";
let loading = 0;
/** What was opened last, and the label the URL box shows for it. */
let shown: { source: Source; label: string } | null = null;

function banner(f: Failure): void {
  els.banner.hidden = false;
  replace(els.banner, failureBox(f, "Something went wrong"));
}

worker.onStats = (requests, bytes, cacheHits, cacheMisses, decodeWorkers) => {
  els.decodeWorkers.textContent = String(decodeWorkers);
  els.requests.textContent = requests.toLocaleString("en");
  els.bytes.textContent = showBytes(bytes);
  els.cacheHits.textContent = cacheHits.toLocaleString("en");
  els.cacheStat.title = `Chunks placed from the decoded-chunk cache (no request, no decode): ${cacheHits} hits, ${cacheMisses} misses`;
};
worker.onFatal = (f) => {
  banner(f);
  document.body.dataset.state = "failed";
};
window.addEventListener("error", (e) => banner({ code: "Error", message: e.message, path: null, key: null }));
window.addEventListener("unhandledrejection", (e) =>
  banner({ code: "Error", message: String((e.reason as Error)?.message ?? e.reason), path: null, key: null }),
);

/** The store URL of what the address asks for: ?url=, else the sample. */
function requestedUrl(): string {
  const asked = new URLSearchParams(location.search).get("url");
  return new URL(asked !== null && asked.trim() !== "" ? asked.trim() : SAMPLE, location.href).href;
}

/** The Icechunk ref the page's address names (`?ref=tag:v1`), if any. */
function requestedRef(): IcechunkRef | undefined {
  const asked = new URLSearchParams(location.search).get("ref");
  return asked === null || asked.trim() === "" ? undefined : parseRef(asked.trim());
}

/** "tag:v1" as a ref ("main" is a branch). */
function parseRef(text: string): IcechunkRef {
  const colon = text.indexOf(":");
  const [kind, name] = colon < 0 ? ["branch", text] : [text.slice(0, colon), text.slice(colon + 1)];
  if (kind === "tag") return { tag: name };
  if (kind === "snapshot") return { snapshot: name };
  return { branch: name };
}

/** A ref as the picker and the address write it ("branch:main"). */
function refText(ref: IcechunkRef | undefined): string {
  if (ref === undefined) return "branch:main";
  if ("tag" in ref) return `tag:${ref.tag}`;
  if ("snapshot" in ref) return `snapshot:${ref.snapshot}`;
  return `branch:${ref.branch}`;
}

/** The picker of an Icechunk repository's branches, tags and snapshots, and the history of the one shown. */
function showIcechunk(url: string, ref: IcechunkRef | undefined, info: IcechunkInfo): void {
  const current = refText(ref);
  const option = (value: string, label: string) => h("option", { value }, label);
  const picker = h(
    "select",
    { id: "icechunk-ref", "aria-label": "Icechunk ref" },
    h(
      "optgroup",
      { label: "Branches" },
      info.branches.map((b) => option(`branch:${b.name}`, b.name)),
    ),
    h(
      "optgroup",
      { label: "Tags" },
      info.tags.map((t) => option(`tag:${t.name}`, t.name)),
    ),
    h(
      "optgroup",
      { label: "Snapshots" },
      info.history.map((s) => option(`snapshot:${s.id}`, `${s.id.slice(0, 8)}… ${s.message ?? ""}`.trim())),
    ),
  );
  if (![...picker.querySelectorAll("option")].some((o) => o.value === current)) picker.prepend(option(current, current));
  picker.value = current;
  picker.addEventListener("change", () => {
    const next = parseRef(picker.value);
    history.pushState(null, "", `${location.pathname}?url=${encodeURIComponent(url)}&ref=${encodeURIComponent(refText(next))}`);
    void load({ kind: "url", url, ref: next });
  });
  const when = (t: number | null) => (t === null ? "" : new Date(t).toISOString().replace("T", " ").slice(0, 19));
  replace(
    els.icechunk,
    h("div.icechunk-head", null, h("b", null, "Icechunk"), ` repository (spec ${info.specVersion}) at `, picker),
    info.refsError === null ? null : h("p.muted", null, `Refs not listed: ${info.refsError}`),
    h(
      "details.icechunk-history",
      null,
      h("summary", null, `History: ${info.history.length} snapshot${info.history.length === 1 ? "" : "s"}`),
      h(
        "ol",
        null,
        info.history.map((s) =>
          h("li", { dataset: { snapshot: s.id } }, h("code", null, s.id), " ", s.message ?? "", " ", h("span.muted", null, when(s.time))),
        ),
      ),
    ),
  );
  els.icechunk.hidden = false;
}

function pathFromHash(): string {
  try {
    return decodeURIComponent(location.hash.replace(/^#\/?/, "")).replace(/\/+$/, "");
  } catch {
    return "";
  }
}

function showTab(tab: "node" | "expected"): void {
  els.nodeView.hidden = tab !== "node";
  els.expectedView.hidden = tab !== "expected";
  els.tabNode.setAttribute("aria-selected", String(tab === "node"));
  els.tabExpected.setAttribute("aria-selected", String(tab === "expected"));
}

/** A node's errors and warnings, at it and below it; null until the validation has come. */
const verdict: Verdict = (path) => {
  if (hier === null || hier.problems === null) return null;
  let errors = 0;
  let warnings = 0;
  for (const p of hier.problems) {
    if (p.path !== path && !p.path.startsWith(path === "" ? "" : `${path}/`)) continue;
    if (p.severity === "error") errors++;
    else warnings++;
  }
  return { errors, warnings };
};

/** What the View cards of the hierarchy shown need. */
function viewContext(): ViewContext {
  const url = shown?.source.kind === "url" ? shown.source.url : null;
  return { worker, url, v3: hier?.root.summary?.zarr_format !== 2, select, verdict, walked: hier !== null };
}

/**
 * Before the walk ends: the panel of the node the address names, with its View card alone
 * (an image's picture, a plate's wells), opened on its own.
 */
function showFirstView(path: string): void {
  const slot = h("div.view-slot");
  replace(
    els.nodeView,
    h(
      "article.panel",
      { dataset: { path, early: "true" } },
      h(
        "header.panel-head",
        null,
        h("h2", { id: "node-title" }, path === "" ? "/" : `/${path}`),
        h("span.pill.pill-warn", null, "walking…"),
      ),
      h("div.panel-body", null, slot),
    ),
  );
  fillView(slot, path, viewContext());
  // The walk waits for this: the pictures in view come first.
  void viewCard(path, viewContext()).then((card) => {
    const go = () => worker.notify({ id: 0, type: "viewed" });
    if (card === null || card.querySelector("[data-settled=true]") !== null) go();
    else card.addEventListener(SETTLED, go, { once: true });
  });
}

/** Selects a node: its row (scrolled into view unless `reveal` is false) and its panel. */
function select(path: string, reveal = true): void {
  if (hier === null) {
    // Before the walk ends: the node's View alone (a plate's well clicked, say).
    if (document.body.dataset.state === "walking") {
      history.replaceState(null, "", `${location.pathname}${location.search}#/${path}`);
      showFirstView(path);
    }
    return;
  }
  const node = hier.byPath.get(path) ?? hier.root;
  selected = node.path;
  if (pathFromHash() !== selected) history.replaceState(null, "", `${location.pathname}${location.search}#/${selected}`);
  tree.select(node, reveal);
  replace(els.nodeView, renderPanel(hier, node, worker, select, viewContext()));
  showTab("node");
}

/** A claimed convention's pass/fail badge; a click opens the first node that claims it. */
function conventionBadge(c: Convention): HTMLElement {
  const where = c.claims.map((claim) => `${claim.claim} at /${claim.path}`).join(", ");
  const verdict = c.errors > 0 ? `✗ ${c.errors} error${c.errors === 1 ? "" : "s"}` : "✓";
  return h(
    `button.pill.convention.${c.errors > 0 ? "pill-bad" : "pill-good"}`,
    {
      type: "button",
      dataset: { spec: c.spec, valid: String(c.errors === 0) },
      title: `${c.title}: ${c.errors} error${c.errors === 1 ? "" : "s"}, ${c.warnings} warning${c.warnings === 1 ? "" : "s"}; claimed by ${where}`,
      onclick: () => select(c.claims[0]?.path ?? ""),
    },
    `${c.title} ${verdict}`,
  );
}

function summary(h0: Hierarchy): HTMLElement {
  const problems = h0.problems;
  const errors = problems?.filter((p) => p.severity === "error").length ?? 0;
  const warnings = (problems?.length ?? 0) - errors;
  const nodes = h0.byPath.size;
  const parts = [
    h("span", null, `${nodes.toLocaleString("en")} node${nodes === 1 ? "" : "s"}`),
    h0.consolidated && h("span.muted", null, "consolidated"),
    problems === null
      ? h("span.pill.pill-warn", null, "validating…")
      : problems.length === 0
        ? h("span.pill.pill-good", null, "valid")
        : h(
            "span.pill.pill-bad",
            null,
            `${errors} error${errors === 1 ? "" : "s"}${warnings ? `, ${warnings} warning${warnings === 1 ? "" : "s"}` : ""}`,
          ),
    h0.errors.length > 0 && h("span.pill.pill-warn", null, `${h0.errors.length} unreadable`),
    ...h0.conventions.map((c) => conventionBadge(c)),
  ];
  return h("div.summary-line", null, parts);
}

/** The label of a source in the URL box: its URL, or "local:" and the file or folder name. */
function labelOf(source: Source): string {
  switch (source.kind) {
    case "url":
      return source.url;
    case "zip":
      return `local:${source.file.name}`;
    case "files":
      return `local:${source.files[0]?.webkitRelativePath.split("/")[0] ?? "folder"}`;
    case "directory":
      return `local:${source.handle.name}`;
  }
}

/** Opens local data: the address no longer names a URL (local data has none). */
function loadLocal(source: Source): void {
  history.pushState(null, "", location.pathname);
  void load(source);
}

/** Marks the worker's steps of the first walk on the page's timeline (`zom:` and the step). */
function markSteps(timings: { [step: string]: number }): void {
  for (const [step, at] of Object.entries(timings)) {
    const name = `zom:${step}`;
    if (at > 0 && performance.getEntriesByName(name).length === 0)
      performance.mark(name, { startTime: Math.max(0, at - performance.timeOrigin) });
  }
}

/** Shows the walk's tree as soon as the worker sends it; its validation follows. */
function showTree(walked: Extract<Response, { type: "tree" }>): void {
  const first = performance.getEntriesByName(FIRST_TREE_MARK).length === 0;
  if (first) {
    markSteps(walked.timings);
    performance.mark("zom:tree-received");
  }
  hier = hierarchy(walked);
  els.version.textContent = `zom ${walked.version}`;
  els.progress.removeAttribute("value");
  els.walkStatus.textContent = `summarizing ${hier.byPath.size.toLocaleString("en")} node${hier.byPath.size === 1 ? "" : "s"}…`;
  els.download.disabled = false;
  replace(els.summary, summary(hier));
  tree.show(hier);
  // The first rows in the page: bench/explorer/first-tree.mjs times navigation start → this mark.
  if (first) performance.mark(FIRST_TREE_MARK);
  select(pathFromHash());
}

/** Adds zom's summaries of the nodes (kinds, shapes, data types) to the tree and the panel. */
function showSummaries(walked: Extract<Response, { type: "summaries" }>): void {
  if (hier === null) return;
  addSummaries(hier, JSON.parse(walked.summaries) as Parameters<typeof addSummaries>[1]);
  els.walkStatus.textContent = `validating ${hier.byPath.size.toLocaleString("en")} node${hier.byPath.size === 1 ? "" : "s"}…`;
  tree.refresh();
  // The panel again, with the summary; the tree stays where the user has scrolled it.
  select(selected, false);
  if (performance.getEntriesByName(DETAILS_MARK).length === 0) {
    markSteps(walked.timings);
    performance.mark(DETAILS_MARK);
  }
}

async function load(source: Source): Promise<void> {
  const mine = ++loading;
  const url = labelOf(source);
  shown = { source, label: url };
  hier = null;
  forgetViews();
  els.url.value = url;
  els.download.disabled = true;
  document.body.dataset.state = "walking";
  els.progress.hidden = false;
  els.progress.removeAttribute("value");
  els.walkStatus.textContent = "opening…";
  replace(els.summary);
  replace(els.tree);
  replace(els.icechunk);
  els.icechunk.hidden = true;
  replace(els.nodeView, h("p.muted", null, "Opening ", h("code.url", null, url), "…"));
  // The nodes found so far: until the walk ends, the tree shows them as they arrive.
  const arriving: string[] = [];
  try {
    const walked = await worker.call<"walked">({ type: "walk", source }, (p) => {
      if (mine !== loading) return;
      if (p.type === "progress") {
        els.progress.max = p.nodes + p.pending;
        els.progress.value = p.nodes;
        els.walkStatus.textContent = `walking: ${p.nodes} node${p.nodes === 1 ? "" : "s"} found, ${p.pending} request${p.pending === 1 ? "" : "s"} pending${p.errors ? `, ${p.errors} failed` : ""}`;
        if (p.found.length > 0 && hier === null) {
          for (const path of p.found) arriving.push(path);
          tree.show(hierarchy({ url, paths: arriving, errors: [], unlisted: [], consolidated: false }));
          document.body.dataset.arrived = String(arriving.length);
        }
      } else if (p.type === "opened") {
        showFirstView(pathFromHash());
      } else if (p.type === "icechunk") {
        if (source.kind === "url") showIcechunk(source.url, source.ref, p.info);
      } else if (p.type === "tree") {
        showTree(p);
      } else if (p.type === "summaries") {
        showSummaries(p);
      }
    });
    if (mine !== loading || hier === null) return;
    markSteps(walked.timings);
    addValidation(hier, walked);
    refreshVerdicts(verdict);
    els.progress.hidden = true;
    els.walkStatus.textContent = "";
    replace(els.summary, summary(hier));
    tree.refresh();
    select(selected, false);
    document.body.dataset.state = "ready";
  } catch (e) {
    if (mine !== loading) return;
    const f = e instanceof WorkerFailure ? e.failure : { code: "Error", message: String(e), path: null, key: null };
    els.progress.hidden = true;
    els.walkStatus.textContent = "";
    replace(els.tree, failureBox(f, "Could not open this hierarchy"));
    replace(
      els.nodeView,
      h(
        "article.panel",
        null,
        h("header.panel-head", null, h("h2", null, "Could not open")),
        h("div.panel-body", null, h("p", null, h("code.url", null, url)), failureBox(f, "Could not open this hierarchy")),
      ),
    );
    showTab("node");
    document.body.dataset.state = "failed";
  }
}

els.form.addEventListener("submit", (e) => {
  e.preventDefault();
  const raw = els.url.value.trim();
  if (shown !== null && raw === shown.label && shown.source.kind !== "url") {
    void load(shown.source);
    return;
  }
  let url: string;
  try {
    url = new URL(raw === "" ? SAMPLE : raw, location.href).href;
  } catch {
    banner({ code: "InvalidArgument", message: `not a URL: ${raw}`, path: null, key: null });
    return;
  }
  history.pushState(null, "", `${location.pathname}?url=${encodeURIComponent(url)}`);
  void load({ kind: "url", url });
});
window.addEventListener("popstate", () => void load({ kind: "url", url: requestedUrl(), ref: requestedRef() }));

// Local data: a folder (File System Access API where the browser has it, else an
// <input webkitdirectory>), a .zip or .ozx (a file input), or either dropped on the page.
type Picker = { showDirectoryPicker?: (options?: { mode?: string }) => Promise<FileSystemDirectoryHandle> };
els.openFolder.addEventListener("click", async () => {
  const picker = (window as unknown as Picker).showDirectoryPicker;
  if (picker === undefined) {
    els.folderInput.click();
    return;
  }
  try {
    loadLocal({ kind: "directory", handle: await picker.call(window, { mode: "read" }) });
  } catch (e) {
    if ((e as Error).name !== "AbortError") banner({ code: "Error", message: String((e as Error).message ?? e), path: null, key: null });
  }
});
els.openZip.addEventListener("click", () => els.zipInput.click());
els.folderInput.addEventListener("change", () => {
  const files = Array.from(els.folderInput.files ?? []);
  els.folderInput.value = "";
  if (files.length > 0) loadLocal({ kind: "files", files });
});
els.zipInput.addEventListener("change", () => {
  const file = els.zipInput.files?.[0];
  els.zipInput.value = "";
  if (file !== undefined) loadLocal({ kind: "zip", file });
});
type HandleItem = DataTransferItem & { getAsFileSystemHandle?: () => Promise<FileSystemHandle | null> };
document.addEventListener("dragover", (e) => {
  if (!e.dataTransfer?.types.includes("Files")) return;
  e.preventDefault();
  els.drop.hidden = false;
});
document.addEventListener("dragleave", (e) => {
  if (e.relatedTarget === null) els.drop.hidden = true;
});
document.addEventListener("drop", async (e) => {
  if (!e.dataTransfer?.types.includes("Files")) return;
  e.preventDefault();
  els.drop.hidden = true;
  // A folder arrives as a handle (Chromium); the handle must be asked for before awaiting.
  const item = e.dataTransfer.items[0] as HandleItem | undefined;
  const file = e.dataTransfer.files[0];
  const handle = item?.getAsFileSystemHandle?.();
  const got = handle === undefined ? null : await handle.catch(() => null);
  if (got?.kind === "directory") loadLocal({ kind: "directory", handle: got as FileSystemDirectoryHandle });
  else if (file !== undefined && /\.(zip|ozx)$/i.test(file.name)) loadLocal({ kind: "zip", file });
  else banner({ code: "InvalidArgument", message: "drop a Zarr folder, or a .zip or .ozx archive of one", path: null, key: null });
});
window.addEventListener("hashchange", () => {
  if (hier !== null && pathFromHash() !== selected) select(pathFromHash());
});
els.tabNode.addEventListener("click", () => showTab("node"));
els.tabExpected.addEventListener("click", () => showTab("expected"));
els.download.addEventListener("click", async () => {
  if (hier === null) return;
  try {
    const { text } = await worker.call<"stringify">({ type: "stringify" });
    const name =
      (hier.url.startsWith("local:") ? hier.url.slice(6) : new URL(hier.url).pathname).split("/").filter(Boolean).pop() ?? "hierarchy";
    const a = h("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: `${name}.zom.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  } catch (e) {
    if (e instanceof WorkerFailure) banner(e.failure);
  }
});
els.banner.addEventListener("click", () => {
  els.banner.hidden = true;
});

renderExpected(els.expectedView, worker, select);
void load({ kind: "url", url: requestedUrl(), ref: requestedRef() });
