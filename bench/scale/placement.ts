/**
 * Scale series: a placement decision over 10 / 100 / 300 / 1,000 / 3,000
 * rules, each a `user` rule with its own filter regex, for a user no filter
 * admits (so every rule's filter is tested) before `fixed root.default`.
 * The loaded policy keeps each rule's gate (the literal prefix its filter
 * regexp needs) in one packed array, so an unexplained decision skips these
 * rules without reading them (src/engines/placement/load.ts).
 */
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { hardRule, placementWithRules } from "../fixtures.js";
import { measureSeries, report } from "./series.js";

const SIZES = [10, 100, 300, 1_000, 3_000];

function policyText(n: number): string {
  return placementWithRules(n, (i) => `{name: user, create: true, filter: {type: allow, users: ["^team${i}-[a-z]+$"]}}`);
}

const request = { user: "carol", groups: ["staff"], queue: "", tags: {} };

const result = measureSeries(
  "placement: N user rules, each with its own filter regex, none admitting the user",
  SIZES,
  (n) => {
    const compiled = compilePlacement(policyText(n));
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
    const policy = loadPlacement(compiled.value);
    const check = decidePlacement(policy, request as never, { explain: false });
    if (JSON.stringify(check.verdict).indexOf("root.default") < 0)
      throw new Error(`unexpected ${JSON.stringify(check.verdict)}`);
    return { run: () => decidePlacement(policy, request as never, { explain: false }) };
  },
);
report(result);

/**
 * The hard shape (issue 31): rules whose regexes have no literal prefix, with
 * groups and a parent rule, for a user and groups none admits. Each filter's
 * gate needs the literal its regex always contains and the group names, so a
 * decision skips the rule without running the regex; compiling the file (YAML
 * and one compile per regex) is noted per size.
 */
function hardText(n: number): string {
  return placementWithRules(n, hardRule, ["{name: users, parent: true}"]);
}

const hardRequest = { user: "carol", groups: ["staff", "dev"], queue: "", tags: {} };
const compileNotes: string[] = [];
const hard = measureSeries(
  "placement, hard shape: N user rules, regexes without literal prefix, with groups and parent",
  SIZES,
  (n) => {
    const text = hardText(n);
    const t0 = process.cpuUsage();
    const compiled = compilePlacement(text);
    const d = process.cpuUsage(t0);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
    const l0 = process.cpuUsage();
    const policy = loadPlacement(compiled.value);
    const l = process.cpuUsage(l0);
    compileNotes.push(
      `${n} rules: compile ${((d.user + d.system) / 1000).toFixed(0)} ms, load ${((l.user + l.system) / 1000).toFixed(1)} ms`,
    );
    const check = decidePlacement(policy, hardRequest as never, { explain: false });
    if (JSON.stringify(check.verdict).indexOf("root.default") < 0)
      throw new Error(`unexpected ${JSON.stringify(check.verdict)}`);
    return { run: () => decidePlacement(policy, hardRequest as never, { explain: false }) };
  },
);
report({ ...hard, notes: [...hard.notes, ...compileNotes] });
