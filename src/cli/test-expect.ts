/**
 * Matching an answer against a test's partial expectation. Objects match key
 * by key (fields not named are not checked), lists item by item with equal
 * lengths, scalars by equality. On text and lists, an object with one key
 * `contains`, `line` or `matches` is a matcher instead.
 */

/** One field that differs: where, what was expected (or what the matcher asked), what the answer holds. */
export interface Difference {
  field: string;
  expected: string;
  actual: unknown;
}

const MATCHERS = ["contains", "line", "matches"] as const;
type MatcherName = (typeof MATCHERS)[number];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function matcherOf(expected: unknown): { name: MatcherName; wanted: unknown } | undefined {
  if (!isPlainObject(expected)) return undefined;
  const keys = Object.keys(expected);
  if (keys.length !== 1 || !(MATCHERS as readonly string[]).includes(keys[0])) return undefined;
  return { name: keys[0] as MatcherName, wanted: expected[keys[0]] };
}

const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** One wanted value of a matcher against text or a list: null when it holds, else what was asked. */
function failsMatcher(name: MatcherName, wanted: unknown, actual: string | unknown[]): string | null {
  if (name === "matches") {
    if (typeof wanted !== "string") return `{matches} takes a regular expression, not ${show(wanted)}`;
    let re: RegExp;
    try {
      re = new RegExp(wanted, "m");
    } catch (e) {
      return `{matches: ${show(wanted)}}, which is no regular expression (${(e as Error).message})`;
    }
    const ok =
      typeof actual === "string"
        ? re.test(actual)
        : actual.some((item) => typeof item === "string" && re.test(item));
    return ok ? null : `text matching /${wanted}/`;
  }
  if (name === "line") {
    if (typeof wanted !== "string") return `{line} takes a text, not ${show(wanted)}`;
    const lines =
      typeof actual === "string"
        ? actual.split("\n")
        : actual.filter((i): i is string => typeof i === "string");
    return lines.some((l) => l.trim() === wanted.trim()) ? null : `a line ${show(wanted)}`;
  }
  if (typeof actual === "string") {
    if (typeof wanted !== "string") return `{contains} on text takes a text, not ${show(wanted)}`;
    return actual.includes(wanted) ? null : `text containing ${show(wanted)}`;
  }
  // On a list: an item holding the text (for text), or matching the value as an expectation.
  const holds = (item: unknown) =>
    typeof wanted === "string" && typeof item === "string"
      ? item.includes(wanted)
      : differences(wanted, item).length === 0;
  return actual.some(holds)
    ? null
    : `a list with an item ${typeof wanted === "string" ? "containing" : "matching"} ${show(wanted)}`;
}

/** The fields where `actual` does not hold what `expected` asks; empty when it matches. */
export function differences(expected: unknown, actual: unknown, field = ""): Difference[] {
  const matcher = matcherOf(expected);
  if (matcher !== undefined && (typeof actual === "string" || Array.isArray(actual))) {
    // A matcher given a list of wanted values asks for each of them (on a list, `contains: [..]` asks for an item equal to that list).
    const each = Array.isArray(matcher.wanted) && (matcher.name !== "contains" || typeof actual === "string");
    const wanted = each ? (matcher.wanted as unknown[]) : [matcher.wanted];
    const asked = wanted
      .map((w) => failsMatcher(matcher.name, w, actual))
      .filter((m): m is string => m !== null);
    return asked.map((expectedText) => ({ field, expected: expectedText, actual }));
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return [{ field, expected: show(expected), actual }];
    const out: Difference[] = [];
    for (const [key, want] of Object.entries(expected)) {
      out.push(
        ...differences(
          want,
          Object.hasOwn(actual, key) ? actual[key] : undefined,
          field === "" ? key : `${field}.${key}`,
        ),
      );
    }
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [{ field, expected: show(expected), actual }];
    return expected.flatMap((want, i) => differences(want, actual[i], `${field}[${i}]`));
  }
  return Object.is(expected, actual) || (expected === 0 && actual === 0)
    ? []
    : [{ field, expected: show(expected), actual }];
}

/** Cuts a shown value to a readable length. */
function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** `queue: expected "root.a", got "root.b"`, for one difference. */
export function describeDifference(d: Difference): string {
  return `${d.field === "" ? "answer" : d.field}: expected ${clip(d.expected)}, got ${clip(show(d.actual))}`;
}
