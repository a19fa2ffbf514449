/** `arbiter jq`: the jq 1.7.1 command line (src/main.c) on top of our engine: options, input, printing, exit codes. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Json } from "../engines/common/json.js";
import { compileErrorText, compileJq, JqError, parseJsonSeq } from "../jq/index.js";
import { JqInput, type InputFile } from "../jq/cli-input.js";
import { DEFAULT_LIB_DIRS, moduleFiles, realPath } from "./jq-module-files.js";
import { DIE_HINT, JqUsageError, parseJqArgs, type JqOptions } from "../jq/cli-options.js";
import { DEFAULT_COLORS, parseJqColors, type PrintOptions } from "../jq/cli-print.js";
import { runInputs } from "../jq/cli-run.js";

export interface JqIo {
  stdin: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Whether stdin / stdout are terminals (no program means `.` unless both are; colours when stdout is). */
  stdinIsTty?: boolean;
  stdoutIsTty?: boolean;
  /** The environment (`$ENV`, `HOME`, `NO_COLOR`, `JQ_COLORS`); the process's when not given. */
  env?: Record<string, string | undefined>;
  /** Where relative file names start; the process's working folder when not given. */
  cwd?: string;
}

/** jq's short usage, printed when there is no program and both stdin and stdout are terminals. */
const SHORT_USAGE =
  "Usage:\tjq [OPTIONS] FILTER [FILES...]\n\tjq [options] --args <jq filter> [strings...]\n\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n\nFor listing the command options, use jq --help.\n";

/** The folder `$ORIGIN` stands for in module search paths: the one holding the `arbiter` script. */
const ORIGIN = path.resolve(import.meta.dirname, "../../bin");

/** The reason jq gives (strerror) for a file it cannot read. */
function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "No such file or directory";
  if (code === "EACCES") return "Permission denied";
  if (code === "EISDIR") return "Is a directory";
  return (e as Error).message;
}

/** jq's skip_shebang for `-f` files: a `#!` line (and its `\`-continued comment line) is dropped. */
function skipShebang(p: string): string {
  if (!p.startsWith("#!")) return p;
  const n = p.indexOf("\n");
  if (n < 0 || p[n + 1] !== "#") return p;
  const m = p.indexOf("\n", n + 1);
  if (m < 0 || p[m + 1] === "#" || p[m + 1] === undefined || p[m - 1] !== "\\" || p[m - 2] === "\\") return p;
  const k = p.indexOf("\n", m + 1);
  return k < 0 ? p : p.slice(k + 1);
}

/** The `--arg`/`--argjson` values and the files of `--slurpfile`/`--rawfile`, read; or jq's message. */
function namedArgs(o: JqOptions, cwd: string): Record<string, Json> | string {
  const out: Record<string, Json> = {};
  for (const [name, v] of o.named) {
    if ("value" in v) {
      out[name] = v.value;
      continue;
    }
    const which = v.raw ? "rawfile" : "slurpfile";
    try {
      const text = readFileSync(path.resolve(cwd, v.file), "utf8");
      out[name] = v.raw ? text : parseJsonSeq(text, true);
    } catch (e) {
      const msg = e instanceof JqError ? String(e.value) : `Could not open ${v.file}: ${reason(e)}`;
      return `jq: Bad JSON in --${which} ${name} ${v.file}: ${msg}\n`;
    }
  }
  return out;
}

/** Whether a run reads stdin: no input files (or `-`), and not `-n` unless the program reads with `input`. */
export function wantsStdin(argv: string[]): boolean {
  try {
    const o = parseJqArgs(argv);
    if (o.files.length > 0 && !o.files.includes("-")) return false;
    return !o.nullInput || o.fromFile || (o.program ?? "").includes("input");
  } catch {
    return false;
  }
}

/** Runs `arbiter jq ARGS` and returns jq 1.7.1's exit status: 2 usage or input files, 3 compile, 5 runtime or parse error, -e rules. */
export async function runJqCommand(argv: string[], io: JqIo): Promise<number> {
  let o: JqOptions;
  try {
    o = parseJqArgs(argv);
  } catch (e) {
    if (e instanceof JqUsageError) {
      io.stderr(`${e.message}\n${DIE_HINT}`);
      return 2;
    }
    throw e;
  }
  if (o.help) {
    io.stdout(SHORT_USAGE);
    return 0;
  }
  if (o.version) {
    io.stdout("jq-1.7.1\n");
    return 0;
  }
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  let colors: string[] | null = (io.stdoutIsTty === true && !env.NO_COLOR) || o.color ? DEFAULT_COLORS : null;
  if (o.monochrome) colors = null;
  if (env.JQ_COLORS !== undefined) {
    const set = parseJqColors(env.JQ_COLORS);
    if (set === null) io.stderr("Failed to set $JQ_COLORS\n");
    else if (colors !== null) colors = set;
  }
  let program = o.program;
  if (program === null) {
    if (io.stdinIsTty === true && io.stdoutIsTty === true) {
      io.stderr(SHORT_USAGE);
      return 2;
    }
    program = ".";
  }
  let programOrigin = realPath(cwd);
  if (o.fromFile) {
    const file = path.resolve(cwd, program);
    try {
      program = skipShebang(readFileSync(file, "utf8"));
    } catch (e) {
      io.stderr(`jq: Could not open ${o.program}: ${reason(e)}\n`);
      return 2;
    }
    programOrigin = realPath(path.dirname(file));
  }
  const named = namedArgs(o, cwd);
  if (typeof named === "string") {
    io.stderr(named);
    return 2;
  }
  const libDirs =
    o.libDirs === null ? DEFAULT_LIB_DIRS : o.libDirs.map((d) => realPath(path.resolve(cwd, d)));
  const moduleProvider = moduleFiles({ libDirs, programOrigin, origin: ORIGIN, cwd, home: env.HOME });
  const compiled = compileJq(program, { args: named, positional: o.positional, moduleProvider });
  if (!compiled.ok) {
    for (const e of compiled.error) io.stderr(compileErrorText(program, e) + "\n");
    io.stderr(`jq: ${compiled.error.length} compile error${compiled.error.length === 1 ? "" : "s"}\n`);
    return 3;
  }
  let stdinRead = false;
  const files: InputFile[] = (o.files.length > 0 ? o.files : ["-"]).map((f) => {
    if (f === "-") {
      const text = stdinRead ? "" : io.stdin;
      stdinRead = true;
      return { name: "<stdin>", text };
    }
    try {
      return { name: f, text: readFileSync(path.resolve(cwd, f), "utf8") };
    } catch (e) {
      return { name: f, text: null, problem: reason(e) };
    }
  });
  const input = new JqInput(
    files,
    { raw: o.rawInput, slurp: o.slurp, stream: o.stream, seq: o.seq },
    io.stderr,
  );
  const print: PrintOptions = { indent: o.indent, sortKeys: o.sortKeys, ascii: o.ascii, colors };
  return runInputs(compiled.value, o, input, print, io, env);
}
