/**
 * One recursive-descent parser for the four origins' regex syntaxes, giving
 * the common tree or the first problem (syntax error, or a construct that
 * needs backtracking) with its offset in the pattern.
 */
import type { AssertKind, Node, Parsed, ProblemKind, RegexProblem } from "./ast.js";
import { normaliseRanges, singleton, type CharSetSpec } from "./charset.js";
import {
  dollarBeforeFinalNewline,
  inlineFlagLetters,
  maxRepeat,
  perlClass,
  posixClass,
  type Origin,
} from "./dialect.js";

/** Matching options in force at a point of the pattern. */
export interface RegexFlags {
  /** Case-insensitive. */
  readonly i?: boolean;
  /** `^`/`$` match at line boundaries. */
  readonly m?: boolean;
  /** `.` matches a newline. */
  readonly s?: boolean;
  /** Extended: whitespace and `#` comments are ignored. */
  readonly x?: boolean;
  /** RE2's `U`: quantifiers are lazy by default. */
  readonly U?: boolean;
  /** Python's `a`: `\d \w \s \b` are ASCII-only. */
  readonly a?: boolean;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  U: boolean;
  a: boolean;
}

class Fail {
  constructor(readonly problem: RegexProblem) {}
}

const EMPTY: Node = { t: "empty" };
const HEX = /^[0-9a-fA-F]$/;

function hasCase(cp: number): boolean {
  const s = String.fromCodePoint(cp);
  return s.toLowerCase() !== s || s.toUpperCase() !== s || cp === 0x212a || cp === 0x17f;
}

/** A set spec negated: its flag flips (folding still applies before negation), or it nests. */
function negate(s: CharSetSpec): CharSetSpec {
  if (s.subs === undefined) return { ...s, negated: !s.negated };
  return { ranges: [], props: [], negated: true, fold: s.fold, subs: [s] };
}

/** How deep groups (and stacked quantifiers) may nest: Go's regexp/syntax and RE2 refuse past 1,000. */
export const MAX_NESTING = 1000;

class Parser {
  private pos = 0;
  private groupCount = 0;
  private readonly names: Array<string | null> = [];
  private inLook = false;
  /** Groups open at pos plus the quantifiers stacked on the atom being read: the tree's depth so far. */
  private depth = 0;

  constructor(
    private readonly p: string,
    private readonly origin: Origin,
    private flags: Flags,
  ) {}

  fail(kind: ProblemKind, offset: number, text: string, construct?: string): never {
    throw new Fail(construct === undefined ? { kind, offset, text } : { kind, offset, text, construct });
  }

  unsupported(offset: number, text: string, construct: string): never {
    if (this.origin === "re2")
      this.fail(text.startsWith("\\") ? "bad-escape" : "bad-group-syntax", offset, text);
    this.fail("unsupported", offset, text, construct);
  }

  parse(): Parsed {
    const node = this.alternation();
    if (this.pos < this.p.length) this.fail("unmatched-paren", this.pos, ")");
    return { node, names: this.names, word: perlClass(this.origin, "w", this.flags.a) };
  }

  private skipExtended(): void {
    if (!this.flags.x) return;
    const p = this.p;
    while (this.pos < p.length) {
      const c = p[this.pos];
      if (c === "#") {
        while (this.pos < p.length && p[this.pos] !== "\n") this.pos++;
      } else if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v") this.pos++;
      else break;
    }
  }

  private alternation(): Node {
    const saved = { ...this.flags };
    const xs: Node[] = [this.sequence()];
    while (this.p[this.pos] === "|") {
      this.pos++;
      xs.push(this.sequence());
    }
    this.flags = saved;
    return xs.length === 1 ? xs[0] : { t: "alt", xs };
  }

  private sequence(): Node {
    const xs: Node[] = [];
    for (;;) {
      this.skipExtended();
      const c = this.p[this.pos];
      if (c === undefined || c === "|" || c === ")") break;
      const start = this.pos;
      const atom = this.atom();
      if (atom === null) continue;
      xs.push(this.quantifiers(atom, start));
    }
    return xs.length === 0 ? EMPTY : xs.length === 1 ? xs[0] : { t: "cat", xs };
  }

  private quantifiers(atom: Node, atomStart: number): Node {
    let node = atom;
    let repeated = false;
    let stacked = 0;
    for (;;) {
      this.skipExtended();
      const qStart = this.pos;
      const q = this.quantifier();
      if (q === null) return node;
      if (atom.t === "assert" || atom.t === "look") {
        if (this.origin === "re2" || this.origin === "python")
          this.fail("nothing-to-repeat", qStart, this.p.slice(qStart, this.pos));
      }
      if (repeated && this.origin !== "onig")
        this.fail("nested-repeat", qStart, this.p.slice(atomStart, this.pos));
      let greedy = !this.flags.U;
      if (this.p[this.pos] === "?") {
        this.pos++;
        greedy = !greedy;
      } else if (this.p[this.pos] === "+" && this.origin !== "re2") {
        this.pos++;
        this.unsupported(qStart, this.p.slice(qStart, this.pos), "possessive quantifier");
      }
      node = { t: "rep", x: node, min: q[0], max: q[1], greedy };
      // Oniguruma stacks quantifiers (`a{2}{3}`): each is a level of the tree too
      if (repeated && ++stacked + this.depth > MAX_NESTING)
        this.fail("too-deep", qStart, this.p.slice(qStart, this.pos));
      repeated = true;
    }
  }

  /** A quantifier at pos as [min, max] (max -1: unbounded), or null (pos unchanged). */
  private quantifier(): [number, number] | null {
    const c = this.p[this.pos];
    if (c === "*") return (this.pos++, [0, -1]);
    if (c === "+") return (this.pos++, [1, -1]);
    if (c === "?") return (this.pos++, [0, 1]);
    if (c !== "{") return null;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.p.slice(this.pos, this.pos + 24));
    if (
      m === null ||
      (m[1] === "" && (m[2] === undefined || this.origin === "re2" || this.origin === "pcre"))
    )
      return null;
    if (m[1] === "" && m[3] === "" && this.origin !== "python") return null;
    const start = this.pos;
    const min = m[1] === "" ? 0 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
    this.pos += m[0].length;
    const limit = maxRepeat(this.origin);
    if (min > limit || max > limit || (max !== -1 && max < min)) this.fail("bad-repeat-count", start, m[0]);
    return [min, max];
  }

  private charNode(cp: number): Node {
    if (this.flags.i && hasCase(cp)) return { t: "set", set: singleton(cp, true) };
    return { t: "char", cp };
  }

  private setNode(s: CharSetSpec): Node {
    return { t: "set", set: this.flags.i ? foldAll(s) : s };
  }

  private atom(): Node | null {
    const p = this.p;
    const start = this.pos;
    const c = p[this.pos];
    switch (c) {
      case "(":
        return this.group();
      case "[":
        this.pos++;
        return this.setNode(this.charClass(start));
      case ".":
        this.pos++;
        return this.setNode(
          this.flags.s
            ? { ranges: [0, 0x10ffff], props: [], negated: false, fold: false }
            : { ranges: [0, 9, 11, 0x10ffff], props: [], negated: false, fold: false },
        );
      case "^":
        this.pos++;
        return { t: "assert", kind: this.flags.m ? "bol" : "bot" };
      case "$":
        this.pos++;
        return {
          t: "assert",
          kind: this.flags.m ? "eol" : dollarBeforeFinalNewline(this.origin) ? "eotnl" : "eot",
        };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        this.fail("nothing-to-repeat", start, c);
      // falls through (fail never returns)
      case "{":
        if (this.quantifier() !== null) this.fail("nothing-to-repeat", start, p.slice(start, this.pos));
        this.pos = start + 1;
        return this.charNode(0x7b);
      default: {
        const cp = p.codePointAt(this.pos) as number;
        this.pos += cp > 0xffff ? 2 : 1;
        return this.charNode(cp);
      }
    }
  }

  /**
   * A group, its nesting bounded (each level is a level of recursion here and in every
   * pass over the tree): Go's and RE2's limit, {@link MAX_NESTING}.
   */
  private group(): Node | null {
    if (++this.depth > MAX_NESTING) this.fail("too-deep", this.pos, "(");
    try {
      return this.groupBody();
    } finally {
      this.depth--;
    }
  }

  private groupBody(): Node | null {
    const p = this.p;
    const start = this.pos;
    this.pos++;
    if (p[this.pos] !== "?") return this.capture(start, null);
    this.pos++;
    const c = p[this.pos];
    if (c === "#" && this.origin !== "re2") {
      const end = p.indexOf(")", this.pos);
      if (end < 0) this.fail("missing-paren", start, p.slice(start));
      this.pos = end + 1;
      return null;
    }
    if (c === ":") {
      this.pos++;
      return this.closeGroup(start, this.alternation());
    }
    if (c === "=" || c === "!") {
      this.pos++;
      return this.look(start, false, c === "!");
    }
    if (c === "<" && (p[this.pos + 1] === "=" || p[this.pos + 1] === "!")) {
      this.pos += 2;
      return this.look(start, true, p[this.pos - 1] === "!");
    }
    if (c === ">") this.unsupported(start, "(?>", "atomic group");
    if (c === "(") this.unsupported(start, "(?(", "conditional");
    if (c === "|" && this.origin === "pcre") this.unsupported(start, "(?|", "branch reset");
    if (
      c === "R" ||
      c === "&" ||
      (c !== undefined && /[0-9+]/.test(c)) ||
      (c === "-" && /[0-9]/.test(p[this.pos + 1] ?? ""))
    )
      this.unsupported(start, p.slice(start, this.pos + 1), "recursion");
    if (c === "P") {
      const d = p[this.pos + 1];
      if (d === "=") this.unsupported(start, "(?P=", "back-reference");
      if (d === ">") this.unsupported(start, "(?P>", "recursion");
      if (d === "<" && this.origin !== "onig") {
        this.pos += 2;
        return this.capture(start, this.groupName(start, ">"));
      }
      this.fail("bad-group-syntax", start, "(?P");
    }
    if (c === "<" && this.origin !== "python") {
      this.pos++;
      return this.capture(start, this.groupName(start, ">"));
    }
    if (c === "'" && (this.origin === "onig" || this.origin === "pcre")) {
      this.pos++;
      return this.capture(start, this.groupName(start, "'"));
    }
    return this.flagGroup(start);
  }

  private groupName(start: number, close: string): string {
    const p = this.p;
    const end = p.indexOf(close, this.pos);
    const name = end < 0 ? "" : p.slice(this.pos, end);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      this.fail("bad-group-name", start, p.slice(start, end < 0 ? p.length : end + 1));
    if (this.names.includes(name) && this.origin !== "onig")
      this.fail("duplicate-group-name", start, p.slice(start, end + 1));
    this.pos = end + 1;
    return name;
  }

  private capture(start: number, name: string | null): Node {
    if (this.inLook)
      this.unsupported(start, this.p.slice(start, this.pos), "capture group inside a look-around");
    const index = ++this.groupCount;
    this.names.push(name);
    const x = this.alternation();
    return this.closeGroup(start, { t: "group", x, index });
  }

  private closeGroup(start: number, node: Node): Node {
    if (this.p[this.pos] !== ")") this.fail("missing-paren", start, this.p.slice(start));
    this.pos++;
    return node;
  }

  private look(start: number, behind: boolean, negated: boolean): Node {
    const text = this.p.slice(start, this.pos);
    if (this.origin === "re2") this.fail("bad-group-syntax", start, text);
    if (this.inLook) this.unsupported(start, text, "look-around inside a look-around");
    this.inLook = true;
    const x = this.alternation();
    this.inLook = false;
    return this.closeGroup(start, { t: "look", x, behind, negated });
  }

  private flagGroup(start: number): Node | null {
    const p = this.p;
    const letters = inlineFlagLetters(this.origin);
    let on = true;
    const f = { ...this.flags };
    for (;;) {
      const c = p[this.pos];
      if (c === ")" || c === ":") break;
      if (c === "-" && on) on = false;
      else if (c !== undefined && letters.includes(c)) {
        if (c === "i" || c === "m" || c === "s" || c === "x" || c === "U" || c === "a") f[c] = on;
      } else this.fail("bad-group-syntax", start, p.slice(start, this.pos + 1));
      this.pos++;
    }
    if (p[this.pos] === ")") {
      this.pos++;
      this.flags = f;
      return null;
    }
    this.pos++;
    const saved = this.flags;
    this.flags = f;
    const x = this.alternation();
    this.flags = saved;
    return this.closeGroup(start, x);
  }

  private escape(): Node | null {
    const p = this.p;
    const start = this.pos;
    const e = p[this.pos + 1];
    if (e === undefined) this.fail("trailing-backslash", start, "\\");
    this.pos += 2;
    const origin = this.origin;
    const assert = (kind: AssertKind): Node => ({ t: "assert", kind });
    switch (e) {
      case "A":
        return assert("bot");
      case "z":
        if (origin === "python") this.fail("bad-escape", start, "\\z");
        return assert("eot");
      case "Z":
        if (origin === "re2") this.fail("bad-escape", start, "\\Z");
        return assert(origin === "python" ? "eot" : "eotnl");
      case "b":
        return assert("wordb");
      case "B":
        return assert("nwordb");
      case "G":
        this.unsupported(start, "\\G", "\\G (start of the previous match)");
      // falls through
      case "K":
        this.unsupported(start, "\\K", "\\K (keep)");
      // falls through
      case "X":
        this.unsupported(start, "\\X", "extended grapheme cluster");
      // falls through
      case "k":
      case "g":
        if (origin === "onig" || origin === "pcre")
          this.unsupported(start, `\\${e}`, e === "k" ? "back-reference" : "subexpression call");
        break;
      case "Q":
        if (origin === "python") break;
        return this.quoted();
      case "R":
        if (origin === "pcre" || origin === "onig")
          return {
            t: "alt",
            xs: [
              {
                t: "cat",
                xs: [
                  { t: "char", cp: 13 },
                  { t: "char", cp: 10 },
                ],
              },
              {
                t: "set",
                set: { ranges: [10, 13, 0x85, 0x85, 0x2028, 0x2029], props: [], negated: false, fold: false },
              },
            ],
          };
        break;
    }
    if (e >= "1" && e <= "9") this.unsupported(start, p.slice(start, start + 2), "back-reference");
    this.pos = start;
    const s = this.classEscape(false);
    if (typeof s === "number") return this.charNode(s);
    return this.setNode(s);
  }

  private quoted(): Node {
    const p = this.p;
    const end = p.indexOf("\\E", this.pos);
    const text = p.slice(this.pos, end < 0 ? p.length : end);
    this.pos = end < 0 ? p.length : end + 2;
    const xs: Node[] = [];
    for (const ch of text) xs.push(this.charNode(ch.codePointAt(0) as number));
    return xs.length === 0 ? EMPTY : xs.length === 1 ? xs[0] : { t: "cat", xs };
  }

  /** An escape at pos that stands for one code point or a set (inside or outside a class). */
  private classEscape(inClass: boolean): number | CharSetSpec {
    const p = this.p;
    const origin = this.origin;
    const start = this.pos;
    const e = p[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case "d":
      case "w":
      case "s":
        return perlClass(origin, e, this.flags.a);
      case "D":
      case "W":
      case "S":
        return negate(perlClass(origin, e.toLowerCase() as "d" | "w" | "s", this.flags.a));
      case "h":
      case "H":
        if (origin === "pcre") {
          const h: CharSetSpec = {
            ranges: [
              9, 9, 32, 32, 0xa0, 0xa0, 0x1680, 0x1680, 0x180e, 0x180e, 0x2000, 0x200a, 0x202f, 0x202f,
              0x205f, 0x205f, 0x3000, 0x3000,
            ],
            props: [],
            negated: false,
            fold: false,
          };
          return e === "h" ? h : negate(h);
        }
        if (origin === "onig") return e.codePointAt(0) as number;
        break;
      case "v":
      case "V":
        if (origin === "pcre") {
          const v: CharSetSpec = {
            ranges: [10, 13, 0x85, 0x85, 0x2028, 0x2029],
            props: [],
            negated: false,
            fold: false,
          };
          return e === "v" ? v : negate(v);
        }
        if (e === "v") return 11;
        break;
      case "N":
        if (origin === "pcre" && !inClass)
          return { ranges: [0, 9, 11, 0x10ffff], props: [], negated: false, fold: false };
        break;
      case "n":
        return 10;
      case "t":
        return 9;
      case "r":
        return 13;
      case "f":
        return 12;
      case "a":
        return 7;
      case "e":
        if (origin !== "python" && origin !== "re2") return 27;
        break;
      case "b":
        if (inClass && origin !== "re2") return 8;
        break;
      case "c":
        if ((origin === "onig" || origin === "pcre") && p[this.pos] !== undefined) {
          const x = p.charCodeAt(this.pos++);
          return (x >= 0x61 && x <= 0x7a ? x - 0x20 : x) ^ 0x40;
        }
        break;
      case "x": {
        if (p[this.pos] === "{" && origin !== "python") {
          const end = p.indexOf("}", this.pos);
          const hex = end < 0 ? "" : p.slice(this.pos + 1, end);
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex) || parseInt(hex, 16) > 0x10ffff)
            this.fail("bad-escape", start, p.slice(start, end + 1));
          this.pos = end + 1;
          return parseInt(hex, 16);
        }
        let hex = "";
        while (hex.length < 2 && HEX.test(p[this.pos] ?? "")) hex += p[this.pos++];
        if (hex.length < 2 && (origin === "python" || origin === "re2"))
          this.fail("bad-escape", start, p.slice(start, this.pos));
        return hex === "" ? 0 : parseInt(hex, 16);
      }
      case "u":
      case "U": {
        const n = e === "u" ? 4 : 8;
        if (origin === "python" || (origin === "onig" && e === "u")) {
          const hex = p.slice(this.pos, this.pos + n);
          if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff)
            this.fail("bad-escape", start, p.slice(start, this.pos + n));
          this.pos += n;
          return parseInt(hex, 16);
        }
        break;
      }
      case "p":
      case "P":
        if (origin !== "python") return this.property(start, e === "P");
        break;
      case "0": {
        let oct = "";
        while (oct.length < 2 && /[0-7]/.test(p[this.pos] ?? "")) oct += p[this.pos++];
        return oct === "" ? 0 : parseInt(oct, 8);
      }
    }
    if (e === undefined) this.fail("trailing-backslash", start, "\\");
    const cp = p.codePointAt(start + 1) as number;
    this.pos = start + 1 + (cp > 0xffff ? 2 : 1);
    if (inClass && e >= "1" && e <= "7" && origin !== "re2") {
      let oct = e;
      while (oct.length < 3 && /[0-7]/.test(p[this.pos] ?? "")) oct += p[this.pos++];
      return parseInt(oct, 8);
    }
    if (/[A-Za-z0-9]/.test(e) && origin !== "onig") this.fail("bad-escape", start, p.slice(start, this.pos));
    return cp;
  }

  private property(start: number, negated: boolean): CharSetSpec {
    const p = this.p;
    let name: string;
    if (p[this.pos] === "{") {
      const end = p.indexOf("}", this.pos);
      if (end < 0) this.fail("bad-property", start, p.slice(start));
      name = p.slice(this.pos + 1, end);
      this.pos = end + 1;
    } else {
      name = p[this.pos] ?? "";
      this.pos++;
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    const js = jsProperty(name);
    if (js === null) this.fail("bad-property", start, p.slice(start, this.pos));
    return { ranges: [], props: [js], negated, fold: false };
  }

  private charClass(start: number): CharSetSpec {
    const p = this.p;
    const origin = this.origin;
    let negated = false;
    if (p[this.pos] === "^") {
      negated = true;
      this.pos++;
    }
    const ranges: number[] = [];
    const props: string[] = [];
    const subs: CharSetSpec[] = [];
    const add = (s: CharSetSpec): void => {
      if (s.subs === undefined && !s.negated) {
        ranges.push(...s.ranges);
        props.push(...s.props);
      } else if (s.subs === undefined && s.props.length === 1 && s.ranges.length === 0)
        props.push(s.props[0].replace("\\p", "\\P"));
      else subs.push(s);
    };
    let first = true;
    for (;;) {
      const c = p[this.pos];
      if (c === undefined) this.fail("missing-bracket", start, p.slice(start));
      if (c === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      const itemStart = this.pos;
      if (c === "[" && origin !== "python") {
        const m = /^\[:(\^?)([A-Za-z]+):\]/.exec(p.slice(this.pos, this.pos + 16));
        if (m !== null) {
          const s = posixClass(origin, m[2]);
          if (s === null) this.fail("bad-posix-class", itemStart, m[0]);
          this.pos += m[0].length;
          add(m[1] === "^" ? negate(s) : s);
          continue;
        }
        if (origin === "onig") {
          this.pos++;
          add(this.charClass(itemStart));
          continue;
        }
      }
      if (c === "&" && p[this.pos + 1] === "&" && origin === "onig")
        this.unsupported(itemStart, "&&", "character class intersection");
      const lo = this.classAtom();
      if (typeof lo !== "number") {
        add(lo);
        continue;
      }
      if (p[this.pos] === "-" && p[this.pos + 1] !== "]" && p[this.pos + 1] !== undefined) {
        const save = this.pos;
        this.pos++;
        if (p[this.pos] === "[" && /^\[:\^?[A-Za-z]+:\]/.test(p.slice(this.pos))) {
          this.pos = save;
          ranges.push(lo, lo);
          continue;
        }
        const hi = this.classAtom();
        if (typeof hi !== "number") {
          if (origin === "re2" || origin === "python")
            this.fail("bad-range", itemStart, p.slice(itemStart, this.pos));
          ranges.push(lo, lo, 0x2d, 0x2d);
          add(hi);
          continue;
        }
        if (hi < lo) this.fail("bad-range", itemStart, p.slice(itemStart, this.pos));
        ranges.push(lo, hi);
        continue;
      }
      ranges.push(lo, lo);
    }
    const own: CharSetSpec = { ranges: normaliseRanges(ranges), props, negated: false, fold: false };
    const whole: CharSetSpec = subs.length === 0 ? own : { ...own, subs };
    return negated ? negate(whole) : whole;
  }

  private classAtom(): number | CharSetSpec {
    const p = this.p;
    if (p[this.pos] === "\\") {
      if (p[this.pos + 1] === undefined) this.fail("missing-bracket", this.pos, "\\");
      return this.classEscape(true);
    }
    const cp = p.codePointAt(this.pos) as number;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }
}

const GENERAL_CATEGORIES = new Set(
  "L Lu Ll Lt Lm Lo LC M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co Cn".split(
    " ",
  ),
);

/** The JavaScript escape for a property name (category, script or binary property), or null. */
function jsProperty(name: string): string | null {
  const tries = GENERAL_CATEGORIES.has(name)
    ? [`\\p{${name}}`]
    : name === "Any"
      ? ["\\p{Any}"]
      : [
          `\\p{Script=${name}}`,
          `\\p{${name}}`,
          `\\p{${name[0]?.toUpperCase()}${name.slice(1).toLowerCase()}}`,
        ];
  for (const t of tries) {
    try {
      new RegExp(t, "u");
      return t;
    } catch {
      // try the next spelling
    }
  }
  return null;
}

/** The same set, matched case-insensitively. */
function foldAll(s: CharSetSpec): CharSetSpec {
  return s.subs === undefined ? { ...s, fold: true } : { ...s, fold: true, subs: s.subs.map(foldAll) };
}

/** Parses a pattern of an origin under initial flags. */
export function parsePattern(pattern: string, origin: Origin, flags: RegexFlags): Parsed | RegexProblem {
  const f: Flags = { i: !!flags.i, m: !!flags.m, s: !!flags.s, x: !!flags.x, U: !!flags.U, a: !!flags.a };
  try {
    return new Parser(pattern, origin, f).parse();
  } catch (e) {
    if (e instanceof Fail) return e.problem;
    throw e;
  }
}
