import { policyError, type PolicyError } from "../common/result.js";
import { checkAclFields } from "./acl.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import { singleEntryProblem, type RegexMemo } from "./filter.js";
import {
  allPartsValid,
  FILTER_GROUP_RE,
  FILTER_USER_RE,
  INVALID_QUEUE_NAME,
  isQueueNameValid,
  RULE_NAME_RE,
} from "./names.js";
import { RULE_TWINS } from "./quick-rule.js";
import type { RawConfig, RawFilter, RawLimit, RawPartition, RawQueue, RawRule } from "./types.js";
import {
  checkLimitApplications,
  checkLimitResources,
  checkMaxApplications,
  checkNodeSort,
  checkQueueLimits,
  checkQueueResources,
} from "./validate-resources.js";

/**
 * The configuration validator (spec §8), with YuniKorn's texts and in its
 * order. YuniKorn stops at the first error; this goes on and reports every
 * one (the first is YuniKorn's), so a policy can be fixed in one round. It
 * returns the partitions with the root queue in place (inserted above the
 * listed queues when needed), for the rule build to check too.
 */

/**
 * The validation under way: its errors so far, the expressions it has
 * inspected, and its pace (validation yields at checkpoints, so nothing of it
 * lives in a module's variable).
 */
interface Check {
  readonly found: PolicyError[];
  readonly memo: RegexMemo;
  readonly pace: Pace;
}

function fail(v: Check, code: string, message: string, at: string): void {
  v.found.push(policyError(code, message, at));
}

function report(v: Check, problem: PolicyError | null): void {
  if (problem !== null) v.found.push(problem);
}

/** `checkLimitsStructure`: partition limits stand for the root queue's, and may only repeat them. */
function limitsStructure(v: Check, p: RawPartition, root: RawQueue): RawQueue {
  if (p.limits.length === 0) return root;
  if (root.limits.length === 0) return { ...root, limits: p.limits };
  if (!sameLimits(p.limits, root.limits))
    fail(
      v,
      "placement_invalid_limit",
      "partition limits and root queue limits are not equivalent",
      `${p.at}/limits`,
    );
  return root;
}

function sameLimits(a: readonly RawLimit[], b: readonly RawLimit[]): boolean {
  const key = (l: RawLimit) =>
    JSON.stringify([
      l.limit,
      l.users,
      l.groups,
      l.maxresources === null ? null : [...l.maxresources].sort(),
      String(l.maxapplications),
    ]);
  return a.length === b.length && a.every((l, i) => key(l) === key(b[i]));
}

function withRoot(p: RawPartition): RawQueue {
  const qs = p.queues ?? [];
  if (qs.length === 1 && qs[0].name.toLowerCase() === "root") return { ...qs[0], parent: true };
  return {
    name: "root",
    parent: true,
    adminacl: "",
    submitacl: "",
    queues: qs,
    resources: { guaranteed: null, max: null },
    maxapplications: 0n,
    limits: [],
    at: `${p.at}/queues`,
  };
}

/** Checks a queue and, depth first, its children; yields (at the pace's checkpoints) between queues. */
function* checkQueues(v: Check, q: RawQueue, level: number): Steps<void> {
  if (v.pace.spend(32)) yield;
  for (const [key, acl] of [
    ["adminacl", q.adminacl],
    ["submitacl", q.submitacl],
  ] as const) {
    const e = checkAclFields(acl);
    if (e !== null) fail(v, "placement_invalid_acl", e, `${q.at}/${key}`);
  }
  report(v, checkQueueLimits(q));
  const seen = new Set<string>();
  for (const child of q.queues ?? []) {
    const lower = child.name.toLowerCase();
    if (!isQueueNameValid(child.name))
      fail(v, "placement_invalid_queue_name", INVALID_QUEUE_NAME, `${child.at}/name`);
    else if (seen.has(lower))
      fail(
        v,
        "placement_duplicate_queue",
        `duplicate child name found with name '${child.name}', level ${level}`,
        `${child.at}/name`,
      );
    seen.add(lower);
  }
  for (const child of q.queues ?? []) yield* checkQueues(v, child, level + 1);
}

/** YuniKorn's text names only the list; Go's own error (and its offset in the entry) follows it when there is one. */
function why(problem: string): string {
  return problem === "" ? "" : ` (${problem})`;
}

/** Checks a rule's filter (at `${ruleAt}/filter`). */
function checkFilter(v: Check, f: RawFilter, ruleAt: string): void {
  if (f.type !== "" && f.type.toLowerCase() !== "allow" && f.type.toLowerCase() !== "deny") {
    fail(
      v,
      "placement_invalid_filter_type",
      `invalid rule filter type ${f.type}, filter type  must be either '', allow or deny`,
      `${ruleAt}/filter/type`,
    );
  }
  const users = f.users.length === 1 ? singleEntryProblem(f.users[0], FILTER_USER_RE, v.memo) : null;
  if (users !== null) {
    fail(
      v,
      "placement_invalid_filter_users",
      `invalid rule filter user list is not a proper list or regexp: [${f.users.join(" ")}]${why(users)}`,
      `${ruleAt}/filter/users`,
    );
  }
  const groups = f.groups.length === 1 ? singleEntryProblem(f.groups[0], FILTER_GROUP_RE, v.memo) : null;
  if (groups !== null) {
    fail(
      v,
      "placement_invalid_filter_groups",
      `invalid rule filter group list is not a proper list or regexp: [${f.groups.join(" ")}]${why(groups)}`,
      `${ruleAt}/filter/groups`,
    );
  }
}

function checkRule(v: Check, r: RawRule): void {
  if (!RULE_NAME_RE.test(r.name))
    fail(
      v,
      "placement_invalid_rule_name",
      `invalid rule name ${r.name}, a name must be a valid identifier`,
      `${r.at}/name`,
    );
  if (r.parent !== null) checkRule(v, r.parent);
  checkFilter(v, r.filter, r.at);
}

/** A rule's chain, its outermost parent first. */
function chainOf(top: RawRule): RawRule[] {
  const chain: RawRule[] = [];
  for (let r: RawRule | null = top; r !== null; r = r.parent) chain.push(r);
  return chain.reverse();
}

interface StaticPath {
  path: string;
  /** The rule's chain (see chainOf), named in an error as `fixed->user`. */
  chain: RawRule[];
  dynamic: boolean;
}

function staticPath(v: Check, top: RawRule): StaticPath | null {
  let path = "";
  let dynamic = false;
  const chain = chainOf(top);
  for (const r of chain) {
    if (dynamic) continue;
    if (r.name !== "fixed") {
      if (path === "") path = "<dynamic>";
      dynamic = true;
      continue;
    }
    if (r.value.startsWith("root")) {
      if (path !== "") {
        fail(
          v,
          "placement_illegal_fixed_rule",
          `illegal fully qualified 'fixed' rule with value ${r.value}`,
          `${r.at}/value`,
        );
        return null;
      }
      path = r.value;
      continue;
    }
    path = (path === "" ? "root" : path) + "." + r.value;
  }
  return { path, chain, dynamic };
}

type PathCheck = { result: "ok" | "missing" | "not_leaf" } | { result: "last_leaf"; last: string };

const OK: PathCheck = { result: "ok" };
const MISSING: PathCheck = { result: "missing" };
const NOT_LEAF: PathCheck = { result: "not_leaf" };

/** Checks the path's parts from `from` on against the configured queues `conf` (the children of `parent`). */
function checkHierarchy(
  parts: readonly string[],
  from: number,
  create: boolean,
  dynamic: boolean,
  conf: RawQueue[],
  parent: RawQueue | null,
): PathCheck {
  if (conf.length === 0 && parent !== null) {
    if (!parent.parent) return { result: "last_leaf", last: parent.name };
    return create ? OK : MISSING;
  }
  const found = conf.find((q) => q.name === parts[from]);
  if (found === undefined) return create ? OK : MISSING;
  if (from === parts.length - 1) {
    if (dynamic) return found.parent ? OK : NOT_LEAF;
    return found.parent ? NOT_LEAF : OK;
  }
  return checkHierarchy(parts, from + 1, create, dynamic, found.queues ?? [], found);
}

/**
 * A rule's weight in the pace's units (about the characters of source it
 * stands for): each rule of its chain, and each entry of their filters.
 */
export function ruleUnits(top: RawRule): number {
  let units = 0;
  for (let r: RawRule | null = top; r !== null; r = r.parent)
    units += 32 + r.filter.users.length + r.filter.groups.length;
  return units;
}

const NO_TWINS: readonly number[] = [];

/** Checks the rules, then each one's static path; yields (at the pace's checkpoints) between rules. */
function* checkRules(v: Check, p: RawPartition, root: RawQueue): Steps<void> {
  const rules = p.placementrules;
  if (rules.length === 0) return;
  // a twin (quick-rule.ts RULE_TWINS) passes each check its earlier rule passed: that check is not run again
  const twins = RULE_TWINS.get(rules) ?? NO_TWINS;
  const passed: boolean[] = [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    const t = i < twins.length ? twins[i] : -1;
    if (t >= 0 && passed[t]) passed.push(true);
    else {
      const errors = v.found.length;
      checkRule(v, r);
      passed.push(v.found.length === errors);
    }
    if (v.pace.spend(ruleUnits(r))) yield;
  }
  const paths: (StaticPath | null)[] = [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    const t = i < twins.length ? twins[i] : -1;
    // the same names and values along the chain: the same path (its chain is named by those names only)
    paths.push(t >= 0 && paths[t] !== null ? paths[t] : staticPath(v, r));
    if (v.pace.spend(ruleUnits(r))) yield;
  }
  // rules often share a path: each is split once
  const split = new Map<string, string[]>();
  const roots = [root];
  const placed: boolean[] = [];
  for (let i = 0; i < paths.length; i++) {
    placed.push(false);
    if (v.pace.spend(32)) yield;
    const sp = paths[i];
    if (sp === null || !sp.path.startsWith("root")) continue;
    const t = i < twins.length ? twins[i] : -1;
    // the same path, create flag and queues: the same answer
    if (t >= 0 && placed[t]) {
      placed[i] = true;
      continue;
    }
    const rule = rules[i];
    let parts = split.get(sp.path);
    if (parts === undefined) split.set(sp.path, (parts = sp.path.toLowerCase().split(".")));
    const check = checkHierarchy(parts, 0, rule.create, sp.dynamic, roots, null);
    placed[i] = check.result === "ok";
    if (check.result === "ok") continue;
    const head = `placement rule no. #${i} (${sp.chain.map((r) => r.name).join("->")}) references`;
    if (check.result === "not_leaf")
      fail(v, "placement_queue_not_leaf", `${head} a queue (${sp.path}) which is not a leaf`, rule.at);
    else if (check.result === "missing")
      fail(
        v,
        "placement_nonexisting_queue",
        `${head} non-existing queues (${sp.path}) and create is 'false'`,
        rule.at,
      );
    else if (check.result === "last_leaf") {
      fail(
        v,
        "placement_last_queue_leaf",
        `${head} non-existing queues (${sp.path}) which cannot be created because the last queue (${check.last}) in the hierarchy is a leaf`,
        rule.at,
      );
    }
  }
}

function checkDefaultQueue(v: Check, p: RawPartition): void {
  const dq = p.defaultqueue;
  if (dq === "") return;
  if (!dq.toLowerCase().startsWith("root.") || !allPartsValid(dq)) {
    fail(
      v,
      "placement_invalid_default_queue",
      `invalid defaultqueue ${dq}: it must be a fully qualified queue path starting with root. made of valid queue names`,
      `${p.at}/defaultqueue`,
    );
  }
}

/** A partition that passed validation, with its root queue resolved. */
export interface ValidPartition {
  partition: RawPartition;
  root: RawQueue;
}

/** What validation found: every error, in YuniKorn's order, and the partitions that have a root queue. */
export interface Validation {
  errors: PolicyError[];
  partitions: ValidPartition[];
}

/** Validates the whole configuration, reporting every error; any error rejects it. */
export function validateConfig(config: RawConfig): Validation {
  return finish(validateConfigSteps(config, new Map(), new Pace()));
}

/**
 * {@link validateConfig} as resumable work (common/slices.ts), yielding
 * between queues and between rules; `memo` keeps the expressions it inspects
 * for the rule build of the same compile.
 */
export function* validateConfigSteps(config: RawConfig, memo: RegexMemo, pace: Pace): Steps<Validation> {
  const v: Check = { found: [], memo, pace };
  const out: ValidPartition[] = [];
  if (config.partitions === null || config.partitions.length === 0) {
    fail(v, "placement_config_not_set", "scheduler config is not set", "");
    return { errors: v.found, partitions: out };
  }
  const names = new Set<string>();
  for (const p of config.partitions) {
    const name = p.name === "" || p.name.toLowerCase() === "default" ? "default" : p.name;
    if (names.has(name.toLowerCase()))
      fail(
        v,
        "placement_duplicate_partition",
        `duplicate partition name found with name ${name}`,
        `${p.at}/name`,
      );
    names.add(name.toLowerCase());
    if (p.queues === null) {
      fail(v, "placement_queue_config_not_set", "queue config is not set", p.at);
      continue;
    }
    let root = withRoot(p);
    if (root.resources.guaranteed !== null || root.resources.max !== null) {
      fail(
        v,
        "placement_root_resources",
        "root queue must not have resource limits set",
        `${root.at}/resources`,
      );
    }
    root = limitsStructure(v, p, root);
    yield* checkQueues(v, root, 1);
    report(v, checkQueueResources(root));
    yield* checkRules(v, p, root);
    report(v, checkNodeSort(p.nodesort, `${p.at}/nodesortpolicy`));
    report(v, checkMaxApplications(root));
    report(v, checkLimitResources(root));
    report(v, checkLimitApplications(root));
    checkDefaultQueue(v, p);
    out.push({ partition: p, root });
  }
  return { errors: v.found, partitions: out };
}
