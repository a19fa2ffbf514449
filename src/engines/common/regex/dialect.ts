/**
 * What each origin's regex syntax means where they differ: the `\d \w \s`
 * classes, POSIX brackets, `$` and `\Z`, and which syntax each accepts.
 */
import type { CharSetSpec } from "./charset.js";

/** The origins: Go's regexp (RE2), Python's `re`, Oniguruma (Perl_NT syntax), PCRE. */
export type Origin = "re2" | "python" | "onig" | "pcre";

const ASCII_DIGIT = [0x30, 0x39];
const ASCII_WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

function spec(ranges: number[], props: string[] = [], negated = false): CharSetSpec {
  return { ranges, props, negated, fold: false };
}

/** `\d`, `\w`, `\s` of an origin (`ascii`: Python's `a` flag). */
export function perlClass(origin: Origin, letter: "d" | "w" | "s", ascii: boolean): CharSetSpec {
  const unicode = !ascii && (origin === "onig" || origin === "python");
  if (letter === "d") return unicode ? spec([], ["\\p{Nd}"]) : spec(ASCII_DIGIT);
  if (letter === "w") {
    if (!unicode) return spec(ASCII_WORD);
    return origin === "onig"
      ? spec([0x5f, 0x5f], ["\\p{L}", "\\p{M}", "\\p{Nd}", "\\p{Pc}"])
      : spec([0x5f, 0x5f], ["\\p{L}", "\\p{N}"]);
  }
  switch (origin) {
    case "re2":
      return spec([9, 10, 12, 13, 32, 32]);
    case "pcre":
      return spec([9, 13, 32, 32]);
    case "onig":
      return ascii ? spec([9, 13, 32, 32]) : spec([9, 13, 32, 32, 0x85, 0x85, 0x2028, 0x2029], ["\\p{Zs}"]);
    case "python":
      return ascii
        ? spec([9, 13, 0x1c, 0x20])
        : spec([
            9, 13, 0x1c, 0x20, 0x85, 0x85, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f,
            0x202f, 0x205f, 0x205f, 0x3000, 0x3000,
          ]);
  }
}

const ASCII_POSIX: Readonly<Record<string, number[]>> = {
  alpha: [0x41, 0x5a, 0x61, 0x7a],
  digit: [0x30, 0x39],
  alnum: [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
  upper: [0x41, 0x5a],
  lower: [0x61, 0x7a],
  space: [9, 13, 32, 32],
  blank: [9, 9, 32, 32],
  punct: [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
  cntrl: [0, 0x1f, 0x7f, 0x7f],
  print: [0x20, 0x7e],
  graph: [0x21, 0x7e],
  xdigit: [0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
  word: ASCII_WORD,
  ascii: [0, 0x7f],
};

// Oniguruma's Unicode definitions of the POSIX brackets (doc/RE, "POSIX bracket").
const ONIG_POSIX: Readonly<Record<string, [number[], string[]]>> = {
  alpha: [[], ["\\p{Alphabetic}"]],
  digit: [[], ["\\p{Nd}"]],
  alnum: [[], ["\\p{Alphabetic}", "\\p{Nd}"]],
  upper: [[], ["\\p{Uppercase}"]],
  lower: [[], ["\\p{Lowercase}"]],
  space: [[], ["\\p{White_Space}"]],
  blank: [[9, 9], ["\\p{Zs}"]],
  punct: [[0x24, 0x24, 0x2b, 0x2b, 0x3c, 0x3e, 0x5e, 0x5e, 0x60, 0x60, 0x7c, 0x7c, 0x7e, 0x7e], ["\\p{P}"]],
  cntrl: [[], ["\\p{Cc}"]],
  print: [[], ["\\p{L}", "\\p{M}", "\\p{N}", "\\p{P}", "\\p{S}", "\\p{Cf}", "\\p{Co}", "\\p{Zs}"]],
  graph: [[], ["\\p{L}", "\\p{M}", "\\p{N}", "\\p{P}", "\\p{S}", "\\p{Cf}", "\\p{Co}"]],
  xdigit: [[0x30, 0x39, 0x41, 0x46, 0x61, 0x66], []],
  word: [
    [0x5f, 0x5f],
    ["\\p{L}", "\\p{M}", "\\p{Nd}", "\\p{Pc}"],
  ],
  ascii: [[0, 0x7f], []],
};

/** A POSIX bracket `[:name:]` of an origin, or null for an unknown name. */
export function posixClass(origin: Origin, name: string): CharSetSpec | null {
  if (origin === "onig") {
    const d = ONIG_POSIX[name];
    return d === undefined ? null : spec([...d[0]], [...d[1]]);
  }
  const r = ASCII_POSIX[name];
  return r === undefined ? null : spec([...r]);
}

/** Whether `$` (outside multi-line mode) also matches before a final newline. */
export function dollarBeforeFinalNewline(origin: Origin): boolean {
  return origin !== "re2";
}

/** The inline flag letters an origin accepts in `(?flags)`. */
export function inlineFlagLetters(origin: Origin): string {
  switch (origin) {
    case "re2":
      return "imsU";
    case "python":
      return "aiLmsux";
    case "onig":
      return "imsx";
    case "pcre":
      return "imsxUnJ";
  }
}

/** Largest count in `{n,m}` each origin accepts. */
export function maxRepeat(origin: Origin): number {
  switch (origin) {
    case "re2":
      return 1000;
    case "onig":
      return 100_000;
    case "pcre":
      return 65_535;
    case "python":
      return 4_294_967_294;
  }
}
