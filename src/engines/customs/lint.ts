/**
 * Customs lint: pool defaults under which a host that takes them can never
 * be chosen, and access lists that admit nobody (a deny of a whole address
 * family, an allow entry a deny removes again, an empty `clients` list).
 * Hosts may report their own settings; each finding is about the hosts that
 * take the policy's defaults, as its message says.
 */
import { parseNetworkPadded, type IpNetwork } from "../common/cidr.js";
import { jsonPlaces, pointerSegment } from "../common/json-places.js";
import { ENTRY_UNITS, finding, LintWork, type LintFinding } from "../common/lint.js";
import type { Steps } from "../common/slices.js";
import type { CustomsPolicyData } from "./policy.js";
import type { HostDefaults } from "./settings.js";

function overlaps(a: IpNetwork, b: IpNetwork): boolean {
  return a.family === b.family && a.start <= b.end && b.start <= a.end;
}

/** The highest rating a host with these settings can reach from a physically possible report, or null when it is unbounded. */
function bestRating(d: HostDefaults): { rating: number; terms: string } | null {
  const s = d.settings;
  // an idle time above the minimum adds without limit
  if (s.minIdleSeconds > 0) return null;
  const swap = s.minSwapPct > 0 ? 100 - s.minSwapPct : 0;
  const load = s.maxLoad > 0 ? Math.floor(s.maxLoad * 256) : 0;
  const terms = [`bias ${s.bias}`];
  if (swap > 0) terms.push(`+ ${swap} for free swap (at most 100 %, minSwapPct ${s.minSwapPct})`);
  if (load > 0) terms.push(`+ ${load} for load (at best 0, maxLoad ${s.maxLoad})`);
  if (s.minIdleSeconds === 0) terms.push("+ nothing for idle time (minIdleSeconds 0)");
  return { rating: s.bias + swap + load, terms: terms.join(" ") };
}

function* lintDefaults(
  work: LintWork,

  d: HostDefaults,
  at: string,
  where: string,
  place: (p: string) => string,
  out: LintFinding[],
): Steps<void> {
  const best = bestRating(d);
  if (best !== null && best.rating <= 0)
    out.push(
      finding(
        "customs_never_chosen",
        "warning",
        `${where}: a host that takes these settings is never chosen: its rating is at most ${best.rating} (${best.terms}), and allocation only picks a host rated above 0`,
        place(at),
      ),
    );
  if (Array.isArray(d.clients) && d.clients.length === 0)
    out.push(
      finding(
        "customs_acl_admits_nobody",
        "warning",
        `${where}: \`clients\` is an empty list, so no client host may ask for these hosts`,
        place(`${at}/clients`),
      ),
    );
  const denies = d.deny.map((text, i) => ({ text, i, net: parseNetworkPadded(text.trim()) }));
  if (work.due(ENTRY_UNITS * (1 + denies.length))) yield;
  for (const family of [4, 6] as const) {
    const all = denies.find((x) => x.net !== null && x.net.family === family && x.net.prefix === 0);
    if (all !== undefined)
      out.push(
        finding(
          "customs_acl_admits_nobody",
          "warning",
          `${where}: deny ${all.text} removes every IPv${family} entry from each host's access list, so no IPv${family} client is admitted`,
          place(`${at}/deny/${all.i}`),
        ),
      );
  }
  for (let i = 0; i < d.allow.length; i++) {
    const text = d.allow[i];
    if (work.due(ENTRY_UNITS)) yield;
    const net = parseNetworkPadded(text.trim());
    if (net === null) continue;
    if (!work.charge(denies.length)) continue;
    const by = denies.find((x) => x.net !== null && x.net.prefix > 0 && overlaps(net, x.net));
    if (by !== undefined)
      out.push(
        finding(
          "customs_allow_denied",
          "warning",
          `${where}: allow ${text} is removed again by deny ${by.text} (a deny removes every entry it overlaps), so it admits nobody`,
          place(`${at}/allow/${i}`),
        ),
      );
  }
}

/**
 * Lints customs.json (`data` as compiled: each network's defaults merged over
 * the pool's), as resumable work: it yields when its counted work fills a slice.
 */
export function* lintCustoms(
  source: string,
  data: CustomsPolicyData,
  work = new LintWork(),
): Steps<LintFinding[]> {
  const out: LintFinding[] = [];
  const places = jsonPlaces(source);
  const place = (p: string) => places.place(p);
  yield;
  const raw = JSON.parse(source) as { defaults?: unknown; networks?: Record<string, unknown> };
  yield;
  const pool = "the pool's defaults";
  yield* lintDefaults(work, data.defaults, raw.defaults === undefined ? "" : "/defaults", pool, place, out);
  // a network inherits the pool's defaults: what they already cause is reported once, for the pool
  const inherited = new Set(out.map((f) => `${f.code} ${f.message.slice(pool.length)}`));
  for (const [net, d] of Object.entries(data.networks)) {
    const mine: LintFinding[] = [];
    const where = `network ${net}`;
    yield* lintDefaults(work, d, `/networks/${pointerSegment(net)}`, where, place, mine);
    out.push(...mine.filter((f) => !inherited.has(`${f.code} ${f.message.slice(where.length)}`)));
  }
  return out;
}
