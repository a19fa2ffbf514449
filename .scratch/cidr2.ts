import { parseLimitsText } from "../src/engines/limits/source.js";
import { buildPolicy } from "../src/engines/limits/policy.js";
import { compiledForm } from "../src/engines/limits/engine.js";
import { rangeSetOfTexts } from "../src/engines/common/cidr-ranges.js";
import { scanNetwork } from "../src/engines/common/cidr-scan.js";
const N = Number(process.argv[2]);
const cidrs: string[] = [];
for (let i = 0; i < N; i++) { const a = (i * 2654435761) >>> 0; cidrs.push(i % 2 ? `2001:db8:${(a>>>16).toString(16)}:${(a&65535).toString(16)}::/64` : `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.0/24`); }
const cfg = { schema: 2, identifiers: [{ name: "list", description: "d", type: "ip-cidr-list", data: { cidrs: [...new Set(cidrs)] } }], classifiers: [{ name: "c", description: "d", identifiers: ["list"] }], limits: [{ name: "always", description: "d", type: "pass-fail", data: { pass: true } }], applications: [{ classifier: "c", apply: [{ require: "all", limits: ["always"] }] }] };
const text = JSON.stringify(cfg);
for (let rep = 0; rep < 3; rep++) {
let t = performance.now(); JSON.parse(text); const tj = performance.now() - t;
t = performance.now(); const p = parseLimitsText(text); const tp = performance.now() - t;
t = performance.now(); let ok = 0; for (const c of cidrs) if (scanNetwork(c)) ok++; const ts = performance.now() - t;
t = performance.now(); rangeSetOfTexts(cidrs); const tr = performance.now() - t;
t = performance.now(); const b = buildPolicy((p as any).value); const tb = performance.now() - t;
t = performance.now(); compiledForm((b as any).value); const tf = performance.now() - t;
console.log({ tj, tp, ts, tr, tb, tf });
}
