/** `arbiter jq`: the jq 1.7.1 command line on top of our engine (options, exit codes, printing). */
import { readFile } from "node:fs/promises";
import type { Json } from "../engines/common/json.js";
import { compileJq, formatJson, parseJsonSeq, printCompact } from "../jq/index.js";

export interface JqIo {
  stdin: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

interface Opts {
  compact: boolean;
  raw: boolean;
  join: boolean;
  nullInput: boolean;
  slurp: boolean;
  exitStatus: boolean;
  tab: boolean;
  indent: number;
  sortKeys: boolean;
  args: Record<string, Json>;
  program: string | null;
  files: string[];
}

const USAGE = "Usage:\tarbiter jq [OPTIONS] FILTER [FILES...]\n";

class UsageError extends Error {}

function parseArgs(argv: string[]): Opts {
  const o: Opts = {
    compact: false, raw: false, join: false, nullInput: false, slurp: false, exitStatus: false,
    tab: false, indent: 2, sortKeys: false, args: {}, program: null, files: [],
  };
  const LONG: Record<string, keyof Opts> = {
    "--compact-output": "compact", "--raw-output": "raw", "--join-output": "join", "--null-input": "nullInput",
    "--slurp": "slurp", "--exit-status": "exitStatus", "--tab": "tab", "--sort-keys": "sortKeys",
  };
  const SHORT: Record<string, keyof Opts> = { c: "compact", r: "raw", j: "join", n: "nullInput", s: "slurp", e: "exitStatus", S: "sortKeys" };
  let onlyPositional = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const positional = (): void => {
      if (o.program === null) o.program = a;
      else o.files.push(a);
    };
    if (onlyPositional || !a.startsWith("-") || a === "-") {
      positional();
      continue;
    }
    if (a === "--") {
      onlyPositional = true;
      continue;
    }
    if (a in LONG) {
      (o as unknown as Record<string, boolean>)[LONG[a]] = true;
      continue;
    }
    if (a === "--arg" || a === "--argjson") {
      const name = argv[i + 1];
      const value = argv[i + 2];
      if (name === undefined || value === undefined) throw new UsageError(`${a} takes two parameters (e.g. ${a} varname value)`);
      if (a === "--arg") o.args[name] = value;
      else {
        try {
          const vals = parseJsonSeq(value, true);
          if (vals.length !== 1) throw new Error("one value");
          o.args[name] = vals[0];
        } catch {
          throw new UsageError(`Invalid JSON text passed to --argjson`);
        }
      }
      i += 2;
      continue;
    }
    if (a === "--indent") {
      const n = Number(argv[i + 1]);
      if (!Number.isInteger(n) || n < 0) throw new UsageError("--indent takes a number");
      if (n > 7) throw new UsageError("Cannot indent more than 7 characters");
      o.indent = n;
      i++;
      continue;
    }
    if (/^-[a-zA-Z]+$/.test(a)) {
      for (const ch of a.slice(1)) {
        const key = SHORT[ch];
        if (key === undefined) throw new UsageError(`Unknown option: ${a}`);
        (o as unknown as Record<string, boolean>)[key] = true;
      }
      continue;
    }
    throw new UsageError(`Unknown option: ${a}`);
  }
  if (o.join) o.raw = true;
  return o;
}

function render(v: Json, o: Opts): string {
  if (o.raw && typeof v === "string") return v;
  if (o.compact) return o.sortKeys ? formatJson(v, { indent: 0, sortKeys: true }) : printCompact(v);
  return formatJson(v, { indent: o.indent, tab: o.tab, sortKeys: o.sortKeys });
}

/** Runs `arbiter jq ...` and returns the exit code jq 1.7.1 would (2 usage, 3 compile, 5 runtime, -e rules). */
export async function runJqCommand(argv: string[], io: JqIo): Promise<number> {
  let o: Opts;
  try {
    o = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`jq: error: ${e.message}\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  if (o.program === null) {
    io.stderr(USAGE);
    return 2;
  }
  const compiled = compileJq(o.program, { args: o.args });
  if (!compiled.ok) {
    for (const e of compiled.error) io.stderr(`jq: error: ${e.message} at <top-level>, line ${e.at.split(":")[0]}:\n`);
    io.stderr(`jq: ${compiled.error.length} compile error${compiled.error.length === 1 ? "" : "s"}\n`);
    return 3;
  }
  let text = "";
  {
    if (o.files.length === 0) text = io.stdin;
    else {
      try {
        for (const f of o.files) text += (await readFile(f, "utf8")) + "\n";
      } catch (e) {
        io.stderr(`jq: error: Could not open ${(e as NodeJS.ErrnoException).path ?? "file"}: ${(e as Error).message}\n`);
        return 2;
      }
    }
  }
  let values: Json[] = [];
  if (!o.nullInput || o.files.length > 0 || text !== "") {
    try {
      values = parseJsonSeq(text, true);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String((e as { value?: unknown }).value);
      io.stderr(`jq: error (at <stdin>:0): Cannot parse input: ${msg}\n`);
      return 2;
    }
    if (o.slurp) values = [values];
  }
  // jq reads one stream: the main loop and `input`/`inputs` both take the next value from it
  let next = 0;
  const take = (): Json | undefined => (next < values.length ? values[next++] : undefined);
  const now = Date.now() / 1000;
  let exit = 0;
  let last: Json | undefined;
  let any = false;
  for (;;) {
    let input: Json;
    if (o.nullInput) input = null;
    else {
      const v = take();
      if (v === undefined) break;
      input = v;
    }
    const r = compiled.value.run(input, { now, keepLiterals: true, input: take, env: process.env as Record<string, string>, debug: (m) => io.stderr(printCompact(m) + "\n") });
    for (const v of r.outputs) {
      io.stdout(render(v, o) + (o.join ? "" : "\n"));
      last = v;
      any = true;
    }
    if (r.error !== undefined) {
      if (r.halt) {
        io.stderr(r.error);
        return r.halt.code;
      }
      io.stderr(`jq: error (at <stdin>:0): ${r.error}\n`);
      exit = 5;
    }
    if (o.nullInput) break;
  }
  if (exit !== 0) return exit;
  if (o.exitStatus) {
    if (!any) return 4;
    return last === null || last === false ? 1 : 0;
  }
  return 0;
}
