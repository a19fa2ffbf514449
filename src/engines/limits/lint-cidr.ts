/**
 * CIDR lists of ip-cidr-list identifiers that overlap entirely: an entry
 * another entry of the same list already covers, and a whole list every
 * address of which another list holds. Sorting makes the first linear-ish;
 * the pairs of lists are charged to the analysis' work bound.
 */
import { cidrSetOf, parseNetwork, parseNetworkPadded, type CidrSet, type IpNetwork } from "../common/cidr.js";
import type { JsonPlaces } from "../common/json-places.js";
import { isJsonObject, type JsonObject } from "../common/json.js";
import { ENTRY_UNITS, finding, type LintFinding, type LintWork } from "../common/lint.js";
import type { Steps } from "../common/slices.js";

/** Redundant entries reported per list before the rest are counted in one line. */
const MAX_PER_LIST = 20;

interface Entry {
  readonly net: IpNetwork;
  readonly index: number;
  readonly text: string;
}

interface List {
  readonly name: string;
  readonly at: number;
  readonly entries: readonly Entry[];
  set: CidrSet | null;
}

function bigger(a: number | bigint, b: number | bigint): boolean {
  return a > b;
}

/** Entries covered by an earlier-sorted entry of the same family (equal entries: the later one). */
function redundant(entries: readonly Entry[]): { entry: Entry; by: Entry }[] {
  const sorted = [...entries].sort((a, b) => {
    if (a.net.family !== b.net.family) return a.net.family - b.net.family;
    if (a.net.start !== b.net.start) return bigger(a.net.start, b.net.start) ? 1 : -1;
    return a.net.prefix - b.net.prefix || a.index - b.index;
  });
  const out: { entry: Entry; by: Entry }[] = [];
  let widest: Entry | null = null;
  for (const e of sorted) {
    if (widest !== null && widest.net.family === e.net.family && !bigger(e.net.end, widest.net.end)) {
      out.push({ entry: e, by: widest });
      continue;
    }
    widest = e;
  }
  return out.sort((a, b) => a.entry.index - b.entry.index);
}

/** Lints the CIDR lists of a limits configuration's ip-cidr-list identifiers, as resumable work (common/slices.ts). */
export function* lintCidrLists(
  identifiers: readonly JsonObject[],
  places: JsonPlaces,
  work: LintWork,
): Steps<LintFinding[]> {
  const out: LintFinding[] = [];
  const lists: List[] = [];
  for (let at = 0; at < identifiers.length; at++) {
    const id = identifiers[at];
    if (work.due(ENTRY_UNITS)) yield;
    if (id.type !== "ip-cidr-list" || !isJsonObject(id.data) || !Array.isArray(id.data.cidrs)) continue;
    const entries: Entry[] = [];
    for (let index = 0; index < id.data.cidrs.length; index++) {
      const c = id.data.cidrs[index];
      if (work.due(ENTRY_UNITS)) yield;
      if (typeof c !== "string") continue;
      const net = parseNetwork(c.trim()) ?? parseNetworkPadded(c.trim());
      if (net !== null) entries.push({ net, index, text: c });
    }
    work.charge(entries.length);
    lists.push({ name: String(id.name), at, entries, set: null });
    const found = redundant(entries);
    for (const r of found.slice(0, MAX_PER_LIST)) {
      const same = r.entry.net.prefix === r.by.net.prefix;
      out.push(
        finding(
          "limits_cidr_redundant",
          "info",
          `identifier '${String(id.name)}': ${r.entry.text} ${same ? "repeats" : "lies within"} ${r.by.text}, listed in the same ip-cidr-list`,
          places.place(`/identifiers/${at}/data/cidrs/${r.entry.index}`),
        ),
      );
    }
    if (found.length > MAX_PER_LIST)
      out.push(
        finding(
          "limits_cidr_redundant",
          "info",
          `identifier '${String(id.name)}': ${found.length - MAX_PER_LIST} more entries lie within other entries of the same list`,
          places.place(`/identifiers/${at}/data/cidrs`),
        ),
      );
  }
  for (const a of lists) {
    if (a.entries.length === 0) continue;
    for (const b of lists) {
      if (work.due(ENTRY_UNITS)) yield;
      if (a === b || b.entries.length === 0) continue;
      if (!work.charge(a.entries.length + (b.set === null ? b.entries.length : 0))) return out;
      b.set ??= cidrSetOf(b.entries.map((e) => e.net));
      const set = b.set;
      if (!a.entries.every((e) => set.contains(e.net))) continue;
      const equal = b.entries.every((e) =>
        (a.set ??= cidrSetOf(a.entries.map((x) => x.net))).contains(e.net),
      );
      // two equal lists are reported once, at the later one
      if (equal && a.at < b.at) continue;
      out.push(
        finding(
          "limits_cidr_list_covered",
          "info",
          `identifier '${a.name}': every address of its ip-cidr-list is ${equal ? "also in" : "within"} the list of identifier '${b.name}'${equal ? " (the two lists hold the same addresses)" : ""}`,
          places.place(`/identifiers/${a.at}/data/cidrs`),
        ),
      );
      break;
    }
  }
  return out;
}
