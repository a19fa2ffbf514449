/**
 * Scale series: one customs allocation over a pool of 10 / 1,000 / 10,000 /
 * 30,000 / 100,000 hosts on one network, as the HostPool object does it
 * (select over the prepared pool, count the job on the chosen host, and
 * take one host's report, so reports arrive as steadily as allocations),
 * with the typed-array layout (`HostIndex`) and, for comparison in the same
 * run, the scan over host objects that the trace (`?explain=true`) still uses.
 */
import {
  DEFAULT_POLICY_DATA,
  HostIndex,
  loadCustomsPolicy,
  normalizeHost,
  prepareHost,
  prepareRequest,
  selectHost,
  withJobs,
  type PreparedHost,
} from "../../src/engines/customs/index.js";
import { heapUsed, measureSeries, report } from "./series.js";

const SIZES = [10, 1_000, 10_000, 30_000, 100_000];
const policy = loadCustomsPolicy(DEFAULT_POLICY_DATA);

/** A varied pool: loads, swap, attributes, access lists and levels, like bench/customs.ts. */
function preparedPool(n: number): PreparedHost[] {
  const out: PreparedHost[] = [];
  for (let i = 0; i < n; i++) {
    const raw = {
      name: i === 0 ? "ws0" : `h${i}`,
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      load: (i % 13) / 20,
      swapFreePct: 20 + (i % 60),
      jobs: i % 3,
      idleSeconds: 600 + (i % 17) * 60,
      freeProcs: 5 + (i % 30),
      attrs: i % 4 === 0 ? ["fastdisk", "x86"] : i % 4 === 1 ? ["hugemem"] : ["x86"],
      allow: i % 5 === 0 ? ["192.168.0.0/16", "10.0.0.0/8"] : ["10.0.0.0/8", "2001:db8::/32"],
      deny: i % 7 === 0 ? ["10.0.0.13"] : [],
      access: i % 9 === 0 ? 2 : 0,
      users: { alice: "/bin/sh" },
      shells: ["/bin/sh"],
      bias: i % 11,
    };
    const h = normalizeHost(raw, policy.defaults);
    if (!h.ok) throw new Error(h.error[0].message);
    const p = prepareHost(h.value);
    if (!p.ok) throw new Error(p.error[0].message);
    out.push(p.value);
  }
  return out;
}

const prepared = prepareRequest({
  client: "ws0",
  net: 0,
  fromAddress: "10.0.0.20",
  user: "alice",
  attrs: ["x86", "!sparc", "OR", "hugemem"],
});
if (!prepared.ok) throw new Error("request");
const req = prepared.value;
const pools = new Map(SIZES.map((n) => [n, preparedPool(n)]));

/** The DO's hot path over an index: select, count the job; between two allocations one host reports (in turn). */
function indexedCase(n: number) {
  const pool = pools.get(n) as PreparedHost[];
  const index = HostIndex.of(pool);
  let last = -1;
  let count = 0;
  return {
    run: () => {
      const sel = index.select(req, { now: undefined, downFactor: 2, last, ratings: false });
      if (sel.index >= 0) {
        last = sel.index;
        const p = index.at(sel.index);
        index.put(withJobs(p, p.host.jobs + 1));
      }
      index.put(pool[count++ % n]);
      return sel;
    },
  };
}

/** The same over the array of host objects (selectHost), as before the index. */
function arrayCase(n: number) {
  const pool = pools.get(n) as PreparedHost[];
  const live = pool.slice();
  let last = -1;
  let count = 0;
  return {
    run: () => {
      const sel = selectHost(live, req, { now: undefined, downFactor: 2, last, ratings: false });
      if (sel.index >= 0) {
        last = sel.index;
        live[sel.index] = withJobs(live[sel.index], live[sel.index].host.jobs + 1);
      }
      const k = count++ % n;
      live[k] = pool[k];
      return sel;
    },
  };
}

const indexed = measureSeries(
  "customs: one allocation over N hosts (HostIndex, the HostPool object's path)",
  SIZES,
  indexedCase,
  { rounds: 3 },
);
const scanned = measureSeries(
  "customs: the same over host objects (selectHost, the former path)",
  SIZES,
  arrayCase,
  { rounds: 3 },
);
const before = heapUsed();
const index = HostIndex.of(pools.get(100_000) as PreparedHost[]);
indexed.notes.push(
  `the index's arrays for 100,000 hosts: ${((heapUsed() - before) / 1048576).toFixed(1)} MB (the prepared hosts themselves: ${(before / 1048576).toFixed(0)} MB with every pool of the series held)`,
);
indexed.notes.push(
  `at 100,000 hosts: ${(scanned.values[4] / indexed.values[4]).toFixed(1)}× faster than the scan over host objects`,
);
report(indexed, scanned);
if (index.length === 0) console.log("");
