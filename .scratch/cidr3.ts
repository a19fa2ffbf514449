import { RangeSetBuilder } from "../src/engines/common/cidr-ranges.js";
import { scanNetwork } from "../src/engines/common/cidr-scan.js";
const N = 100000;
const cidrs: string[] = [];
for (let i = 0; i < N; i++) { const a = (i * 2654435761) >>> 0; cidrs.push(i % 2 ? `2001:db8:${(a>>>16).toString(16)}:${(a&65535).toString(16)}::/64` : `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.0/24`); }
for (let rep = 0; rep < 5; rep++) {
  const b = new RangeSetBuilder();
  let t = performance.now(); for (const c of cidrs) if (scanNetwork(c)) b.addScanned(); const ta = performance.now() - t;
  t = performance.now(); b.build(); const tb = performance.now() - t;
  console.log(ta.toFixed(1), tb.toFixed(1));
}
