/**
 * Reads the pool policy in HTCondor configuration syntax: continuation
 * lines, `#` comments, `NAME = value` (later wins), and `$(NAME)` /
 * `$(NAME:default)` macros expanded at use time.
 */
import { policyError, type PolicyError } from "../common/result.js";
import { finish, Pace, type Steps } from "../common/slices.js";

/** Where a piece of a logical line starts in the source: its offset in the line, and the source line and column. */
export interface SourcePiece {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** One assignment: the value as written and where it starts. */
export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly line: number;
  readonly column: number;
  /** Where each physical line of the value starts, by offset in `value`: continuation lines map back through these. */
  readonly pieces: readonly SourcePiece[];
}

/** The source `line:column` of an offset in an entry's value, across continuation lines. */
export function valuePosition(entry: ConfigEntry, offset: number): string {
  let piece = entry.pieces[0];
  for (const p of entry.pieces) if (p.offset <= offset) piece = p;
  return `${piece.line}:${piece.column + offset - piece.offset}`;
}

/** The assignments of a config file by upper-cased name (later assignments replace earlier ones). */
export type ConfigTable = Map<string, ConfigEntry>;

const ASSIGN = /^([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=(.*)$/s;

/** Splits the text into logical lines, assignments and errors. */
export function readConfig(text: string): { table: ConfigTable; errors: PolicyError[] } {
  return finish(readConfigSteps(text));
}

/**
 * The physical lines of a text one at a time, as `text.split(/\r?\n/)` gives
 * them, without cutting a text of a megabyte into lines all in one go.
 */
class Lines {
  private at = 0;
  private ahead: string | null = null;
  /** How many lines have been taken. */
  taken = 0;

  constructor(private readonly text: string) {}

  /** Whether every line has been taken. */
  get done(): boolean {
    return this.ahead === null && this.at > this.text.length;
  }

  /** The next line, not taken. */
  peek(): string {
    if (this.ahead === null) {
      const nl = this.text.indexOf("\n", this.at);
      const line = this.text.slice(this.at, nl < 0 ? this.text.length : nl);
      this.ahead = nl >= 0 && line.endsWith("\r") ? line.slice(0, -1) : line;
      this.at = nl < 0 ? this.text.length + 1 : nl + 1;
    }
    return this.ahead;
  }

  /** Takes the next line. */
  take(): string {
    const line = this.peek();
    this.ahead = null;
    this.taken++;
    return line;
  }
}

/** {@link readConfig} as resumable work (common/slices.ts): it yields as the lines it has read add up to a slice. */
export function* readConfigSteps(
  text: string,
  pace = new Pace(),
): Steps<{ table: ConfigTable; errors: PolicyError[] }> {
  const table: ConfigTable = new Map();
  const errors: PolicyError[] = [];
  const lines = new Lines(text);
  const isComment = (l: string) => /^\s*#/.test(l);
  while (!lines.done) {
    const startLine = lines.taken + 1;
    let line = lines.take();
    if (pace.spend(line.length + 1)) yield;
    if (isComment(line)) continue;
    const pieces: SourcePiece[] = [{ offset: 0, line: startLine, column: 1 }];
    // A continued line is gathered as parts joined once: appending to one string and
    // cutting its `\` off at every line copies it each time (quadratic in the lines).
    // The parts of each slice are joined at its checkpoint, so the join at the end is
    // of one piece per slice, never of a megabyte's lines in one go.
    if (line.endsWith("\\")) {
      const joined: string[] = [];
      let parts: string[] = [];
      const flush = () => {
        joined.push(parts.join(""));
        parts = [];
      };
      let length = 0;
      let cur = line;
      while (cur.endsWith("\\")) {
        parts.push(cur.slice(0, -1), " ");
        length += cur.length;
        cur = "";
        while (!lines.done && isComment(lines.peek()))
          if (pace.spend(lines.take().length + 1)) {
            flush();
            yield;
          }
        if (lines.done) break;
        pieces.push({ offset: length, line: lines.taken + 1, column: 1 });
        cur = lines.take();
        if (pace.spend(cur.length + 1)) {
          flush();
          yield;
        }
      }
      parts.push(cur);
      flush();
      line = joined.join("");
    }
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const lead = line.length - line.trimStart().length;
    const m = ASSIGN.exec(trimmed);
    if (m === null) {
      errors.push(
        policyError(
          "match_config_syntax",
          `policy line ${startLine}: expected NAME = value`,
          `${startLine}:${lead + 1}`,
        ),
      );
      continue;
    }
    const rest = m[2];
    const start = lead + trimmed.length - rest.length + (rest.length - rest.trimStart().length);
    // The pieces re-based on the value's first character, so an offset in the value finds its source line.
    let k = 0;
    while (k + 1 < pieces.length && pieces[k + 1].offset <= start) k++;
    const based: SourcePiece[] = [
      { offset: 0, line: pieces[k].line, column: pieces[k].column + start - pieces[k].offset },
    ];
    for (let j = k + 1; j < pieces.length; j++)
      based.push({ offset: pieces[j].offset - start, line: pieces[j].line, column: 1 });
    table.set(m[1].toUpperCase(), {
      name: m[1],
      value: rest.trim(),
      line: based[0].line,
      column: based[0].column,
      pieces: based,
    });
  }
  return { table, errors };
}

/** A macro problem found while expanding. */
export class MacroError {
  constructor(
    readonly code: string,
    readonly message: string,
  ) {}
}

/** How many macros may be expanded inside one another. */
export const MAX_MACRO_DEPTH = 32;
/** The longest text one expansion may produce, in characters. */
export const MAX_MACRO_CHARS = 100_000;

/**
 * Expands `$(NAME)` and `$(NAME:default)` recursively in a value; a cycle, an
 * unsupported form, macros nested past {@link MAX_MACRO_DEPTH} (a default
 * inside a default counts as a level, since each level rescans its text) or an
 * expansion longer than {@link MAX_MACRO_CHARS} is an error naming the macro.
 */
export function expand(
  value: string,
  table: ConfigTable,
  active: string[] = [],
  done = new Map<string, string>(),
  defaults = 0,
): string | MacroError {
  return finish(expandSteps(value, table, active, done, defaults, new Pace()));
}

/** {@link expand} as resumable work (common/slices.ts): it yields as the characters it has scanned add up to a slice. */
export function* expandSteps(
  value: string,
  table: ConfigTable,
  active: string[],
  done: Map<string, string>,
  defaults: number,
  pace: Pace,
): Steps<string | MacroError> {
  return yield* expandRange(value, 0, value.length, {}, table, active, done, defaults, pace);
}

const OPEN = 0x28; // (
const CLOSE = 0x29; // )
/** Characters read between two charges to the pace while matching parens, so a long text yields as it is read. */
const SCAN_CHUNK = 4096;

/** The work units of one macro use beyond the characters it covers (a lookup, a few slices, perhaps a nested expansion). */
const MACRO_UNITS = 64;

/** Where each `(` of a text is closed, found once per text (see {@link closingParens}); absent until a macro needs it. */
interface Parens {
  close?: Int32Array;
}

/**
 * The index of the `)` that closes each `(` of `value` (0 where none does), as
 * a scan from the `(` counting depth finds it: the scan reads only what
 * follows, so within any stretch of the text the first `)` it finds is the
 * same, and one pass over the text serves a default nested in a default at
 * every level (rescanning the rest of a line per level made macro defaults
 * nested 32 deep cost 32 passes over a megabyte).
 */
function* closingParens(value: string, pace: Pace): Steps<Int32Array> {
  const close = new Int32Array(value.length);
  const open: number[] = [];
  let charged = 0;
  for (let j = 0; j < value.length; j++) {
    const c = value.charCodeAt(j);
    if (c === OPEN) open.push(j);
    else if (c === CLOSE && open.length > 0) close[open.pop() as number] = j;
    if (j - charged >= SCAN_CHUNK) {
      const spent = pace.spend(j - charged);
      charged = j;
      if (spent) yield;
    }
  }
  if (pace.spend(value.length - charged)) yield;
  return close;
}

/** {@link expandSteps} of the stretch `value[from, to)` (a macro's default is a stretch of the text that holds it). */
function* expandRange(
  value: string,
  from: number,
  to: number,
  parens: Parens,
  table: ConfigTable,
  active: string[],
  done: Map<string, string>,
  defaults: number,
  pace: Pace,
): Steps<string | MacroError> {
  let out = "";
  let i = from;
  while (i < to) {
    const found = value.indexOf("$", i);
    const d = found < 0 || found >= to ? to : found;
    if (pace.spend(d - i + 1)) yield;
    if (d === to) {
      out += value.slice(i, to);
      break;
    }
    out += value.slice(i, d);
    const rest = value.slice(d, to);
    if (rest.startsWith("$$("))
      return new MacroError("match_macro_unsupported", "policy: `$$(...)` macros are not supported");
    const other = /^\$([A-Za-z_][A-Za-z0-9_]*)\(/.exec(rest);
    if (other !== null)
      return new MacroError(
        "match_macro_unsupported",
        `policy: \`$${other[1]}(...)\` macros are not supported`,
      );
    if (!rest.startsWith("$(")) {
      out += "$";
      i = d + 1;
      continue;
    }
    // the matching close paren (defaults may hold nested macros), from one pass over the text
    if (parens.close === undefined) parens.close = yield* closingParens(value, pace);
    if (pace.spend(MACRO_UNITS)) yield;
    const j = parens.close[d + 1];
    if (j === 0 || j >= to) return new MacroError("match_config_syntax", "policy: unterminated `$(`");
    // the colon searched within this macro only (a search of the rest of the text per macro was quadratic)
    const inName = value.slice(d + 2, j).indexOf(":");
    const colon = inName >= 0 ? d + 2 + inName : -1;
    const name = value.slice(d + 2, colon >= 0 ? colon : j).trim();
    const key = name.toUpperCase();
    if (active.includes(key)) return new MacroError("match_macro_cycle", `policy: macro cycle at $(${name})`);
    if (active.length + defaults >= MAX_MACRO_DEPTH) {
      return new MacroError(
        "match_macro_too_deep",
        `policy: $(${name}) is nested more than ${MAX_MACRO_DEPTH} macros deep`,
      );
    }
    const entry = table.get(key);
    let sub = "";
    if (entry !== undefined) {
      // a macro expands the same way wherever it is used: expand it once
      const e =
        done.get(key) ?? (yield* expandSteps(entry.value, table, [...active, key], done, defaults, pace));
      if (e instanceof MacroError) return e;
      done.set(key, e);
      sub = e;
    }
    if (colon >= 0 && sub === "") {
      const e = yield* expandRange(value, colon + 1, j, parens, table, active, done, defaults + 1, pace);
      if (e instanceof MacroError) return e;
      sub = e;
    }
    if (out.length + sub.length > MAX_MACRO_CHARS) {
      const where = active.length > 0 ? `$(${active[active.length - 1]})` : "the value";
      return new MacroError(
        "match_macro_too_large",
        `policy: expanding ${where} gives more than ${MAX_MACRO_CHARS} characters (at $(${name}))`,
      );
    }
    out += sub;
    i = j + 1;
  }
  return out;
}
