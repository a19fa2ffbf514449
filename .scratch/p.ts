import { limitsEngine } from "../src/engines/limits/index.js";
const n = 100000;
const cidrs = new Set<string>();
for (let i = 0; cidrs.size < n; i++) { const a = Math.imul(i, 2654435761) >>> 0; cidrs.add(i % 2 ? `2001:db8:${(a >>> 16).toString(16)}:${(a & 65535).toString(16)}::/64` : `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.0/24`); }
const text = JSON.stringify({ schema: 2, identifiers: [{ name: "listed", description: "the list", type: "ip-cidr-list", data: { cidrs: [...cidrs] } }], classifiers: [], limits: [], applications: [] });
for (let r = 0; r < 8; r++) { (globalThis as any).gc(); const t = performance.now(); limitsEngine.compile(text); console.log((performance.now() - t).toFixed(1)); }
