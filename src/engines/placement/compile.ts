import { closestName } from "../common/did-you-mean.js";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import { parseAcl } from "./acl.js";
import { buildFilter, SEEDED_MEMOS, type RegexMemo } from "./filter.js";
import { allPartsValid, INVALID_QUEUE_NAME, normalisePartitionName } from "./names.js";
import { parseConfigSteps, type Locate } from "./parse.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import type {
  AclData,
  PartitionData,
  PlacementData,
  RawConfig,
  QueueData,
  RawQueue,
  RawRule,
  RuleData,
  RuleKind,
} from "./types.js";
import { RULE_TWINS } from "./quick-rule.js";
import { ruleUnits, validateConfigSteps, type ValidPartition } from "./validate.js";
import { MAX_REPORTED_ERRORS } from "./yaml-tree.js";

/**
 * Turns a validated configuration into the plain data the bundle stores:
 * rules built as the placement manager builds them (with its load errors),
 * queues flattened to lower-cased paths with their ACLs parsed.
 */

class LoadError {
  constructor(readonly error: PolicyError) {}
}

function fail(code: string, message: string, at: string, suggestion?: string): never {
  throw new LoadError(policyError(code, message, at, suggestion));
}

/** Renders a rule like Go's `%v` of the config struct, without the pointer address. */
function renderRule(r: RawRule): string {
  const f = `{${r.filter.type} [${r.filter.users.join(" ")}] [${r.filter.groups.join(" ")}]}`;
  const parent = r.parent === null ? "<nil>" : `&${renderRule(r.parent)}`;
  return `{${r.name} ${r.create} ${f} ${parent} ${r.value}}`;
}

/** The rule an absent or empty `placementrules` stands for. */
const IMPLICIT_RULE: RuleData = {
  kind: "provided",
  create: false,
  filter: { allow: true, empty: true, users: [], groups: [], userExp: null, groupExp: null },
  parent: null,
  value: "",
  qualified: false,
};

const KINDS: readonly string[] = ["provided", "user", "fixed", "tag"];

function buildRule(r: RawRule, memo: RegexMemo): RuleData {
  const lower = r.name.toLowerCase();
  if (lower === "recovery")
    fail(
      "placement_recovery_rule",
      "recovery rule cannot be part of the config, failing placement rule config",
      `${r.at}/name`,
    );
  if (!KINDS.includes(lower)) {
    // YuniKorn's text, then Arbiter's: the rule names there are and the closest one
    const near = closestName(r.name, KINDS);
    const hint = near === undefined ? "" : `; did you mean \`${near}\`?`;
    fail(
      "placement_unknown_rule",
      `unknown rule name specified ${r.name}, failing placement rule config (the rule names are ${KINDS.slice(0, -1).join(", ")} and ${KINDS[KINDS.length - 1]}${hint})`,
      `${r.at}/name`,
      near,
    );
  }
  const kind = lower as RuleKind;
  let value = "";
  let qualified = false;
  if (kind === "fixed") {
    value = r.value.toLowerCase();
    if (value === "")
      fail("placement_fixed_no_queue", "a fixed queue rule must have a queue name set", `${r.at}/value`);
    if (!allPartsValid(value)) fail("placement_invalid_queue_name", INVALID_QUEUE_NAME, `${r.at}/value`);
    qualified = value.startsWith("root");
    if (qualified && r.parent !== null) {
      fail(
        "placement_fixed_qualified_parent",
        `cannot have a fixed queue rule with qualified queue getName and a parent rule: ${renderRule(r)}`,
        `${r.at}/parent`,
      );
    }
    if (qualified && value !== "root" && !value.startsWith("root.")) {
      fail(
        "placement_invalid_fixed_value",
        `a qualified fixed queue must be root or start with root.: ${value}`,
        `${r.at}/value`,
      );
    }
  } else if (kind === "tag") {
    value = r.value.toLowerCase();
    if (value === "")
      fail("placement_tag_no_name", "a tag queue rule must have a tag name set", `${r.at}/value`);
  }
  return {
    kind,
    create: r.create,
    filter: buildFilter(r.filter, memo),
    parent: r.parent === null ? null : buildRule(r.parent, memo),
    value,
    qualified,
  };
}

const NO_ACL: AclData = { all: false, users: [], groups: [] };

/**
 * Flattens the queue tree to paths with parsed ACLs; an ACL that does not
 * parse is an error (unless validation already reported it). Yields between
 * queues at the pace's checkpoints.
 */
function* flattenQueues(
  q: RawQueue,
  parentPath: string | null,
  out: QueueData[],
  errors: PolicyError[],
  reported: (at: string) => boolean,
  pace: Pace,
): Steps<void> {
  if (pace.spend(QUEUE_UNITS)) yield;
  const path = parentPath === null ? "root" : `${parentPath}.${q.name.toLowerCase()}`;
  const acl = (text: string, key: string): AclData => {
    const parsed = parseAcl(text);
    if (parsed.ok) return parsed.value;
    if (!reported(`${q.at}/${key}`))
      errors.push(policyError("placement_invalid_acl", parsed.error, `${q.at}/${key}`));
    return NO_ACL;
  };
  const submit = acl(q.submitacl, "submitacl");
  const admin = acl(q.adminacl, "adminacl");
  const children = q.queues ?? [];
  out.push({ path, leaf: parentPath !== null && children.length === 0 && !q.parent, submit, admin });
  for (const c of children) yield* flattenQueues(c, path, out, errors, reported, pace);
}

/** Builds one rule into `out`, or records why it cannot be built; a rule validation already found wrong is not built. */
function attemptRule(
  r: RawRule,
  out: RuleData[],
  errors: PolicyError[],
  skip: boolean,
  memo: RegexMemo,
): void {
  if (skip) return;
  try {
    out.push(buildRule(r, memo));
  } catch (e) {
    if (!(e instanceof LoadError)) throw e;
    errors.push(e.error);
  }
}

/** A partition's rules as built (see attemptRule); yields between rules at the pace's checkpoints. */
function* buildRules(
  rules: readonly RawRule[],
  errors: PolicyError[],
  reported: (at: string) => boolean,
  memo: RegexMemo,
  pace: Pace,
): Steps<RuleData[]> {
  const out: RuleData[] = [];
  // a twin (quick-rule.ts RULE_TWINS) of a rule built is built as it was, but for its filters
  const twins = RULE_TWINS.get(rules);
  const built: (RuleData | null)[] = [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    const skip = reported(r.at);
    const t = twins !== undefined && i < twins.length ? twins[i] : -1;
    const same = t >= 0 && !skip ? built[t] : null;
    if (same !== null) {
      const data = twinRule(same, r, memo);
      out.push(data);
      built.push(data);
    } else {
      const n = out.length;
      attemptRule(r, out, errors, skip, memo);
      built.push(out.length > n ? out[n] : null);
    }
    if (pace.spend(ruleUnits(r))) yield;
  }
  return out;
}

/**
 * {@link buildRule} of a twin of the rule built as `same`: the same names and
 * values along the chain give the same kinds, values and flags (and no load
 * error, since `same` had none); each filter is built from the twin's own
 * entries (one without entries, as the first rule's was, is its type alone).
 */
function twinRule(same: RuleData, r: RawRule, memo: RegexMemo): RuleData {
  return {
    kind: same.kind,
    create: same.create,
    // a filter without entries is its type alone
    filter:
      r.filter.users.length === 0 && r.filter.groups.length === 0
        ? { ...same.filter, users: [], groups: [] }
        : buildFilter(r.filter, memo),
    parent: same.parent === null ? null : twinRule(same.parent, r.parent!, memo),
    value: same.value,
    qualified: same.qualified,
  };
}

/**
 * Parses, validates and builds a placement configuration; any error keeps it
 * from activating. Every error is reported, each at the `line:column` of the
 * key or item it concerns, in YuniKorn's order (validation, then the rules'
 * build), so the first one is the error YuniKorn itself would give.
 */
export function compilePlacement(source: string): Result<PlacementData, PolicyError[]> {
  return finish(compilePlacementSteps(source));
}

/**
 * {@link compilePlacement} as resumable work (common/slices.ts): reading,
 * decoding, validation and the build all yield as they go. The expressions
 * inspected are memoised for this compile only (see RegexMemo).
 */
export function* compilePlacementSteps(source: string): Steps<Result<PlacementData, PolicyError[]>> {
  const r = yield* compileWithPlacesSteps(source);
  return r.ok ? ok(r.value.data) : r;
}

/** A compile's data with what it read on the way: where each key was written, and the partitions validation passed. */
export interface PlacedCompile {
  data: PlacementData;
  locate: Locate;
  valid: ValidPartition[];
}

/**
 * {@link compilePlacementSteps} that also gives what lint places its findings
 * by (the source's places and the validated partitions), so that lint reads
 * and validates the source once. `lazy` false reads every mapping into nodes
 * (parse.ts), so that no rule is decoded by a shape and none is a twin (for
 * tests that hold the quick paths to the general one).
 */
export function* compileWithPlacesSteps(
  source: string,
  lazy = true,
): Steps<Result<PlacedCompile, PolicyError[]>> {
  const parsed = yield* parseConfigSteps(source, lazy);
  if (!parsed.ok) return parsed;
  yield;
  const { config, locate } = parsed.value;
  const valid: ValidPartition[] = [];
  const r = yield* build(config, locate, SEEDED_MEMOS.get(config) ?? new Map(), new Pace(), valid);
  return r.ok ? ok({ data: r.value, locate, valid }) : r;
}

/** A queue's weight in the pace's units (about the characters of source it stands for). */
const QUEUE_UNITS = 32;

function* build(
  config: RawConfig,
  locate: Locate,
  memo: RegexMemo,
  pace: Pace,
  valid: ValidPartition[],
): Steps<Result<PlacementData, PolicyError[]>> {
  const checked = yield* validateConfigSteps(config, memo, pace);
  valid.push(...checked.partitions);
  const errors = [...checked.errors];
  // every pointer validation reported at, and each of its ancestors: a set, so the check stays linear in the errors
  const marked = new Set<string>();
  for (const e of checked.errors)
    for (let p = e.at; p !== "" && !marked.has(p); p = p.slice(0, Math.max(0, p.lastIndexOf("/"))))
      marked.add(p);
  const reported = marked.size === 0 ? () => false : (at: string) => marked.has(at);
  const partitions: PartitionData[] = [];
  for (const { partition, root } of checked.partitions) {
    const rules =
      partition.placementrules.length > 0
        ? yield* buildRules(partition.placementrules, errors, reported, memo, pace)
        : [IMPLICIT_RULE];
    const queues: QueueData[] = [];
    yield* flattenQueues(root, null, queues, errors, reported, pace);
    partitions.push({
      name: normalisePartitionName(partition.name),
      queues,
      rules,
      defaultQueue: partition.defaultqueue === "" ? null : partition.defaultqueue.toLowerCase(),
    });
  }
  if (errors.length > 0) {
    const shown = errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({ ...e, at: locate(e.at) }));
    const more = errors.length - shown.length;
    if (more > 0)
      shown.push(
        policyError(
          "placement_too_many_errors",
          `${more} more errors not reported (at most ${MAX_REPORTED_ERRORS} are)`,
          "",
        ),
      );
    return err(shown);
  }
  return ok({ partitions });
}
