/**
 * The requesters (and servers) the limits diff tries: for each ip-cidr-list
 * range its first and last address and the addresses just outside it, the
 * local addresses for `localif`, each `hint` match's witnesses, what `jq`
 * identifiers compare the hints with, and fresh IPv4, IPv6 and non-address
 * values. Hints that fall in the same classifiers under both policies are
 * decided alike (classification is all the later stages see of them, unless a
 * script reads the hints), so one example of each class is kept.
 */
import { countBoundary, regexWitnesses } from "../common/diff-requests.js";
import { formatAddress } from "../common/cidr.js";
import type { RangeSet } from "../common/cidr-ranges.js";
import type { JsonObject } from "../common/json.js";
import { jsonUnits, Pace, type Steps } from "../common/slices.js";
import { isJsonObject } from "../common/json.js";
import { compileStringMatch, type StringMatchSpec } from "../common/string-match.js";
import { classifyOffline, DIFF_LOCAL_ADDRESSES } from "./diff-context.js";
import { harvestJq, type PathValues } from "./diff-jq-literals.js";
import type { JqSpec } from "./jq-bridge.js";
import type { LimitsPolicy } from "./policy.js";

/** A name no policy holds. */
export const FRESH = "zz-fresh-9";
/** Fresh addresses (documentation networks) no list is likely to hold. */
const FRESH_ADDRESSES = ["203.0.113.9", "2001:db8:ffff::9"];
/** Ranges of one ip-cidr-list whose edges are tried; beyond, an even sample of them. */
export const MAX_RANGES_PER_LIST = 256;
/** Hint sets tried at most (requesters × servers). */
const MAX_HINT_SETS = 20_000;
/** Hint sets kept per class when scripts read the hints (the hints then matter beyond their class). */
const PER_CLASS_WHEN_READ = 4;

/** What the requester side found. */
export interface HintClasses {
  /** One hint set per class. */
  hints: JsonObject[];
  tried: number;
  why: string[];
}

/** The even sample of `count` out of `n` indexes (all when n ≤ count). */
function sample(n: number, count: number): number[] {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: count }, (_, i) => Math.floor((i * (n - 1)) / (count - 1)));
}

function v6At(words: Uint32Array, o: number): bigint {
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(words[o + k]);
  return v;
}

/** The merged ranges of a set, as [family, first, last]. */
function rangesOf(ranges: RangeSet): [4 | 6, bigint, bigint][] {
  const out: [4 | 6, bigint, bigint][] = [];
  for (let i = 0; i < ranges.v4.length; i += 2) out.push([4, BigInt(ranges.v4[i]), BigInt(ranges.v4[i + 1])]);
  for (let i = 0; i < ranges.v6.length; i += 8) out.push([6, v6At(ranges.v6, i), v6At(ranges.v6, i + 4)]);
  return out;
}

/** Each ip-cidr-list range of a policy, keyed by its identifier's name and its bounds. */
function* rangeKeys(config: JsonObject, policy: LimitsPolicy, pace: Pace): Steps<Set<string>> {
  const keys = new Set<string>();
  const entries = Array.isArray(config.identifiers) ? config.identifiers : [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const ranges = policy.identifiers[i]?.ranges;
    if (!isJsonObject(entry) || ranges === undefined) continue;
    const all = rangesOf(ranges);
    for (const [f, s, e] of all) keys.add(`${String(entry.name)}|${f}:${s}-${e}`);
    if (pace.spend(64 + 16 * all.length)) yield;
  }
  return keys;
}

/**
 * The first and last address of ranges and the ones just outside: every range
 * the other policy's list of that name lacks (up to MAX_RANGES_PER_LIST), and
 * an even sample of MAX_RANGES_PER_LIST of the rest. False when some were left out.
 */
function rangeEdges(
  name: string,
  ranges: RangeSet,
  others: ReadonlySet<string>,
  out: Set<string>,
  b: Record<string, number>,
): boolean {
  const all = rangesOf(ranges);
  const sampled = new Set(sample(all.length, MAX_RANGES_PER_LIST));
  let changed = 0;
  let tried = 0;
  all.forEach(([f, s, e], i) => {
    const moved = !others.has(`${name}|${f}:${s}-${e}`) && changed++ < MAX_RANGES_PER_LIST;
    if (!moved && !sampled.has(i)) return;
    tried++;
    const top = f === 4 ? 0xffffffffn : (1n << 128n) - 1n;
    for (const a of [s - 1n, s, e, e + 1n])
      if (a >= 0n && a <= top) out.add(formatAddress(f, f === 4 ? Number(a) : a));
  });
  countBoundary(b, "cidr range edge", tried);
  return tried === all.length;
}

/** Strings a StringMatch tells apart: the literal (and its case variants), strings around it, a regex's witnesses. */
export function matchWitnesses(spec: StringMatchSpec): string[] {
  const m = compileStringMatch(spec);
  if (!m.ok) return [];
  const test = m.value;
  const lit = spec.match;
  if (spec.style === "regex") return regexWitnesses(lit, test, FRESH);
  const out = [lit, lit.toUpperCase(), lit.toLowerCase(), FRESH];
  if (spec.style === "contains") out.push(`${FRESH}${lit}${FRESH}`, lit.slice(1));
  return [...new Set(out)];
}

/** The requester and server values one policy's identifiers draw (`others`: the other policy's range keys), and the kinds that make the answer unresolved offline. */
function* collect(
  config: JsonObject,
  policy: LimitsPolicy,
  req: Set<string>,
  srv: Set<string>,
  b: Record<string, number>,
  why: Set<string>,
  others: ReadonlySet<string>,
  pace: Pace,
): Steps<void> {
  const entries = Array.isArray(config.identifiers) ? config.identifiers : [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    // a range's edges are formatted, a hint's witnesses searched: the entry's size and a few units per range
    if (pace.spend(64 + jsonUnits(entry) + 16 * (policy.identifiers[i]?.ranges?.v4.length ?? 0))) yield;
    if (!isJsonObject(entry)) continue;
    const data = isJsonObject(entry.data) ? entry.data : {};
    const ranges = policy.identifiers[i]?.ranges;
    switch (entry.type) {
      case "ip-cidr-list":
        if (ranges !== undefined && !rangeEdges(String(entry.name), ranges, others, req, b))
          why.add(
            `an ip-cidr-list has more than ${MAX_RANGES_PER_LIST} ranges: the edges of the ranges the other policy lacks (up to ${MAX_RANGES_PER_LIST}) and of an even sample of ${MAX_RANGES_PER_LIST} others are tried`,
          );
        break;
      case "localif":
      case "local-subnet":
        for (const a of DIFF_LOCAL_ADDRESSES) req.add(a);
        countBoundary(b, "local address", DIFF_LOCAL_ADDRESSES.length);
        why.add(`localif and local-subnet take ${DIFF_LOCAL_ADDRESSES.join(" and ")} as the local addresses`);
        break;
      case "hint": {
        const into = data.hint === "server" ? srv : data.hint === "requester" ? req : null;
        if (into === null || !isJsonObject(data.match)) break;
        const w = matchWitnesses(data.match as unknown as StringMatchSpec);
        for (const s of w) into.add(s);
        countBoundary(b, "hint witness", w.length);
        why.add("a hint identifier: its match's witnesses are searched, not every string it tells apart");
        break;
      }
      case "jq": {
        const found: PathValues = new Map();
        harvestJq(data as unknown as JqSpec, found);
        for (const { path, values } of found.values()) {
          const into =
            path.length === 1 && path[0] === "server"
              ? srv
              : path.length === 1 && path[0] === "requester"
                ? req
                : null;
          for (const v of values) if (into !== null && typeof v === "string") into.add(v);
        }
        why.add("a jq identifier: only the strings its script compares the hints with are tried");
        break;
      }
      case "ip-cidr-list-url":
        why.add(
          "an ip-cidr-list-url identifier: its list is not downloaded offline, so it answers its fail-state",
        );
        break;
      case "ip-cymru-bogon":
      case "ip-cymru-asn":
        why.add(
          `an ${entry.type} identifier: DNS is not consulted offline, so it answers its fail-result (unresolved)`,
        );
        break;
      case "ip-reverse-dns":
        why.add(
          "an ip-reverse-dns identifier: DNS is not consulted offline, so it never identifies (unresolved)",
        );
        break;
    }
  }
}

/**
 * The hint sets the diff tries, one per class of (classifiers under the old
 * policy, classifiers under the new one); when `hintsRead` (a script or
 * url-fetch limit reads the hints) a few of each class. Resumable work
 * (common/slices.ts): classifying a hint set counts one unit per identifier.
 */
export function* hintClassesSteps(
  configs: readonly [JsonObject, JsonObject],
  policies: readonly [LimitsPolicy, LimitsPolicy],
  hintsRead: boolean,
  boundaries: Record<string, number>,
  pace: Pace = new Pace(),
): Steps<HintClasses> {
  const req = new Set<string>();
  const srv = new Set<string>();
  const why = new Set<string>();
  const keys = [
    yield* rangeKeys(configs[0], policies[0], pace),
    yield* rangeKeys(configs[1], policies[1], pace),
  ];
  yield* collect(configs[0], policies[0], req, srv, boundaries, why, keys[1], pace);
  yield* collect(configs[1], policies[1], req, srv, boundaries, why, keys[0], pace);
  // classifying one hint set evaluates every identifier of both policies
  const perSet = 1 + policies[0].identifiers.length + policies[1].identifiers.length;
  for (const a of [...FRESH_ADDRESSES, FRESH]) req.add(a);
  const servers: (string | undefined)[] = [undefined, ...srv];
  if (srv.size > 0) servers.push(FRESH);
  const classes = new Map<string, JsonObject[]>();
  const perClass = hintsRead ? PER_CLASS_WHEN_READ : 1;
  let tried = 0;
  outer: for (const requester of req) {
    for (const server of servers) {
      if (tried >= MAX_HINT_SETS) {
        why.add(`the requester and server values exceed ${MAX_HINT_SETS} pairs: not every pair is tried`);
        break outer;
      }
      tried++;
      if (pace.spend(perSet)) yield;
      const hints: JsonObject = server === undefined ? { requester } : { requester, server };
      const key = `${classifyOffline(policies[0], hints).map(Number).join("")}/${classifyOffline(policies[1], hints).map(Number).join("")}`;
      const list = classes.get(key);
      if (list === undefined) classes.set(key, [hints]);
      else if (list.length < perClass) list.push(hints);
      else if (hintsRead)
        why.add(
          `a script or url-fetch limit reads the hints: ${perClass} requester and server values of each class are tried`,
        );
    }
  }
  const hints = [...classes.values()].flat();
  countBoundary(boundaries, "requester class", hints.length);
  return { hints, tried, why: [...why] };
}
