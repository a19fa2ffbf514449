import { limitsEngine } from "../src/engines/limits/index.js";
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1];
for (const N of [10, 1000, 10000, 100000]) {
const cidrs: string[] = [];
for (let i = 0; i < N; i++) { const a = (i * 2654435761) >>> 0; cidrs.push(i % 2 ? `2001:db8:${(a>>>16).toString(16)}:${(a&65535).toString(16)}::/64` : `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.0/24`); }
const cfg = { schema: 2, identifiers: [{ name: "list", description: "d", type: "ip-cidr-list", data: { cidrs: [...new Set(cidrs)] } }], classifiers: [{ name: "c", description: "d", identifiers: ["list"] }], limits: [{ name: "always", description: "d", type: "pass-fail", data: { pass: true } }], applications: [{ classifier: "c", apply: [{ require: "all", limits: ["always"] }] }] };
const text = JSON.stringify(cfg);
const tcs: number[] = [], tls: number[] = [];
for (let r = 0; r < 5; r++) { (globalThis as any).gc?.();
let t = performance.now();
const c = limitsEngine.compile(text);
tcs.push(performance.now() - t);
if (!c.ok) { console.log(c.error); process.exit(1); }
const data = JSON.parse(JSON.stringify(c.value));
t = performance.now();
limitsEngine.load(data);
tls.push(performance.now() - t);
}
console.log(N, "compile ms", med(tcs).toFixed(2), "load ms", med(tls).toFixed(2), "first", tcs[0].toFixed(1), tls[0].toFixed(1));
}
