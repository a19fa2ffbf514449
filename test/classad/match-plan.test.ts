/**
 * Match plans (src/engines/classad/match-plan.ts): an attribute evaluated through
 * a plan for the pair's layouts gives the general lookup's value and charges its
 * work, unit for unit, up to where a small budget runs out.
 */
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/engines/common/budget.js";
import { readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { compile } from "../../src/engines/classad/compile.js";
import { evalAttr, evalCompiled } from "../../src/engines/classad/evaluate.js";
import { parseExpr } from "../../src/engines/classad/parser.js";
import { PLAN_AFTER, PLANS_KEPT, PlanSite } from "../../src/engines/classad/match-plan.js";
import { EvalState } from "../../src/engines/classad/state.js";
import { unparseValue } from "../../src/engines/classad/unparse.js";
import type { Value } from "../../src/engines/classad/values.js";

const ctx = { now: Date.UTC(2026, 0, 1), random: () => 0.5 };
const LONG = "x".repeat(40);

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(`${r.error.message}: ${text}`);
  return r.ad;
}

/** Two machine kinds (two layouts), their Requirements reading the job back. */
const machines = [
  ad(
    `[ Name = "a"; Arch = "X86_64"; Memory = 1024 * 4; Cpus = 8; Long = "${LONG}"; Start = true; Loop = TARGET.Requirements; Requirements = Start && TARGET.RequestMemory <= MY.Memory && RequestCpus <= Cpus ]`,
  ),
  ad(
    `[ Name = "b"; Cpus = 2; Arch = "ARM"; Memory = 512; Long = "${LONG.toUpperCase()}"; Requirements = TARGET.Missing =?= UNDEFINED && Memory > RequestMemory - 4096 ]`,
  ),
  ad(
    `[ Name = "c"; Arch = "X86_64"; Memory = 1024 * 4; Cpus = 8; Long = "${LONG}"; Start = true; Loop = TARGET.Requirements; Requirements = Start && TARGET.RequestMemory <= MY.Memory && RequestCpus <= Cpus ]`,
  ),
];

/** Job Requirements: the reference forms a plan resolves, and those it leaves to the lookup. */
const requirements = [
  `TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64" && TARGET.Cpus - 1 > RequestCpus`,
  `MY.RequestMemory + TARGET.Cpus`,
  `target.memory + other.CPUS + my.requestcpus + self.requestcpus`,
  `Memory + Cpus`, // not in the job: the machine's (the fallback)
  `TARGET.Nope =?= UNDEFINED && Nope =?= UNDEFINED && MY.Nope =?= UNDEFINED`,
  `CurrentTime > 0 && MY.CurrentTime =?= UNDEFINED`,
  `.RequestMemory =?= UNDEFINED`,
  `TARGET.Loop`, // the machine's Loop reads the job's Requirements back: a cycle, UNDEFINED
  `ifThenElse(TARGET.Cpus > 2, RequestCpus, 0) + size(strcat(TARGET.Name, "x"))`,
  `TARGET.Long == Long && TARGET.Long != Long && TARGET.Long >= Long`,
  `{ 1, 2, 3 }[0] == RequestCpus`,
  `[ a = TARGET.Memory ].a`,
  `TARGET.Memory > 100 ? RequestMemory : TARGET.Cpus`,
  `!(TARGET.Arch == "ARM") || TARGET.Cpus < 4`,
  `TARGET.Requirements && MY.Target =?= UNDEFINED`,
  `isUndefined(TARGET.Nope) && stringListIMember(TARGET.Arch, "arm, x86_64") && isString(MY.Long) && !isError(Memory)`,
];

const job = (req: string, extra = "") =>
  ad(
    `[ RequestMemory = 2048; RequestCpus = 1; Long = "${LONG.toUpperCase()}"; ${extra}Requirements = ${req} ]`,
  );

/** One evaluation under its own budget of `limit` units: the value printed and the units charged. */
function run(evaluate: (st: EvalState) => Value, limit = 1e9): [string, number] {
  const b = new Budget(limit);
  const v = b.run(() => {
    const st = new EvalState(ctx);
    const v = evaluate(st);
    st.flushWork();
    return v;
  });
  return [unparseValue(v), b.used];
}

describe("a match plan", () => {
  it("evaluates as the lookup does and charges the same units, for every reference form", () => {
    const jobs: [string, ClassAd][] = [
      ...requirements.map((r): [string, ClassAd] => [r, job(r)]),
      ["TARGET.Memory + 1, the job defining Target", job("TARGET.Memory + 1", "Target = [ Memory = 1 ]; ")],
      ["MY.Memory, the job defining My", job("MY.Memory", "My = [ Memory = 7 ]; ")],
    ];
    for (const [text, j] of jobs) {
      // the first evaluation parses what the ads' reading deferred (charged once): done before comparing
      for (const m of machines) {
        run((st) => evalAttr(j, "requirements", m, st));
        run((st) => evalAttr(m, "requirements", j, st));
      }
      const site = new PlanSite("requirements");
      const back = new PlanSite("requirements");
      // each machine PLAN_AFTER + 2 times in a row: the plan is built, dropped for the other layout, built again
      const runs = PLAN_AFTER + 2;
      for (let k = 0; k < machines.length * runs; k++) {
        const m = machines[Math.floor(k / runs)];
        expect(
          run((st) => site.eval(j, m, st)),
          `${text} against ${k}`,
        ).toEqual(run((st) => evalAttr(j, "requirements", m, st)));
        expect(
          run((st) => back.eval(m, j, st)),
          `machine ${k} against ${text}`,
        ).toEqual(run((st) => evalAttr(m, "requirements", j, st)));
        if (k % runs === runs - 1) expect(back.planned).toBe(true);
      }
      // a list or a nested ad in the expression: no plan
      expect(site.planned, text).toBe(!/[{[]/.test(text));
    }
  });

  it("is built once the same expression comes with the same layouts, and gives the same ERROR where a small budget runs out", () => {
    const j = job(requirements[0]);
    const m = machines[0];
    const site = new PlanSite("requirements");
    for (let k = 0; k < PLAN_AFTER; k++) {
      expect(site.planned).toBe(false);
      site.eval(j, m, new EvalState(ctx));
    }
    expect(site.planned).toBe(true);
    for (const req of requirements) {
      const jr = job(req);
      const planned = new PlanSite("requirements");
      for (let k = 0; k < PLAN_AFTER; k++) planned.eval(jr, m, new EvalState(ctx));
      for (let limit = 0; limit < 60; limit++)
        expect(
          run((st) => planned.eval(jr, m, st), limit),
          `${req} in ${limit} units`,
        ).toEqual(run((st) => evalAttr(jr, "requirements", m, st), limit));
    }
  });

  it("keeps the plans of a few pairs met in turn, and builds none for more pairs than it keeps", () => {
    const j = job(requirements[0]);
    // machines[0] and machines[2] share a layout and an expression; machines[1] has its own: two pairs
    const kinds = [machines[0], machines[1]];
    const site = new PlanSite("requirements");
    // in turn: with one pair kept, each switch dropped the streak and no plan was ever built
    for (let k = 0; k < 2 * PLAN_AFTER; k++) site.eval(j, kinds[k % 2], new EvalState(ctx));
    for (const m of [...kinds, machines[2]]) {
      expect(run((st) => site.eval(j, m, st))).toEqual(run((st) => evalAttr(j, "requirements", m, st)));
      expect(site.planned).toBe(true);
    }
    // one more pair than the site keeps, in turn: each is dropped before it comes again, so no plan is built
    const jobs = Array.from({ length: PLANS_KEPT + 1 }, (_, i) => job(`TARGET.Memory >= ${i}`));
    const many = new PlanSite("requirements");
    for (let k = 0; k < 4 * PLAN_AFTER * jobs.length; k++) {
      many.eval(jobs[k % jobs.length], machines[0], new EvalState(ctx));
      expect(many.planned).toBe(false);
    }
  });

  it("reads an AND chain's slot operands, and a planned pair met again, as the lookup does", () => {
    // one layout (the same names in the same order): Start of every kind a plan's AND chain reads in
    // place, and two Requirements texts in turn, so that the pair met again holds another expression
    const starts = [
      "true",
      "KeyboardIdle > 15",
      "1",
      "0",
      `"yes"`,
      "Nope",
      "1 / 0",
      "TARGET.RequestCpus",
      "false",
    ];
    const texts = [
      `Start && TARGET.RequestMemory <= MY.Memory && (Start) && TARGET.RequestCpus <= Cpus`,
      `Start && TARGET.RequestMemory > MY.Memory && (TARGET.Flag) && Start`,
    ];
    const pool = starts.flatMap((start, i) =>
      texts.map((req, k) =>
        ad(
          `[ Name = "m${i}.${k}"; KeyboardIdle = ${20 * i}; Start = ${start}; Memory = ${1024 * i}; Cpus = ${i}; Requirements = ${req} ]`,
        ),
      ),
    );
    const j = job(
      `Start && TARGET.Memory >= RequestMemory && (TARGET.Start) && Cpus >= RequestCpus`,
      "Flag = true; Start = 1; ",
    );
    for (const m of pool) {
      run((st) => evalAttr(m, "requirements", j, st));
      run((st) => evalAttr(j, "requirements", m, st));
    }
    const back = new PlanSite("requirements");
    const site = new PlanSite("requirements");
    for (let round = 0; round < 3; round++)
      for (const [i, m] of pool.entries()) {
        expect(
          run((st) => back.eval(m, j, st)),
          `${unparseValue(m)} against the job`,
        ).toEqual(run((st) => evalAttr(m, "requirements", j, st)));
        expect(
          run((st) => site.eval(j, m, st)),
          `the job against ${unparseValue(m)}`,
        ).toEqual(run((st) => evalAttr(j, "requirements", m, st)));
        // the first two ads' Requirements were read before the shared cache kept their texts: each its own
        if (round > 0 && i >= texts.length) expect(back.planned && site.planned).toBe(true);
        for (let limit = 0; limit < 12; limit += 3)
          expect(run((st) => back.eval(m, j, st), limit)).toEqual(
            run((st) => evalAttr(m, "requirements", j, st), limit),
          );
      }
  });

  it("evaluates a pool policy expression (no ad holds it) as evalCompiled does, MY alone or in a match", () => {
    const policy = [
      // policies/pool.conf's, expanded
      `(Draining =?= true) || (Memory < 512) || (Cpus =?= 0)`,
      `(MY.Partition =!= "gpu") || (TARGET.RequestGpus >= 1)`,
      `isUndefined(MY.AllowedPartitions) || stringListIMember(TARGET.Partition ?: "default", MY.AllowedPartitions)`,
      `stringListIMember(Owner, "mallory,guest") || (NumJobStarts > 10)`,
      // what MY alone resolves and what it leaves to the lookup
      `Nope =?= UNDEFINED && MY.Nope =?= UNDEFINED && TARGET.Memory =?= UNDEFINED && Target =?= UNDEFINED`,
      `isString(Long) && !isError(TARGET.Long) && stringListMember(Arch, "ARM X86_64") && CurrentTime > 0`,
      `strcat(Long, TARGET.Long, Requirements) != "" && (Memory + RequestMemory) * 2 > Cpus - RequestCpus`,
      `ifThenElse(isUndefined(Start), Memory, Cpus) + size(Name ?: "")`,
      ...requirements,
    ];
    const parsed = policy.map((text) => {
      const p = parseExpr(text, false, true);
      if (!p.ok) throw new Error(text);
      return compile(p.node);
    });
    const j = job(requirements[0], `AllowedPartitions = "cpu, gpu"; Owner = "Guest"; NumJobStarts = 3; `);
    const targets: [string, ClassAd | null][] = [
      ["alone", null],
      ["in a match", j],
    ];
    for (const [i, c] of parsed.entries())
      for (const [how, target] of targets) {
        const site = new PlanSite("");
        const runs = PLAN_AFTER + 2;
        for (let k = 0; k < machines.length * runs; k++) {
          const m = machines[Math.floor(k / runs)];
          expect(
            run((st) => site.evalIn(c, m, target, st)),
            `${policy[i]} ${how}, ${k}`,
          ).toEqual(run((st) => evalCompiled(c, m, target, st)));
          // the job's side: MY = the job, TARGET = the machine (or the job alone)
          expect(
            run((st) => site.evalIn(c, j, target === null ? null : m, st)),
            `job: ${policy[i]}, ${k}`,
          ).toEqual(run((st) => evalCompiled(c, j, target === null ? null : m, st)));
        }
        // planned once the streak is long enough, unless the expression holds a list or a nested ad
        if (target === null) expect(site.planned, `${policy[i]} ${how}`).toBe(!/[{[]/.test(policy[i]));
        for (let limit = 0; limit < 40; limit++)
          expect(
            run((st) => site.evalIn(c, machines[2], target, st), limit),
            `${policy[i]} in ${limit}`,
          ).toEqual(run((st) => evalCompiled(c, machines[2], target, st), limit));
      }
  });
});
