/**
 * `arbiter jq`'s input: the named files (or stdin) read as one stream, as jq 1.7.1's src/util.c reads
 * them: one JSON parser across every file (a value may span two files), lines counted per file for
 * `jq: error (at FILE:LINE)`, a file that cannot be opened reported when the stream reaches it.
 */
import type { Json } from "../engines/common/json.js";
import { jqKeys, jqType, JsonReader } from "./index.js";

/** One input file: its name as jq prints it (`<stdin>` for `-`) and its text; text null when it could not be opened. */
export interface InputFile {
  name: string;
  text: string | null;
  /** Why it could not be opened (jq: `Could not open file X: <reason>`). */
  problem?: string;
}

export interface InputMode {
  raw: boolean;
  slurp: boolean;
  stream: boolean;
  seq: boolean;
}

/** What `next` gives: a value, a parse error (jq's message), or the end. */
export type Next = { value: Json } | { error: string } | undefined;

interface Segment {
  name: string;
  start: number;
  end: number;
}

/** The values of the input stream, one at a time, with jq's idea of where the stream is. */
export class JqInput {
  private readonly text: string;
  private readonly segments: Segment[] = [];
  /** Files that could not be opened: where the stream reaches them, and jq's message. */
  private readonly missing: Array<{ at: number; message: string }> = [];
  private pos = 0;
  private reader: JsonReader | null;
  private pending: Json[] = [];
  private slurped = false;
  private ended = false;
  private started = false;
  /** Files that could not be opened so far (jq's input failures: the main loop stops, exit 2). */
  failures = 0;

  constructor(
    files: InputFile[],
    private readonly mode: InputMode,
    private readonly report: (message: string) => void,
  ) {
    let text = "";
    for (const f of files) {
      if (f.text === null)
        this.missing.push({
          at: text.length,
          message: `jq: error: Could not open file ${f.name}: ${f.problem ?? "No such file or directory"}\n`,
        });
      else {
        this.segments.push({ name: f.name, start: text.length, end: text.length + f.text.length });
        text += f.text;
      }
    }
    this.text = text;
    this.reader = mode.raw ? null : new JsonReader(mode.seq ? text.replace(/\u001e/g, " ") : text, true);
  }

  /** Reports the files the stream has reached that could not be opened; `eof` when it has read everything. */
  private reach(end: number, eof: boolean): void {
    while (this.missing.length > 0 && (this.missing[0].at < end || eof)) {
      this.report((this.missing.shift() as { message: string }).message);
      this.failures++;
    }
  }

  /** The next input value (`-s`: all of them as one), a parse error, or undefined at the end. */
  next(): Next {
    if (this.mode.slurp) {
      if (this.slurped) return undefined;
      this.slurped = true;
      this.started = true;
      if (this.mode.raw) {
        this.pos = this.text.length;
        this.reach(this.pos, true);
        return { value: this.text };
      }
      const all: Json[] = [];
      for (;;) {
        const r = this.one();
        if (r === undefined) return { value: all };
        if ("error" in r) return r;
        all.push(r.value);
      }
    }
    return this.one();
  }

  private one(): Next {
    this.started = true;
    if (this.pending.length > 0) return { value: this.pending.shift() as Json };
    if (this.ended) return undefined;
    if (this.reader === null) return this.line();
    let v: Json | undefined;
    try {
      v = this.reader.read();
    } catch (e) {
      this.ended = true;
      this.pos = this.reader.pos;
      this.reach(this.pos, false);
      return { error: String((e as { value?: unknown }).value ?? e) };
    }
    this.pos = this.reader.pos;
    this.reach(this.pos, v === undefined);
    if (v === undefined) {
      this.ended = true;
      return undefined;
    }
    if (!this.mode.stream) return { value: v };
    streamEvents(v, [], this.pending);
    return { value: this.pending.shift() as Json };
  }

  /** `-R`: the next line, without its newline; a last line without one still counts. */
  private line(): Next {
    if (this.pos >= this.text.length) {
      this.reach(this.pos, true);
      this.ended = true;
      return undefined;
    }
    const nl = this.text.indexOf("\n", this.pos);
    const end = nl < 0 ? this.text.length : nl;
    const value = this.text.slice(this.pos, end);
    this.pos = nl < 0 ? end : nl + 1;
    this.reach(this.pos, false);
    return { value };
  }

  /** Where jq says the stream is (`FILE:LINE`, lines of the current file read so far), or `<unknown>` before any input. */
  position(): string {
    if (!this.started || this.segments.length === 0) return "<unknown>";
    const q = Math.max(0, this.pos - 1);
    const seg = this.segments.find((s) => q < s.end) ?? this.segments[this.segments.length - 1];
    if (this.pos === 0) return `${seg.name}:0`;
    const before = countNewlines(this.text, seg.start, Math.min(q, seg.end));
    const rest = this.text.indexOf("\n", q);
    return `${seg.name}:${before + (rest >= 0 && rest < seg.end ? 1 : 0)}`;
  }
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf("\n", from); i >= 0 && i < to; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** `--stream`: a value as jq's streaming parser gives it: `[path, leaf]` events, then `[path]` when a container closes. */
export function streamEvents(v: Json, path: Json[], out: Json[]): void {
  const t = jqType(v);
  const entries: Array<[Json, Json]> =
    t === "array"
      ? (v as Json[]).map((x, i) => [i, x])
      : t === "object"
        ? jqKeys(v as Record<string, Json>).map((k) => [k, (v as Record<string, Json>)[k]])
        : [];
  if (entries.length === 0) {
    out.push([path, v]);
    return;
  }
  for (const [k, x] of entries) streamEvents(x, [...path, k], out);
  out.push([[...path, entries[entries.length - 1][0]]]);
}
