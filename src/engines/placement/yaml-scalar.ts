/**
 * The character level of our YAML reader: a cursor over the text that knows
 * the start of its current line, and the readers of quoted, block and plain
 * scalars with YAML's line folding. Every reader moves forward only, so
 * reading a text is linear in its length.
 */

/** A syntax error at a source offset; the reader stops at the first, as Go's yaml.v3 does. */
export class YamlSyntax extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;

/** Whether the code is a space, a tab, a line break or the end of the text (NaN). */
export function isBlankOrEnd(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR || Number.isNaN(c);
}

/** Whether the code is one of the flow indicators `,[]{}`. */
export function isFlowIndicator(c: number): boolean {
  return c === 44 || c === 91 || c === 93 || c === 123 || c === 125;
}

const ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};
const SINGLE_STOP = /['\r\n]/g;
const DOUBLE_STOP = /["\\\r\n]/g;
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** A position in the text and the start of the line it is on. */
export class Cursor {
  pos = 0;
  lineStart = 0;

  constructor(readonly src: string) {}

  /** The code at `pos + ahead` (NaN past the end). */
  at(ahead = 0): number {
    return this.src.charCodeAt(this.pos + ahead);
  }

  /** The column of the cursor, from 0. */
  get column(): number {
    return this.pos - this.lineStart;
  }

  /** Fails at `offset`. */
  fail(message: string, offset = this.pos): never {
    throw new YamlSyntax(message, offset);
  }

  /** Steps over one line break (`\n` or `\r\n`) at the cursor; false when there is none. */
  newline(): boolean {
    const c = this.at();
    if (c === CR && this.at(1) === LF) this.pos++;
    else if (c !== LF) return false;
    this.pos++;
    this.lineStart = this.pos;
    return true;
  }

  /** Skips spaces and tabs on the line. */
  spaces(): void {
    for (let c = this.at(); c === SPACE || c === TAB; c = this.at()) this.pos++;
  }

  /** Skips a comment (from `#` to the end of the line), if the cursor is on one. */
  comment(): void {
    if (this.at() !== 35) return;
    const end = this.src.indexOf("\n", this.pos);
    this.pos = end === -1 ? this.src.length : this.src[end - 1] === "\r" ? end - 1 : end;
  }

  /** Whether a `---` or `...` document marker starts at the cursor (it must be at a line's start). */
  atDocumentMarker(): boolean {
    if (this.pos !== this.lineStart) return false;
    const three = this.src.startsWith("---", this.pos) || this.src.startsWith("...", this.pos);
    return three && isBlankOrEnd(this.at(3));
  }

  /**
   * The breaks and indentation between two lines of a multi-line scalar: at a
   * line break, skips it and any blank lines; returns how many breaks it
   * crossed, leaving the cursor at the next line's first non-space.
   */
  private foldBreaks(): number {
    let breaks = 0;
    for (;;) {
      if (!this.newline()) break;
      breaks++;
      this.spaces();
    }
    return breaks;
  }

  /** One or more line breaks as folding makes them: one is a space, n are n - 1 newlines. */
  private static folded(breaks: number): string {
    return breaks === 1 ? " " : "\n".repeat(breaks - 1);
  }

  /** A single-quoted scalar from its opening quote. */
  singleQuoted(): string {
    const start = this.pos++;
    // the text before the current line, in pieces, and the current line
    const done: string[] = [];
    let out = "";
    for (;;) {
      const c = this.at();
      if (Number.isNaN(c)) this.fail("missing closing 'quote", start);
      if (c === 39) {
        if (this.at(1) === 39) {
          out += "'";
          this.pos += 2;
          continue;
        }
        this.pos++;
        return done.join("") + out;
      }
      if (c === LF || c === CR) {
        done.push(out);
        trimTrailingBlanks(done);
        done.push(Cursor.folded(this.foldBreaks()));
        out = "";
        this.quotedLineStart(start);
        continue;
      }
      const end = this.scanTo(SINGLE_STOP);
      out += this.src.slice(this.pos, end);
      this.pos = end;
    }
  }

  /** A double-quoted scalar from its opening quote, with YAML's escapes. */
  doubleQuoted(): string {
    const start = this.pos++;
    // the text before the current line, in pieces, and the current line
    const done: string[] = [];
    let out = "";
    for (;;) {
      const c = this.at();
      if (Number.isNaN(c)) this.fail('missing closing "quote', start);
      if (c === 34) {
        this.pos++;
        return done.join("") + out;
      }
      if (c === LF || c === CR) {
        done.push(out);
        trimTrailingBlanks(done);
        done.push(Cursor.folded(this.foldBreaks()));
        out = "";
        this.quotedLineStart(start);
        continue;
      }
      if (c === 92) {
        const e = this.src[this.pos + 1];
        if (e === "\n" || e === "\r") {
          this.pos++;
          this.foldBreaks();
          this.quotedLineStart(start);
          continue;
        }
        if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          this.pos += 2;
          continue;
        }
        const n = e === undefined ? undefined : HEX_LENGTH[e];
        const hex = n === undefined ? "" : this.src.slice(this.pos + 2, this.pos + 2 + n);
        if (n === undefined || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n)
          this.fail(`invalid escape sequence \\${e ?? ""}`);
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) this.fail(`invalid escape sequence \\${e}${hex}`);
        out += String.fromCodePoint(code);
        this.pos += 2 + n;
        continue;
      }
      const end = this.scanTo(DOUBLE_STOP);
      out += this.src.slice(this.pos, end);
      this.pos = end;
    }
  }

  /** The offset of the next character `stop` matches from the cursor, or the text's end. */
  private scanTo(stop: RegExp): number {
    stop.lastIndex = this.pos;
    return stop.exec(this.src) === null ? this.src.length : stop.lastIndex - 1;
  }

  /** A quoted scalar's next line must not be a document marker. */
  private quotedLineStart(start: number): void {
    if (this.pos - this.lineStart === 0 && this.atDocumentMarker()) this.fail("missing closing quote", start);
  }

  /**
   * A block scalar (`|` literal, `>` folded) from its indicator, for a node
   * whose parent is indented `parent` columns (-1 at the top level).
   */
  blockScalar(parent: number): string {
    const folded = this.at() === 62;
    this.pos++;
    let chomp: "clip" | "strip" | "keep" = "clip";
    let increment = 0;
    for (let i = 0; i < 2; i++) {
      const c = this.at();
      if ((c === 43 || c === 45) && chomp === "clip") chomp = c === 43 ? "keep" : "strip";
      else if (c >= 49 && c <= 57 && increment === 0) increment = c - 48;
      else break;
      this.pos++;
    }
    const afterHeader = this.pos;
    this.spaces();
    if (this.at() === 35 && this.pos > afterHeader) this.comment();
    if (!Number.isNaN(this.at()) && !this.newline())
      this.fail("unexpected text after a block scalar's header");
    let indent = increment > 0 ? Math.max(parent, 0) + increment : -1;
    // each line's text past the indentation ("" for an empty line) and whether a break ended it
    const texts: string[] = [];
    const broke: boolean[] = [];
    let leadingSpaces = 0;
    while (!Number.isNaN(this.at())) {
      const lineStart = this.pos;
      let n = 0;
      while (this.at() === SPACE && (indent === -1 || n < indent)) {
        this.pos++;
        n++;
      }
      const c = this.at();
      const empty = c === LF || c === CR || Number.isNaN(c);
      if (empty && indent === -1) leadingSpaces = Math.max(leadingSpaces, n);
      if (!empty) {
        if (indent === -1) {
          indent = n > parent ? n : Infinity;
          if (leadingSpaces > n && n > parent)
            this.fail("a leading empty line of a block scalar is indented more than its text", lineStart);
        }
        if (n < indent || (indent === 0 && this.atDocumentMarker())) {
          this.pos = lineStart;
          break;
        }
      }
      const end = this.src.indexOf("\n", this.pos);
      this.pos = end === -1 ? this.src.length : end;
      if (this.src.charCodeAt(this.pos - 1) === CR && this.pos > lineStart) this.pos--;
      texts.push(empty ? "" : this.src.slice(lineStart + n, this.pos));
      broke.push(this.newline());
    }
    let last = texts.length - 1;
    while (last >= 0 && texts[last] === "") last--;
    let trailing = 0;
    for (let i = Math.max(last, 0); i < texts.length; i++) if (broke[i]) trailing++;
    if (last < 0) return chomp === "keep" ? "\n".repeat(trailing) : "";
    const normal = (s: string) => s[0] !== " " && s[0] !== "\t";
    let out = "";
    let prev = -1;
    for (let i = 0; i <= last; i++) {
      if (texts[i] === "") continue;
      if (prev === -1) out += "\n".repeat(i);
      else {
        const k = i - prev - 1;
        out +=
          folded && normal(texts[prev]) && normal(texts[i])
            ? k === 0
              ? " "
              : "\n".repeat(k)
            : "\n".repeat(k + 1);
      }
      out += texts[i];
      prev = i;
    }
    if (chomp === "strip") return out;
    // a final line without its break still ends in one, as the `yaml` package reads it
    if (chomp === "clip") return out + "\n";
    return out + "\n".repeat(Math.max(trailing, 1));
  }

  /**
   * A plain scalar from its first character. In block context (`flow` false)
   * it goes on over lines indented more than `parent`; it ends before `: `,
   * ` #`, a line break it cannot continue past, and in flow context before
   * `,[]{}`. The cursor is left after its last non-space character.
   */
  plain(parent: number, flow: boolean, oneLine: boolean): string {
    let out = "";
    for (;;) {
      const start = this.pos;
      for (;;) {
        const c = this.at();
        if (Number.isNaN(c) || c === LF || c === CR) break;
        if (c === 58) {
          const n = this.at(1);
          if (isBlankOrEnd(n) || (flow && isFlowIndicator(n))) break;
        } else if (c === 35) {
          const p = this.src.charCodeAt(this.pos - 1);
          if (p === SPACE || p === TAB) break;
        } else if (flow && isFlowIndicator(c)) break;
        this.pos++;
      }
      let end = this.pos;
      while (end > start && (this.src.charCodeAt(end - 1) === SPACE || this.src.charCodeAt(end - 1) === TAB))
        end--;
      out += this.src.slice(start, end);
      const c = this.at();
      if (oneLine || !(c === LF || c === CR)) {
        this.pos = end;
        return out;
      }
      // maybe a continuation line
      const save = this.pos;
      const saveLine = this.lineStart;
      this.spaces();
      const breaks = this.foldBreaks();
      const c2 = this.at();
      const stop =
        breaks === 0 ||
        Number.isNaN(c2) ||
        c2 === 35 ||
        (!flow && this.column <= parent) ||
        this.atDocumentMarker() ||
        (flow && isFlowIndicator(c2)) ||
        (c2 === 58 && (isBlankOrEnd(this.at(1)) || (flow && isFlowIndicator(this.at(1)))));
      if (stop) {
        this.pos = end;
        this.lineStart = saveLine;
        if (save !== end) this.pos = end;
        return out;
      }
      out += Cursor.folded(breaks);
    }
  }
}

/**
 * Drops the spaces and tabs the pieces end with, across pieces, looking only
 * at their end: each piece dropped or shortened stays so, which keeps a
 * scalar of many folded lines linear (a regex anchored at `$` on the joined
 * text would search all of it at every line).
 */
function trimTrailingBlanks(pieces: string[]): void {
  while (pieces.length > 0) {
    const last = pieces[pieces.length - 1];
    let end = last.length;
    while (end > 0 && (last.charCodeAt(end - 1) === 32 || last.charCodeAt(end - 1) === 9)) end--;
    if (end > 0) {
      if (end < last.length) pieces[pieces.length - 1] = last.slice(0, end);
      return;
    }
    pieces.pop();
  }
}
