/**
 * Amplified fuzz inputs: `npm run fuzz` draws, besides each target's own
 * inputs, ones whose text has a slice repeated up to {@link MAX_REPEAT} times
 * and wrapped in up to {@link MAX_NESTING} levels of one of the target's
 * brackets, so that work super-linear in the length or the depth shows up as
 * a slow input and recursion as a stack overflow. Inputs are judged by time
 * per size: {@link allowedMs}.
 */
import fc from "fast-check";

/** The most times a slice is repeated. */
export const MAX_REPEAT = 3000;
/** The most levels of nesting wrapped around the repeated slice. */
export const MAX_NESTING = 5000;
/** Amplified texts stop growing past this many characters (a request body's limit, 1 MiB, is near). */
export const MAX_AMPLIFIED_CHARS = 1_000_000;

/** Bracket pairs every target's text is wrapped in: its languages' own, and JSON's. */
const COMMON: readonly (readonly [string, string])[] = [
  ["(", ")"],
  ["[", "]"],
  ["{", "}"],
  ['{"a":', "}"],
  ['"', '"'],
];

/** Each target's own nesting constructs, beside {@link COMMON}. */
const NESTING: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  jq: [
    ['"\\(', ')"'],
    ["[.[", "]]"],
    ["if . then ", " else . end"],
    ["try ", ""],
    ["-", ""],
    ["reduce . as $x (", "; .)"],
    ["def f: ", "; f"],
  ],
  classad: [
    ["[ a = ", " ]"],
    ["!", ""],
    ["-", ""],
    ["ifThenElse(", ", 1, 2)"],
    ["strcat(", ")"],
    ["a.", ""],
    ["{", "}[0]"],
  ],
  "pool-conf": [
    ["$(M:", ")"],
    ["$(", ")"],
    ["\\\n", ""],
    ["# ", "\n"],
    ["NEGOTIATOR_PE_JOB_EXPR = ", "\n"],
    ["!", ""],
  ],
  "yunikorn-yaml": [
    ["- ", ""],
    ["? ", ""],
    ["\n  ", ""],
    ["[", ", x]"],
    ["{a: ", "}"],
    ["&a ", ""],
    ["!!map ", ""],
  ],
  "limits-json": [
    ['{"#":', "}"],
    ['"\\(', ')"'],
    ["[", ",1]"],
  ],
  jobfilter: [
    ['["!", ', "]"],
    ['["&", ', "]"],
    ['["|", ', ', ["==", "id", 1]]'],
  ],
  "customs-json": [
    ['{"networks":', "}"],
    ['{"1":', "}"],
  ],
  "request-json": [
    ['{"a":[', "]}"],
    ["[1,", "]"],
  ],
};

/** One amplification: a slice of the seed's text repeated, and wrapped in nesting. */
interface Amplification {
  start: number;
  length: number;
  repeat: number;
  depth: number;
  bracket: number;
}

/** The seed text with its slice [start, start+length) repeated and wrapped `depth` levels deep in `pair`. */
export function amplifyText(
  text: string,
  a: Amplification,
  pairs: readonly (readonly [string, string])[],
): string {
  const start = text.length === 0 ? 0 : a.start % text.length;
  const slice = text.slice(start, start + Math.max(1, a.length)) || "a";
  const [open, close] = pairs[a.bracket % pairs.length];
  const depth = Math.min(
    a.depth,
    Math.floor(MAX_AMPLIFIED_CHARS / 2 / Math.max(1, open.length + close.length)),
  );
  const repeat = Math.max(
    1,
    Math.min(
      a.repeat,
      Math.floor((MAX_AMPLIFIED_CHARS - depth * (open.length + close.length)) / slice.length),
    ),
  );
  return (
    text.slice(0, start) +
    open.repeat(depth) +
    slice.repeat(repeat) +
    close.repeat(depth) +
    text.slice(start + slice.length)
  );
}

/** Applies `f` to the input's text: the input itself when a string, else its first string member (a tuple's source text). */
function mapText(input: unknown, f: (text: string) => string): unknown {
  if (typeof input === "string") return f(input);
  if (Array.isArray(input)) {
    const i = input.findIndex((x) => typeof x === "string");
    if (i >= 0) return input.map((x, j) => (j === i ? f(x as string) : x));
  }
  return input;
}

/** A target's inputs amplified: each drawn input with one slice of its text repeated and nested. */
export function amplified(target: string, arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const pairs = [...COMMON, ...(NESTING[target] ?? [])];
  const amplification: fc.Arbitrary<Amplification> = fc.record({
    start: fc.nat(),
    length: fc.integer({ min: 1, max: 200 }),
    repeat: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: MAX_REPEAT })),
    depth: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: MAX_NESTING }),
    ),
    bracket: fc.nat(),
  });
  return fc
    .tuple(arbitrary, amplification)
    .map(([input, a]) => mapText(input, (text) => amplifyText(text, a, pairs)));
}

/** The characters of an input's texts (every string in it), the size its time is judged by. */
export function inputSize(input: unknown): number {
  if (typeof input === "string") return input.length;
  if (Array.isArray(input)) return input.reduce((n: number, x) => n + inputSize(x), 0);
  if (input !== null && typeof input === "object")
    return Object.values(input).reduce((n: number, x) => n + inputSize(x), 0);
  return 0;
}

/** The time an input may take: `capMs`, and `capMs` per 100 KB beyond the first (100 ms per 100 KB by default). */
export function allowedMs(input: unknown, capMs: number): number {
  return capMs * Math.max(1, inputSize(input) / 100_000);
}
