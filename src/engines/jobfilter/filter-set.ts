import type { FilterRule } from "./types.js";
import type { FieldTable, PreparedJob } from "./evaluate.js";
import { compilePredicate, newFieldTable } from "./evaluate.js";
import { parseExpression, type Expr } from "./expression.js";
import { allOf, predicateCoReach, predicateReach, type FactReach, type Reach } from "./job-reach.js";
import { compareCodePoints } from "./order.js";

/** A rule ready to test jobs: predicates compiled, action split into kind and limit. */
export interface CompiledRule {
  readonly rule: FilterRule;
  readonly uuid: string;
  /** ACCEPT, PAUSE, REJECT, CONTINUE or RATE_LIMIT. */
  readonly kind: "ACCEPT" | "PAUSE" | "REJECT" | "CONTINUE" | "RATE_LIMIT";
  /** The RATE_LIMIT n, 0 for the other actions. */
  readonly limit: number;
  readonly matches: (job: PreparedJob) => boolean;
  /** Each predicate's test on its own, in the rule's order (for the explain trace). */
  readonly predicates: readonly ((job: PreparedJob) => boolean)[];
  /** Whether the rule reads nothing of a job but its id (only `jobid` predicates, or none). */
  readonly idOnly: boolean;
}

const reaches = new WeakMap<CompiledRule, Reach>();
const parsedRules = new WeakMap<CompiledRule, (Expr | null)[]>();

/** A rule's predicates parsed again (null: one that does not parse), once for its reach and co-reach: building a set keeps no parsed expressions for the few rules a change asks about. */
function parsedOf(r: CompiledRule): (Expr | null)[] {
  let out = parsedRules.get(r);
  if (out === undefined) {
    out = r.rule.predicates.map((p) => {
      const parsed = parseExpression(p[1]);
      return parsed.ok ? parsed.value : null;
    });
    parsedRules.set(r, out);
  }
  return out;
}

/** The running jobs a rule can match at most (see job-reach.ts), worked out on first use: only the rules a change adds are asked. */
export function ruleReach(r: CompiledRule): Reach {
  let reach = reaches.get(r);
  if (reach === undefined) {
    const parsed = parsedOf(r);
    reach = allOf(r.rule.predicates.map((p, i) => predicateReach(p[0], parsed[i], r.rule.watermark)));
    reaches.set(r, reach);
  }
  return reach;
}

const coReaches = new WeakMap<CompiledRule, readonly FactReach[] | null>();

/**
 * Where a rule may fail to hold (see job-reach.ts `predicateCoReach`): a job
 * that has none of these facts matches the rule ([]: every job does); null
 * when that is not known for one of its predicates. Worked out on first use.
 */
export function ruleCoReach(r: CompiledRule): readonly FactReach[] | null {
  let co = coReaches.get(r);
  if (co === undefined) {
    const out: FactReach[] = [];
    const parsed = parsedOf(r);
    for (let i = 0; i < parsed.length; i++) {
      const f = predicateCoReach(r.rule.predicates[i][0], parsed[i]);
      if (f === null) {
        co = null;
        break;
      }
      out.push(f);
    }
    if (co === undefined) co = out;
    coReaches.set(r, co);
  }
  return co;
}

/**
 * Whether the rule's `OP_ID` reach is exact: one `opcode` predicate that is
 * one test of `OP_ID` (`== "X"`, `!= "X"`, a regex), so a job with an opcode
 * whose `OP_ID` is a string the reach holds matches the rule (its other
 * opcodes cannot undo that), and no job need be read to know it.
 */
export function ruleByOpId(r: CompiledRule): boolean {
  if (r.rule.predicates.length !== 1 || r.rule.predicates[0][0] !== "opcode") return false;
  const e = parsedOf(r)[0];
  if (e === null) return false;
  const leaf = e.k === "not" ? e.x : e;
  if (leaf.k === "regex") return e === leaf && leaf.field === "OP_ID";
  return leaf.k === "cmp" && leaf.op === "==" && leaf.field === "OP_ID" && typeof leaf.value === "string";
}

/**
 * The opcode field path (not `OP_ID`) a rule tests with one regex and
 * nothing else (one `opcode` predicate that is one `=~` leaf), else
 * undefined: a job with an opcode whose value there is a string the regex
 * matches matches the rule (its other opcodes cannot undo that; a regex
 * holds on no other value), so its field index says which jobs it takes.
 */
export function ruleRegexOn(r: CompiledRule): string | undefined {
  if (r.rule.predicates.length !== 1 || r.rule.predicates[0][0] !== "opcode") return undefined;
  const e = parsedOf(r)[0];
  return e !== null && e.k === "regex" && e.field !== "OP_ID" ? e.field : undefined;
}

/** The loaded filter chain: rules in evaluation order, CONTINUE rules dropped from the chain walked per job. */
export interface FilterSet {
  /** All rules in (priority, watermark, uuid) order. */
  readonly rules: readonly CompiledRule[];
  /** The rules that can apply (action not CONTINUE), in the same order. */
  readonly chain: readonly CompiledRule[];
  /** How many opcode field paths the rules name: the size of each prepared opcode's view. */
  readonly fields: number;
  /** The opcode field paths (not `OP_ID`) whose values bound where a rule's opcode predicate holds (`==`, `=[]`, and their `&`/`|`), in first-seen order: those a running-count store indexes by value. */
  readonly valued: readonly string[];
  /** The opcode field paths (not `OP_ID`) an opcode predicate `!=` names alone (`name != "x"`), in first-seen order: those a store finding jobs by complement indexes too (see `ruleCoReach`). */
  readonly indexable: readonly string[];
}

/** What carrying running counts reads of a rule set (see rule-change.ts): its rules in order, and its chain; a `FilterSet` is one. */
export interface RuleOrder {
  readonly rules: readonly { readonly rule: FilterRule; readonly uuid: string }[];
  readonly chain: readonly { readonly rule: FilterRule; readonly uuid: string }[];
}

/** A rule set's order without compiling its predicates: enough to carry counts saved for it (see `RunningCounts.restore`). */
export function ruleOrder(rules: readonly FilterRule[]): RuleOrder {
  const sorted = [...rules].sort(compareRules).map((rule) => ({ rule, uuid: rule.uuid }));
  return { rules: sorted, chain: sorted.filter((r) => r.rule.action !== "CONTINUE") };
}

/** The order Ganeti evaluates rules in: priority, then watermark, then uuid. */
export function compareRules(a: FilterRule, b: FilterRule): number {
  if (a.priority !== b.priority) return a.priority < b.priority ? -1 : 1;
  if (a.watermark !== b.watermark) return a.watermark < b.watermark ? -1 : 1;
  return compareCodePoints(a.uuid, b.uuid);
}

/** Compiles one validated rule against its set's field table; predicates that name the watermark capture it here. */
export function compileRule(rule: FilterRule, fields: FieldTable): CompiledRule {
  const preds = rule.predicates.map((p) => compilePredicate(p, rule.watermark, fields));
  const matches =
    preds.length === 0
      ? () => true
      : preds.length === 1
        ? preds[0]
        : (job: PreparedJob) => {
            for (const p of preds) if (!p(job)) return false;
            return true;
          };
  const kind = Array.isArray(rule.action) ? "RATE_LIMIT" : rule.action;
  const limit = Array.isArray(rule.action) ? rule.action[1] : 0;
  const idOnly = rule.predicates.every((p) => p[0] === "jobid");
  return { rule, uuid: rule.uuid, kind, limit, matches, predicates: preds, idOnly };
}

/** Builds the filter chain once per rule set, so each decision only walks closures. */
export function buildFilterSet(rules: readonly FilterRule[]): FilterSet {
  const fields = newFieldTable();
  const compiled = [...rules].sort(compareRules).map((r) => compileRule(r, fields));
  return {
    rules: compiled,
    chain: compiled.filter((r) => r.kind !== "CONTINUE"),
    fields: fields.paths.length,
    valued: [...fields.valued],
    indexable: [...fields.indexable],
  };
}

/**
 * The applying rule: the first in order whose predicates all match and whose
 * action is not CONTINUE (CONTINUE rules are skipped without evaluating them,
 * which gives the same answer since they can never apply).
 */
export function applyingRule(set: FilterSet, job: PreparedJob): CompiledRule | null {
  for (const r of set.chain) if (r.matches(job)) return r;
  return null;
}

/** The chain position of the applying rule among the first `end` rules, or -1; a rule's position identifies it within one set. */
export function ruleIndex(set: FilterSet, job: PreparedJob, end: number): number {
  const chain = set.chain;
  for (let i = 0; i < end; i++) if (chain[i].matches(job)) return i;
  return -1;
}
