import { readAd } from "../src/engines/classad/ad-input.js";
import { decideParsedMatch } from "../src/engines/classad/match.js";
import { JOB_AD, slotAd } from "../bench/classad.js";
const ad = (t: string) => { const r = readAd(t); if (!r.ok) throw new Error(r.error.message); return r.ad; };
const job = ad(JOB_AD);
const ctx = { now: 1_700_000_000_000, random: Math.random };
const N = Number(process.argv[2]);
const machines = Array.from({ length: N }, (_, i) => ad(slotAd(i)));
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const run = () => decideParsedMatch(null, { job, schedd: null, machines }, ctx);
for (let i = 0; i < 5; i++) run();
const res: number[] = [];
for (let r = 0; r < 5; r++) { let n = 0; const c0 = cpu(); const w0 = performance.now(); while (cpu() - c0 < (process.env.MS ? +process.env.MS : 300) * 1000) { run(); n++; } res.push((cpu() - c0) / n); }
res.sort((a, b) => a - b);
console.log(N, "cpu µs", res[2].toFixed(1), "per", (res[2] / N).toFixed(3), "heap MB", (process.memoryUsage().heapUsed / 1e6).toFixed(1));
