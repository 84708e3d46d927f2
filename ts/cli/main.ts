/**
 * The `zom` command line (bin/zom.mjs): argument parsing, help, and the exit codes. The
 * commands themselves are in commands.ts.
 *
 * Exit codes: 0 done (and, for validate, nothing wrong); 1 problems found (validate: errors,
 * unreadable nodes, differences from `--spec`, and with `--strict` warnings and unlisted
 * groups; tree: unreadable nodes); 2 the command could not run (usage errors, a ZomError such
 * as NotFound or HttpError, a file-system error).
 * @module
 */
import { readFileSync } from "node:fs";
import { version as coreVersion, isZomError } from "../node.js";
import type { ZomError } from "../shared/errors.js";
import { COMMANDS } from "./commands.js";
import type { Command, Context } from "./context.js";
import { UsageError } from "./context.js";
import { escapeControls, showError } from "./format.js";

/** Options that take a value. */
const VALUED = new Set(["spec", "include", "exclude", "depth", "concurrency", "ref"]);
/** Options every command accepts. */
const GLOBAL = new Set(["help", "version"]);

/** The command line split into the command, its positional arguments and its options. */
interface Parsed {
  command: string | undefined;
  positional: string[];
  options: Map<string, string | true>;
}

function parse(argv: string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") options.set("help", true);
    else if (arg === "-V") options.set("version", true);
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (VALUED.has(name)) {
        const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
        if (value === undefined || value === "") throw new UsageError(`option --${name} needs a value`);
        options.set(name, value);
      } else {
        if (eq >= 0) throw new UsageError(`option --${name} takes no value`);
        options.set(name, true);
      }
    } else if (/^-[^\d:.\s]/.test(arg)) {
      // "-5:" and "-1" are selections, not options.
      throw new UsageError(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  return { command: positional.shift(), positional, options };
}

const HELP = `zom: read, inspect and validate Zarr v2/v3 hierarchies (local directories or http(s) URLs)

Usage:
  zom tree TARGET [--json] [--depth N]          the hierarchy as a tree (--json: its ZOM)
  zom validate TARGET [--spec FILE [--include F,…] [--exclude F,…]] [--strict] [--json] [--verdict] [--verbose]
                                                spec problems of every node, located; --spec
                                                also compares with an expected ZOM (JSON)
  zom validate --attributes FILE [--spec NAME|FILE] a group's attributes alone, against conventions
  zom get TARGET PATH [SELECTION] [--json]      values of an array (SELECTION like NumPy:
                                                0:10,3,:  ::2  -5:  ...)
  zom info TARGET [PATH] [--json]               shape, chunks, shards, data type, codecs, fill
                                                value, attributes, dimension names, chunks stored
  zom schema 2|3                                the JSON Schema of a v2 or v3 ZOM
  zom help [COMMAND]                            this text, or one command's

TARGET is a directory, a file: URL or an http(s) URL of a hierarchy's root, a .zip/.ozx
archive of one, kerchunk references (.json; path or URL), or an Icechunk repository (found
where the root has no zarr.json); PATH a node path inside it ("image/gradient"). Options:
  --json            machine-readable output (JSON; 64-bit integers exact)
  --progress        progress on stderr even when stderr is not a terminal
  --no-progress     no progress, even on a terminal
  --concurrency N   most store requests in flight (default: walks 16, reads no limit)
  --ref REF         an Icechunk repository's snapshot: a branch (main, branch:dev), a tag
                    (tag:v1) or a snapshot id (snapshot:ID); default the tip of main
  -h, --help        help;  -V, --version  the version

Exit codes: 0 fine; 1 problems found (validate: errors, unreadable nodes, differences from
--spec, and with --strict also warnings and groups that could not be listed; tree: unreadable
nodes); 2 the command could not run (usage, not found, HTTP or file errors), printed as
"zom: <code>: <message> (path …, key …)".
`;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** The streams the CLI writes to (process.stdout / process.stderr). */
export interface Streams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

function checkOptions(command: Command, options: Map<string, string | true>): void {
  for (const name of options.keys()) {
    if (!GLOBAL.has(name) && !command.options.includes(name)) {
      throw new UsageError(`zom ${command.name} has no option --${name}`);
    }
  }
}

/**
 * A stream whose text has its control characters escaped, line breaks aside. The formatters
 * escape every value they write (so that its line breaks cannot break the layout); this
 * catches a value one of them misses. On JSON text it changes only DEL, C1 and bidirectional
 * controls, which JSON allows raw, into \u escapes: the same JSON value.
 */
function escaping(stream: Streams["stderr"]): Streams["stderr"] {
  return { write: (text) => stream.write(escapeControls(text, true)), isTTY: stream.isTTY === true };
}

/**
 * Runs the command line `argv` (without "node" and the script) and resolves to the exit code.
 * Writes results to `streams.stdout`, progress and errors to `streams.stderr`; no control
 * character of a name, value or message reaches either raw.
 */
export async function main(argv: string[], streams: Streams = process): Promise<number> {
  const stdout = escaping(streams.stdout);
  const stderr = escaping(streams.stderr);
  try {
    const { command: name, positional, options } = parse(argv);
    if (options.has("version")) {
      stdout.write(`zom ${packageVersion()} (core ${coreVersion()})\n`);
      return 0;
    }
    if (name === undefined || name === "help") {
      const about = name === "help" ? positional[0] : undefined;
      const command = about === undefined ? undefined : COMMANDS.find((c) => c.name === about);
      if (about !== undefined && command === undefined) throw new UsageError(`unknown command '${about}'`);
      if (name === undefined && !options.has("help")) {
        stderr.write(HELP);
        return 2;
      }
      stdout.write(command ? command.help : HELP);
      return 0;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (command === undefined) throw new UsageError(`unknown command '${name}'`);
    if (options.has("help")) {
      stdout.write(command.help);
      return 0;
    }
    checkOptions(command, options);
    const [min, max] = command.arity;
    if (positional.length < min || positional.length > max) {
      throw new UsageError(`wrong number of arguments for zom ${command.name}`, command.help);
    }
    const progress = options.has("no-progress") ? false : options.has("progress") || stderr.isTTY === true;
    const context: Context = { args: positional, options, stdout, stderr, progress, progressTo: streams.stderr };
    return await command.run(context);
  } catch (e) {
    if (e instanceof UsageError) {
      stderr.write(`zom: ${escapeControls(e.message)}\n${e.help === undefined ? "Run 'zom help' for usage.\n" : `\n${e.help}`}`);
      return 2;
    }
    if (isZomError(e)) {
      stderr.write(`zom: ${showError(e as ZomError)}\n`);
      return 2;
    }
    const message = e instanceof Error ? e.message : String(e);
    stderr.write(`zom: ${escapeControls(message)}\n`);
    if (process.env.ZOM_DEBUG && e instanceof Error && e.stack) stderr.write(`${escapeControls(e.stack, true)}\n`);
    return 2;
  }
}
