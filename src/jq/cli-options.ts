/** `arbiter jq`'s command line, read as jq 1.7.1's src/main.c reads its own. */
import type { Json } from "../engines/common/json.js";
import { parseJsonSeq } from "./index.js";

/** A command line jq refuses: its message, then jq's hint, exit 2. */
export class JqUsageError extends Error {}

/** A named value that comes from a file (`--slurpfile`, `--rawfile`), read once the line is parsed. */
export interface FileArg {
  name: string;
  file: string;
  raw: boolean;
}

export interface JqOptions {
  slurp: boolean;
  rawInput: boolean;
  nullInput: boolean;
  rawOutput: boolean;
  rawOutput0: boolean;
  noNewline: boolean;
  ascii: boolean;
  color: boolean;
  monochrome: boolean;
  sortKeys: boolean;
  /** Indentation: spaces (0 = compact) or tabs, as the last of -c, --tab, --indent said. */
  indent: number | "tab";
  seq: boolean;
  stream: boolean;
  streamErrors: boolean;
  exitStatus: boolean;
  fromFile: boolean;
  unbuffered: boolean;
  help: boolean;
  version: boolean;
  /** The `-L` folders, in order; null when none was given (jq's default path then). */
  libDirs: string[] | null;
  /** `--arg`, `--argjson` values and `--slurpfile`/`--rawfile` names, in order; the first of a name wins. */
  named: Map<string, { value: Json } | FileArg>;
  positional: Json[];
  program: string | null;
  files: string[];
}

/** jq's isoptish: `-` then a letter, or `--`. */
function optionLike(a: string): boolean {
  return a[0] === "-" && (a[1] === "-" || /[a-zA-Z]/.test(a[1] ?? ""));
}

const SHORT: Record<string, (o: JqOptions) => void> = {
  s: (o) => (o.slurp = true),
  r: (o) => (o.rawOutput = true),
  j: (o) => ((o.rawOutput = true), (o.noNewline = true)),
  c: (o) => (o.indent = 0),
  C: (o) => (o.color = true),
  M: (o) => (o.monochrome = true),
  a: (o) => (o.ascii = true),
  S: (o) => (o.sortKeys = true),
  R: (o) => (o.rawInput = true),
  n: (o) => (o.nullInput = true),
  f: (o) => (o.fromFile = true),
  e: (o) => (o.exitStatus = true),
  h: (o) => (o.help = true),
  V: (o) => (o.version = true),
};

const LONG: Record<string, (o: JqOptions) => void> = {
  slurp: SHORT.s,
  "raw-output": SHORT.r,
  "raw-output0": (o) => ((o.rawOutput = true), (o.noNewline = true), (o.rawOutput0 = true)),
  "join-output": SHORT.j,
  "compact-output": SHORT.c,
  "color-output": SHORT.C,
  "monochrome-output": SHORT.M,
  "ascii-output": SHORT.a,
  unbuffered: (o) => (o.unbuffered = true),
  "sort-keys": SHORT.S,
  "raw-input": SHORT.R,
  "null-input": SHORT.n,
  "from-file": SHORT.f,
  tab: (o) => (o.indent = "tab"),
  seq: (o) => (o.seq = true),
  stream: (o) => (o.stream = true),
  "stream-errors": (o) => ((o.stream = true), (o.streamErrors = true)),
  "exit-status": SHORT.e,
  help: SHORT.h,
  version: SHORT.V,
};

/** Reads the arguments after `arbiter jq`; throws JqUsageError with jq's message for a line jq refuses. */
export function parseJqArgs(argv: readonly string[]): JqOptions {
  const o: JqOptions = {
    slurp: false,
    rawInput: false,
    nullInput: false,
    rawOutput: false,
    rawOutput0: false,
    noNewline: false,
    ascii: false,
    color: false,
    monochrome: false,
    sortKeys: false,
    indent: 2,
    seq: false,
    stream: false,
    streamErrors: false,
    exitStatus: false,
    fromFile: false,
    unbuffered: false,
    help: false,
    version: false,
    libDirs: null,
    named: new Map(),
    positional: [],
    program: null,
    files: [],
  };
  let rest: "files" | "strings" | "json" = "files";
  let done = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (done || !optionLike(a)) {
      if (o.program === null) o.program = a;
      else if (rest === "strings") o.positional.push(a);
      else if (rest === "json") o.positional.push(jsonArg(a, "--jsonargs"));
      else o.files.push(a);
      continue;
    }
    if (a === "--") {
      done = true;
      continue;
    }
    if (a[1] === "L") {
      o.libDirs ??= [];
      if (a.length > 2) o.libDirs.push(a.slice(2));
      else if (i + 1 >= argv.length)
        throw new JqUsageError("-L takes a parameter: (e.g. -L /search/path or -L/search/path)");
      else o.libDirs.push(argv[++i]);
      continue;
    }
    if (a.startsWith("--")) {
      const name = a.slice(2);
      const set = LONG[name];
      if (set !== undefined) {
        set(o);
        continue;
      }
      if (name === "args" || name === "jsonargs") {
        rest = name === "args" ? "strings" : "json";
        continue;
      }
      if (name === "indent") {
        if (i + 1 >= argv.length) throw new JqUsageError("jq: --indent takes one parameter");
        const n = Number.parseInt(argv[++i], 10) || 0;
        if (n < -1 || n > 7) throw new JqUsageError("jq: --indent takes a number between -1 and 7");
        o.indent = n === -1 ? "tab" : n;
        continue;
      }
      if (name === "arg" || name === "argjson" || name === "slurpfile" || name === "rawfile") {
        if (i + 2 >= argv.length) {
          const what = name === "arg" ? "value" : name === "argjson" ? "text" : "filename";
          throw new JqUsageError(`jq: --${name} takes two parameters (e.g. --${name} varname ${what})`);
        }
        const key = argv[i + 1];
        const value = argv[i + 2];
        i += 2;
        if (o.named.has(key)) continue;
        if (name === "arg") o.named.set(key, { value });
        else if (name === "argjson") o.named.set(key, { value: jsonArg(value, "--argjson") });
        else o.named.set(key, { name: key, file: value, raw: name === "rawfile" });
        continue;
      }
      throw new JqUsageError(`jq: Unknown option ${a}`);
    }
    for (const ch of a.slice(1)) {
      const set = SHORT[ch];
      if (set === undefined) throw new JqUsageError(`jq: Unknown option ${a}`);
      set(o);
    }
  }
  return o;
}

function jsonArg(text: string, option: string): Json {
  try {
    const vals = parseJsonSeq(text, true);
    if (vals.length === 1) return vals[0];
  } catch {
    // jq's message below
  }
  throw new JqUsageError(`jq: invalid JSON text passed to ${option}`);
}

/** What jq prints after a refused command line (src/main.c die()). */
export const DIE_HINT =
  "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq\n";
