import { clearExprCache, readAd } from "../src/engines/classad/ad-input.js";
import { slotAd } from "../bench/classad.js";
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const text = slotAd(1);
const ad = (t: string) => { const r = readAd(t); if (!r.ok) throw 1; return r.ad; };
function m(fn: () => unknown) { const res: number[] = []; for (let r = 0; r < 5; r++) { let n = 0; const c0 = cpu(); while (cpu() - c0 < 100000) { fn(); n++; } res.push((cpu() - c0) / n); } return res.sort((a, b) => a - b)[2].toFixed(2); }
const cold = () => { clearExprCache(); return ad(text); };
const warm = () => ad(text);
const order = process.argv[2] ?? "cwc";
for (const ch of order) console.log(ch === "c" ? "cold" : "warm", m(ch === "c" ? cold : warm));
