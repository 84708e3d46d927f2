/**
 * "Compare with an expected ZOM": a ZOM pasted or uploaded, compared with the open
 * hierarchy by zom's diff in the worker; every difference listed with where it is.
 * @module
 */
import type { ZomWorker } from "./client.js";
import { WorkerFailure } from "./client.js";
import { h, replace } from "./dom.js";
import { failureBox } from "./failure.js";
import { jsonText, locText } from "./json.js";
import type { Difference } from "./protocol.js";

const show = (v: unknown): string => (v === undefined ? "—" : jsonText(v, "", 60));

/** Builds the expected-ZOM view; `select` opens a node. */
export function renderExpected(root: HTMLElement, worker: ZomWorker, select: (path: string) => void): void {
  const text = h("textarea", {
    id: "expected-text",
    spellcheck: "false",
    rows: 14,
    placeholder: '{"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {…}}',
    "aria-label": "expected ZOM (JSON)",
  });
  const file = h("input", { id: "expected-file", type: "file", accept: ".json,application/json" });
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (f !== undefined) text.value = await f.text();
  });
  const exclude = h("input", {
    id: "expected-exclude",
    type: "text",
    placeholder: "e.g. attributes, codecs.*.configuration",
    "aria-label": "fields to ignore",
  });
  const results = h("div", { id: "expected-results", "aria-live": "polite" });
  const fill = h("button", { type: "button" }, "Start from the current ZOM");
  fill.addEventListener("click", async () => {
    try {
      text.value = (await worker.call<"stringify">({ type: "stringify" })).text;
    } catch (e) {
      if (e instanceof WorkerFailure) replace(results, failureBox(e.failure, "Could not write the ZOM"));
    }
  });
  const compare = h("button.primary", { id: "expected-compare", type: "submit" }, "Compare");
  const form = h(
    "form.expected-form",
    null,
    h(
      "p.muted",
      null,
      "Paste or upload the ZOM the hierarchy should have (pydantic-zarr's JSON, e.g. GroupSpec.model_dump_json()). zom lists every difference, located.",
    ),
    text,
    h("div.expected-row", null, h("label", null, "Upload ", file), fill),
    h("label.expected-exclude", null, "Ignore fields ", exclude),
    h("div.expected-row", null, compare),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    replace(results, h("p.muted", null, "comparing…"));
    const fields = exclude.value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      const { differences } = await worker.call<"diff">({ type: "diff", expected: text.value, exclude: fields });
      replace(results, differencesView(differences, select));
    } catch (err) {
      const f = err instanceof WorkerFailure ? err.failure : { code: "Error", message: String(err), path: null, key: null };
      replace(results, failureBox(f, "Could not compare"));
    }
  });
  replace(root, h("section.card", null, h("h3", null, "Compare with an expected ZOM"), form), results);
}

function differencesView(differences: Difference[], select: (path: string) => void): HTMLElement {
  if (differences.length === 0) return h("p.ok.expected-summary", null, "No differences: the hierarchy matches the expected ZOM.");
  return h(
    "section.card",
    null,
    h("h3.expected-summary", null, `${differences.length} difference${differences.length === 1 ? "" : "s"}`),
    h(
      "table.diff",
      null,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["node", "location", "kind", "expected", "actual", "message"].map((c) => h("th", null, c)),
        ),
      ),
      h(
        "tbody",
        null,
        differences.map((d) =>
          h(
            "tr",
            { class: `diff-${d.kind}` },
            h(
              "td",
              null,
              h(
                "a",
                {
                  href: `#/${d.path}`,
                  onclick: (e: Event) => {
                    e.preventDefault();
                    select(d.path);
                  },
                },
                `/${d.path}`,
              ),
            ),
            h("td", null, h("code", null, locText(d.loc) || "(node)")),
            h("td", null, h(`span.dk.dk-${d.kind}`, null, d.kind)),
            h("td", null, h("pre.cell", null, show(d.expected))),
            h("td", null, h("pre.cell", null, show(d.actual))),
            h("td.message", null, d.message),
          ),
        ),
      ),
    ),
  );
}
