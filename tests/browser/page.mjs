// Runs zom in the page, the way a web app without a bundler would (import the package's
// entry; it loads its WebAssembly itself), and leaves the results on window.zomResults.
const results = {};
const table = document.getElementById("results");

function show(step, ok, text) {
  const row = table.insertRow();
  row.insertCell().textContent = step;
  const cell = row.insertCell();
  cell.className = ok ? "ok" : "fail";
  const pre = document.createElement("pre");
  pre.textContent = text;
  cell.append(pre);
}

/** Runs one step; a throw is recorded as { error: { name, code, message } } for the test. */
async function step(name, fn, summary) {
  try {
    const value = await fn();
    results[name] = { value };
    show(name, true, summary(value));
  } catch (e) {
    results[name] = { error: { name: e?.name, code: e?.code ?? null, message: String(e?.message ?? e) } };
    show(name, false, `${e?.name}: ${e?.message}`);
  }
}

try {
  // The reader ("zom") and the validator ("zom/validate"), as one namespace.
  const zom = { ...(await import("/pkg/index.js")), ...(await import("/pkg/validate.js")) };
  const { fromDocuments, jsonSchema, stringify, validateDocument, version } = zom;
  results.isZomError = typeof zom.isZomError === "function";
  await step(
    "version",
    () => version(),
    (v) => v,
  );

  const bytes = new Uint8Array(await (await fetch("/tests/fixtures/v3-consolidated/zarr.json")).arrayBuffer());
  // JSON text, since structured clone to the test cannot carry the ZOM's BigInts as JSON.
  await step(
    "fromDocuments",
    () => stringify(fromDocuments(new Map([["zarr.json", bytes]]))),
    (text) => `${Object.keys(JSON.parse(text).members).length} members from the consolidated zarr.json`,
  );

  const array = {
    zarr_format: 3,
    node_type: "array",
    shape: [10, 20],
    data_type: "float32",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [5, 20] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: "NaN",
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    attributes: {},
  };
  const summary = (r) =>
    `valid: ${r.valid}\n${r.problems.map((p) => `${p.kind} at /${p.path} [${p.loc.join(", ")}]: ${p.message}`).join("\n")}`;
  await step("validateDocument(valid)", () => validateDocument(array, { key: "a/zarr.json" }), summary);
  const broken = { ...array, shape: "ten" };
  delete broken.chunk_grid;
  await step("validateDocument(broken)", () => validateDocument(broken, { key: "a/zarr.json" }), summary);

  await step(
    "jsonSchema(3)",
    () => JSON.parse(stringify(jsonSchema(3))),
    (s) => `${s.$schema}\n${s.title ?? ""}`,
  );
  await step("fromDocuments(garbage)", () => fromDocuments(new Map([["zarr.json", new Uint8Array([1, 2, 3])]])), String);
  document.getElementById("status").textContent = "done";
} catch (e) {
  results.fatal = String(e?.stack ?? e);
  document.getElementById("status").textContent = `failed: ${e}`;
}
window.zomResults = results;
