/**
 * Compares an answer with the output the docs show for it. What changes from run to
 * run is normalised: `…` in the docs stands for any value (a whole string, or any
 * text inside one; as a key, for any further keys), and decision ids, revisions,
 * request ids and timestamps match any value of their kind, also as the timestamp
 * that starts a log line.
 */

/** Keys whose values differ on every run. */
const VOLATILE_KEYS = new Set([
  "decision_id",
  "request_id",
  "revision",
  "ts",
  "created_at",
  "activated_at",
  "expires_at",
  "age_seconds",
  "reported_at",
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REVISION = /^[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ELLIPSIS = "…";

function sameKind(want: string, got: string): boolean {
  return [UUID, REVISION, TIMESTAMP].some((kind) => kind.test(want) && kind.test(got));
}

/** A log line: a timestamp, a space, the text. */
const STAMPED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) ([\s\S]*)$/;

function stringMatches(want: string, got: string): boolean {
  if (want === got || want === ELLIPSIS || sameKind(want, got)) return true;
  const [w, g] = [STAMPED.exec(want), STAMPED.exec(got)];
  if (w && g) return stringMatches(w[2], g[2]);
  if (!want.includes(ELLIPSIS)) return false;
  const pattern = want
    .split(ELLIPSIS)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  return new RegExp(`^${pattern}$`).test(got);
}

/** The differences between the documented output and the answer, as readable lines (empty when they match). */
export function outputProblems(want: unknown, got: unknown, at = "$"): string[] {
  if (want === ELLIPSIS) return [];
  if (typeof want === "string")
    return typeof got === "string" && stringMatches(want, got)
      ? []
      : [`${at}: docs show ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return [`${at}: docs show an array, got ${JSON.stringify(got)}`];
    const open = want.length > 0 && want[want.length - 1] === ELLIPSIS;
    const items = open ? want.slice(0, -1) : want;
    if (open ? got.length < items.length : got.length !== items.length)
      return [`${at}: docs show ${want.length} items, got ${got.length}`];
    return items.flatMap((w, i) => outputProblems(w, got[i], `${at}[${i}]`));
  }
  if (want !== null && typeof want === "object") {
    if (got === null || typeof got !== "object" || Array.isArray(got))
      return [`${at}: docs show an object, got ${JSON.stringify(got)}`];
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    const problems: string[] = [];
    for (const key of Object.keys(w)) {
      if (key === ELLIPSIS) continue;
      if (!(key in g)) problems.push(`${at}.${key}: documented, missing from the answer`);
      else if (!VOLATILE_KEYS.has(key)) problems.push(...outputProblems(w[key], g[key], `${at}.${key}`));
    }
    if (!(ELLIPSIS in w))
      for (const key of Object.keys(g))
        if (!(key in w)) problems.push(`${at}.${key}: in the answer, not in the docs`);
    return problems;
  }
  return Object.is(want, got) ? [] : [`${at}: docs show ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}
