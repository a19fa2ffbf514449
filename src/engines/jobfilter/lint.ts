/**
 * Jobfilter lint: rules a rule evaluated earlier always takes the job from
 * (its predicates are a subset of theirs and its action applies), and
 * predicates no job can satisfy. Rules are taken in Ganeti's order
 * (priority, watermark, uuid); places are the rules' places in filters.json.
 */
import { stringifyExactJson } from "../common/exact-json.js";
import { jsonPlaces } from "../common/json-places.js";
import { ENTRY_UNITS, finding, LintWork, type LintFinding } from "../common/lint.js";
import type { Steps } from "../common/slices.js";
import { compareRules } from "./filter-set.js";
import { neverTrue } from "./never-true.js";
import type { FilterRule } from "./types.js";

function actionText(a: FilterRule["action"]): string {
  return Array.isArray(a) ? `RATE_LIMIT ${a[1]}` : a;
}

/** A predicate as comparable text; one naming `watermark` is only equal within rules of the same watermark. */
function predicateKey(p: FilterRule["predicates"][number], watermark: number | bigint): string {
  const text = stringifyExactJson(p);
  return text.includes('"watermark"') ? `${text}@${String(watermark)}` : text;
}

/**
 * Lints the rules of filters.json (`rules` in file order, as compiled; `source`
 * the file's text), as resumable work: it yields when its counted work fills a slice.
 */
export function* lintJobfilter(
  source: string,
  rules: readonly FilterRule[],
  work = new LintWork(),
): Steps<LintFinding[]> {
  const out: LintFinding[] = [];
  const places = jsonPlaces(source);
  yield;
  const ruleName = (i: number) =>
    `rule ${rules[i].uuid} (priority ${String(rules[i].priority)}, ${actionText(rules[i].action)})`;

  const never = new Set<number>();
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    for (let j = 0; j < r.predicates.length; j++) {
      const p = r.predicates[j];
      if (work.due(ENTRY_UNITS)) yield;
      if (never.has(i) || !work.charge(1)) continue;
      const why = neverTrue(p, r.watermark);
      if (why === null) continue;
      never.add(i);
      out.push(
        finding(
          "jobfilter_never_true",
          "warning",
          `${ruleName(i)}: the \`${p[0]}\` predicate can never be true (${why}), so the rule never matches a job`,
          places.place(`/${i}/predicates/${j}`),
        ),
      );
    }
  }

  // shadowing: an earlier rule whose action applies and whose predicates all appear in a later rule's.
  // Earlier rules are indexed by their first predicate, so a rule only meets those that could be subsets.
  const order = rules.map((_, i) => i).sort((a, b) => compareRules(rules[a], rules[b]));
  yield;
  const keys: string[][] = [];
  for (const r of rules) {
    keys.push([...new Set(r.predicates.map((p) => predicateKey(p, r.watermark)))]);
    if (work.due(ENTRY_UNITS * (1 + r.predicates.length))) yield;
  }
  const byFirst = new Map<string, number[]>();
  let catchAll: number | null = null;
  for (const i of order) {
    if (work.due(ENTRY_UNITS)) yield;
    const r = rules[i];
    const applies = r.action !== "CONTINUE" && !never.has(i);
    if (applies) {
      const mine = new Set(keys[i]);
      let by: number | null = catchAll;
      for (const k of keys[i]) {
        if (by !== null) break;
        for (const a of byFirst.get(k) ?? []) {
          if (!work.charge(keys[a].length)) break;
          if (keys[a].every((x) => mine.has(x))) {
            by = a;
            break;
          }
        }
      }
      if (by !== null) {
        const what =
          keys[by].length === 0
            ? "it has no predicates, so it matches every job"
            : "its predicates are a subset of this rule's";
        out.push(
          finding(
            "jobfilter_shadowed_rule",
            "warning",
            `${ruleName(i)} never applies: ${ruleName(by)} is evaluated first, ${what}, and its action ${actionText(rules[by].action)} applies to every job both match`,
            places.place(`/${i}`),
          ),
        );
      }
      if (keys[i].length === 0) catchAll ??= i;
      else {
        const list = byFirst.get(keys[i][0]);
        if (list === undefined) byFirst.set(keys[i][0], [i]);
        else list.push(i);
      }
    }
  }
  return out;
}
