import { timeCalls, collect } from "../bench/scale/series.js";
import { readAd } from "../src/engines/classad/ad-input.js";
import { decideParsedMatch } from "../src/engines/classad/match.js";
import { JOB_AD, slotAd } from "../bench/classad.js";
const ad = (t: string) => { const r = readAd(t); if (!r.ok) throw new Error(r.error.message); return r.ad; };
const job = ad(JOB_AD);
const ctx = { now: 1_700_000_000_000, random: Math.random };
const machines = Array.from({ length: 10 }, (_, i) => ad(slotAd(i)));
const run = () => decideParsedMatch(null, { job, schedd: null, machines }, ctx);
for (let r = 0; r < 5; r++) { if (process.env.GC) { collect(); timeCalls(run, 100); } console.log(timeCalls(run, +(process.env.MS ?? 100)).toFixed(2)); }
