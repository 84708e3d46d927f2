// Test helpers: fixture reading, a JSON parser independent of zom that keeps big integers
// exact, a JSON comparison that names every differing location, and the CLI run as a child.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { readMetadataDocuments, root as repoRoot } from "../../scripts/lib.mjs";

export { repoRoot };
export const fixtures = join(repoRoot, "tests", "fixtures");

/** Node paths of a ZOM ("" for the root), sorted (once, at the end: sorting every level is quadratic). */
export function zomPaths(node) {
  const out = [];
  const collect = (n, path) => {
    out.push(path);
    for (const [name, child] of Object.entries(n.members ?? {})) collect(child, path ? `${path}/${name}` : name);
  };
  collect(node, "");
  return out.sort();
}

/** The four fixture hierarchies zarr-python wrote, with their pydantic-zarr dumps. */
export const HIERARCHIES = ["v3", "v3-consolidated", "v2", "v2-consolidated"];

/** Every metadata document of a fixture hierarchy, by store key ("a/zarr.json"), as bytes. */
export function readDocuments(name) {
  const docs = readMetadataDocuments(join(fixtures, name));
  if (docs.size === 0) throw new Error(`no metadata documents under ${join(fixtures, name)}`);
  return docs;
}

/** A fixture file parsed with {@link parseJsonExact}. */
export function readJson(...path) {
  return parseJsonExact(readFileSync(join(fixtures, ...path), "utf8"));
}

/**
 * JSON.parse, except that integers beyond ±(2^53−1) become BigInt (JSON.parse rounds them).
 * Written here rather than taken from zom so that it can check zom.
 */
export function parseJsonExact(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const out = {};
      ws();
      if (text[i] === "}") return (i++, out);
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        ws();
        if (text[i++] !== ":") fail("expected ':'");
        Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return (i++, out);
        else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const out = [];
      ws();
      if (text[i] === "]") return (i++, out);
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return (i++, out);
        else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m) {
      i += m[0].length;
      const n = Number(m[0]);
      return !m[2] && !m[3] && !Number.isSafeInteger(n) ? BigInt(m[0]) : n;
    }
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ]) {
      if (text.startsWith(word, i)) return ((i += word.length), v);
    }
    return fail("unexpected character");
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const out = value();
  ws();
  if (i !== text.length) fail("trailing characters");
  return out;
}

/** Every difference between two JSON values, as "location: actual vs expected" lines. */
export function jsonDifferences(actual, expected, at = "$", out = []) {
  const show = (v) => (typeof v === "bigint" ? `${v}n` : JSON.stringify(v));
  if (out.length >= 50) return out;
  const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) {
      out.push(`${at}: length ${actual.length} vs ${expected.length}`);
    }
    for (let k = 0; k < Math.min(actual.length, expected.length); k++) {
      jsonDifferences(actual[k], expected[k], `${at}[${k}]`, out);
    }
  } else if (isObj(actual) && isObj(expected)) {
    for (const k of Object.keys(expected)) {
      if (!Object.hasOwn(actual, k)) out.push(`${at}.${k}: missing (expected ${show(expected[k])})`);
      else jsonDifferences(actual[k], expected[k], `${at}.${k}`, out);
    }
    for (const k of Object.keys(actual)) {
      if (!Object.hasOwn(expected, k)) out.push(`${at}.${k}: unexpected ${show(actual[k])}`);
    }
  } else if (!Object.is(actual, expected)) {
    out.push(`${at}: ${show(actual)} vs expected ${show(expected)}`);
  }
  return out;
}

/** Fails with the list of differing locations unless the two JSON values are equal. */
export function assertJsonEqual(actual, expected, what) {
  const diffs = jsonDifferences(actual, expected);
  if (diffs.length) {
    throw new Error(`${what}: ${diffs.length} difference(s)\n  ${diffs.join("\n  ")}`);
  }
}

/** Each document's bytes parsed as JSON, by key. */
export function documentsAsJson(docs) {
  const out = {};
  for (const [key, bytes] of docs) out[key] = parseJsonExact(new TextDecoder().decode(bytes));
  return out;
}

/**
 * Runs `node bin/zom.mjs …args` asynchronously (a test server may share this process), killed
 * after `ms` milliseconds (0: never); resolves with the exit code, the signal that killed it,
 * and its output.
 * @returns {Promise<{code: number | null, signal: string | null, stdout: string, stderr: string}>}
 */
export function zomWithin(ms, ...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin", "zom.mjs"), ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: ms,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** {@link zomWithin} with a minute's bound. */
export function zom(...args) {
  return zomWithin(60_000, ...args);
}

/** The values of a zarrita-shaped region `{data, shape, stride}` in C order, read through its strides (`get(i)` for zarrita's array-likes). */
export function cOrderValues({ data, shape, stride }) {
  const n = shape.reduce((a, b) => a * b, 1);
  const at = (i) => (typeof data.get === "function" && !ArrayBuffer.isView(data) ? data.get(i) : data[i]);
  const out = [];
  for (let i = 0; i < n; i++) {
    let rest = i;
    let offset = 0;
    for (let d = shape.length - 1; d >= 0; d--) {
      offset += (rest % shape[d]) * stride[d];
      rest = Math.floor(rest / shape[d]);
    }
    out.push(at(offset));
  }
  return out;
}

/**
 * Runs `node [nodeArgs] script args` in `cwd`, killed after `timeoutMs`: resolves with the last
 * line it printed, rejects with its stderr when it fails (or, with `quiet`, prints to stderr).
 */
export function runNodeScript({ cwd, nodeArgs = [], script, args = [], timeoutMs = 120_000, quiet = false }) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0)
        return fail(new Error(`${script} ${nodeArgs.join(" ")} failed (${signal ?? `exit ${code}`}):\n${stderr.slice(0, 4000)}`));
      if (quiet && stderr.trim() !== "")
        return fail(new Error(`${script} ${nodeArgs.join(" ")} printed to stderr:\n${stderr.slice(0, 4000)}`));
      done(stdout.trim().split("\n").at(-1));
    });
  });
}

/** A fixture hierarchy's folder as the CLI tests give it: relative to the repository. */
export const fixtureDir = (name) => relative(repoRoot, join(fixtures, name));

/** Asserts a CLI run's exit code, showing its output when it differs. */
export function cliExits(result, code, what) {
  assert.equal(result.code, code, `${what}: exit ${result.code}\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr}`);
}

/** The files a package.json `exports` value (one entry's, or all of them) resolves to, its `types` conditions left out. */
export function exportTargets(value) {
  if (typeof value === "string") return [value];
  return Object.entries(value).flatMap(([condition, target]) => (condition === "types" ? [] : exportTargets(target)));
}
