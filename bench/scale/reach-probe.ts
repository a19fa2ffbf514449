import { RunningCounts, buildFilterSet, MemoryShares } from "../../src/engines/jobfilter/index.js";
import { chain } from "../fixtures.js";
import { variedJob, KINDS } from "./jobfilter-reach.js";
const N = Number(process.env.N ?? 100000);
const rules = chain(1000);
const jobs = Array.from({ length: N }, (_, i) => variedJob(1000 + i));
const t = (f: () => unknown) => { const a = process.cpuUsage(); f(); const b = process.cpuUsage(a); return ((b.user + b.system) / 1000).toFixed(1); };
console.log("build set", t(() => buildFilterSet(rules)), t(() => buildFilterSet(rules)), t(() => buildFilterSet(rules)));
const counts = RunningCounts.of(buildFilterSet(rules), jobs);
for (const [name, p] of KINDS.slice(Number(process.env.FROM ?? 0), Number(process.env.TO ?? 99))) {
  const to = rules.map((r, i) => (i === 500 ? { ...r, predicates: p } : r));
  const xs = [];
  for (let k = 0; k < 4; k++) { const s = buildFilterSet(k % 2 ? rules : to); xs.push(t(() => counts.rebase(s))); }
  console.log(name, xs.join(" "));
}
