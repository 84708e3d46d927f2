import type { ZarrArray } from "../node.js";
import { openArray } from "../node.js";
import { jsonSchema, stringify } from "../validate.js";
import type { Command } from "./context.js";
import { concurrencyOf, json, positiveInt, target, traffic, UsageError, walkTarget, warnUnread } from "./context.js";
import { plural, textValues, treeLines, valuesOf } from "./format.js";
import { info } from "./info-command.js";
import { Progress } from "./progress.js";
import { parseSelection, SelectionSyntaxError, toSelection } from "./selection.js";
import { validate } from "./validate-command.js";

const tree: Command = {
  name: "tree",
  arity: [1, 1],
  options: ["json", "depth", "progress", "no-progress", "concurrency", "ref"],
  help: `Usage: zom tree TARGET [--json] [--depth N] [--progress]

Walks the hierarchy (consolidated metadata when present, else the store's listing) and prints
one line per node: kind, format, and for arrays shape, data type, chunks and codecs. --json
prints the ZOM instead (pydantic-zarr's JSON; usable as 'zom validate --spec'). --depth N stops
N levels below the root. Nodes that cannot be read are listed on stderr; the exit code is then 1.
`,
  async run(ctx) {
    const t = await target(ctx, ctx.args[0] ?? "");
    const result = await walkTarget(ctx, t, positiveInt(ctx, "depth"));
    if (ctx.options.has("json")) json(ctx, result);
    else ctx.stdout.write(`${treeLines(result).join("\n")}\n`);
    warnUnread(ctx, result);
    return result.errors.length ? 1 : 0;
  },
};

const get: Command = {
  name: "get",
  arity: [2, 3],
  options: ["json", "progress", "no-progress", "concurrency", "ref"],
  help: `Usage: zom get TARGET PATH [SELECTION] [--json] [--progress]

Reads the array at PATH, or the part SELECTION names, written like NumPy's indexing: entries
separated by commas, each an index (3, -1), a slice start:stop:step with parts left out
(0:10, ::2, -5:, :), or ... for all remaining dimensions; missing trailing entries select
whole dimensions. Only the chunks the selection touches are read.

Prints the values as NumPy does (summarised beyond 1000 elements). --json prints
{path, dtype, shape, values}: every value, flat in C order, NaN and infinities as strings,
complex numbers as [re, im], byte strings as base64, datetimes as integer counts of their unit.
`,
  async run(ctx) {
    const [where = "", path = "", selectionText = ""] = ctx.args;
    let parsed: ReturnType<typeof parseSelection>;
    try {
      parsed = parseSelection(selectionText);
    } catch (e) {
      if (e instanceof SelectionSyntaxError) throw new UsageError(e.message);
      throw e;
    }
    const t = await target(ctx, where);
    const arr: ZarrArray = await openArray(t.store, path);
    if (arr.readError) throw arr.readError;
    const progress = new Progress(ctx.progressTo, ctx.progress);
    let result: Awaited<ReturnType<ZarrArray["get"]>>;
    try {
      result = await arr.get(toSelection(parsed, arr.shape.length), {
        ...concurrencyOf(ctx),
        onProgress: (p) => progress.update(() => `reading: ${p.done}/${plural(p.total, "chunk")}${traffic(t)}`),
      });
    } catch (e) {
      progress.clear();
      throw e;
    }
    progress.done(`read shape [${result.shape.join(", ")}]${traffic(t)}`);
    const values = valuesOf(result.data, arr.dtype);
    if (ctx.options.has("json")) {
      // One line, the values written directly: they may be millions.
      const head = stringify({ path: arr.path, dtype: arr.dtype, shape: result.shape });
      ctx.stdout.write(`${head.slice(0, -1)},"values":${values.json()}}\n`);
    } else {
      ctx.stdout.write(`${textValues(values, result.shape, arr.dtype)}\n`);
    }
    return 0;
  },
};

const schema: Command = {
  name: "schema",
  arity: [1, 1],
  options: [],
  help: `Usage: zom schema 2|3

Prints the JSON Schema (draft 2020-12) of a Zarr v2 or v3 ZOM.
`,
  async run(ctx) {
    const v = ctx.args[0];
    if (v !== "2" && v !== "3") throw new UsageError(`zom schema takes 2 or 3, got '${String(v)}'`);
    json(ctx, jsonSchema(v === "2" ? 2 : 3));
    return 0;
  },
};

/** Every command, in the order the help lists them. */

export const COMMANDS: Command[] = [tree, validate, get, info, schema];
