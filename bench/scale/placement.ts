/**
 * Scale series: a placement decision over 10 / 100 / 300 / 1,000 / 3,000
 * rules, each a `user` rule with its own filter regex, for a user no filter
 * admits (so every rule's filter is tested) before `fixed root.default`.
 * This series measures only; making it linear is the placement-regex work
 * of issue 14 (owned apart from this bench).
 */
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { measureSeries, report } from "./series.js";

const SIZES = [10, 100, 300, 1_000, 3_000];

function policyText(n: number): string {
  const lines = ["partitions:", "  - name: default", "    placementrules:"];
  for (let i = 0; i < n; i++) lines.push(`      - {name: user, create: true, filter: {type: allow, users: ["^team${i}-[a-z]+$"]}}`);
  lines.push("      - {name: fixed, value: root.default}", "    queues:", "      - name: root", "        queues:", '          - {name: default, submitacl: "*"}');
  return lines.join("\n") + "\n";
}

const request = { user: "carol", groups: ["staff"], queue: "", tags: {} };

const result = measureSeries("placement: N user rules, each with its own filter regex, none admitting the user", SIZES, (n) => {
  const compiled = compilePlacement(policyText(n));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
  const policy = loadPlacement(compiled.value);
  const check = decidePlacement(policy, request as never, { explain: false });
  if (JSON.stringify(check.verdict).indexOf("root.default") < 0) throw new Error(`unexpected ${JSON.stringify(check.verdict)}`);
  return { run: () => decidePlacement(policy, request as never, { explain: false }) };
});
report(result);
