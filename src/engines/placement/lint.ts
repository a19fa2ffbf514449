/**
 * Placement lint: rules that can never place an application, filters that
 * admit nobody, leaf queues no rule can reach and queues nobody may submit
 * to. Every finding is proven from the configuration; the cases proven are
 * the ones docs/policies/analysis.md lists, nothing is guessed.
 */
import { ENTRY_UNITS, finding, LintWork, type LintFinding } from "../common/lint.js";
import type { Steps } from "../common/slices.js";
import type { PlacedCompile } from "./compile.js";
import { compileGoRegex } from "./filter.js";
import { pathFits, rulePatterns } from "./reach.js";
import type {
  AclData,
  FilterData,
  PartitionData,
  QueueData,
  RawQueue,
  RawRule,
  RegexData,
  RuleData,
} from "./types.js";

/** Characters a filter's user names may hold (the filter's name pattern), and its group names. */
const USER_CHARS = /^[a-zA-Z0-9:#/_.@$-]*$/;
const GROUP_CHARS = /^[a-zA-Z0-9:_.-]*$/;

/** A rule of the chain with where it was written. */
interface PlacedRule {
  readonly data: RuleData;
  readonly raw: RawRule | null;
  readonly number: number;
}

function describeRule(r: PlacedRule): string {
  const v = r.data.kind === "fixed" || r.data.kind === "tag" ? ` ${r.data.value}` : "";
  return `rule ${r.number} (\`${r.data.kind}${v}\`)`;
}

/** Whether a filter admits every user: an empty allow filter, or a deny filter none of whose entries survived. */
function admitsAll(f: FilterData): boolean {
  if (f.empty) return f.allow;
  return (
    !f.allow && f.users.length === 0 && f.groups.length === 0 && f.userExp === null && f.groupExp === null
  );
}

/**
 * The literals every match of a stored expression needs: as the compile stored
 * them (inspected, never compiled: the same literals compiling gives, see
 * inspectPattern), or read off the compiled expression when the data predates them.
 */
function needed(exp: RegexData): string[] | null {
  if (exp.prefix !== undefined && exp.required !== undefined) return [exp.prefix, exp.required];
  const r = compileGoRegex(exp.source);
  return r.ok ? [r.value.prefix ?? "", r.value.required ?? ""] : null;
}

/** Why a regex side can match no name: it needs a character names cannot hold (`required` text), or null. */
function impossibleExp(exp: RegexData | null, chars: RegExp): string | null {
  if (exp === null) return null;
  for (const literal of needed(exp) ?? []) {
    if (literal !== "" && !chars.test(literal)) return literal;
  }
  return null;
}

/** Why a filter admits nobody, or null when someone can pass it. */
function admitsNobody(f: FilterData): string | null {
  if (f.empty) return f.allow ? null : "a `deny` filter without users or groups denies every user";
  if (!f.allow) return null;
  const userNever = f.userExp === null ? f.users.length === 0 : impossibleExp(f.userExp, USER_CHARS) !== null;
  const groupNever =
    f.groupExp === null ? f.groups.length === 0 : impossibleExp(f.groupExp, GROUP_CHARS) !== null;
  if (!userNever || !groupNever) return null;
  const parts: string[] = [];
  if (f.userExp !== null)
    parts.push(
      `the user expression \`${f.userExp.source}\` needs \`${impossibleExp(f.userExp, USER_CHARS)}\`, which no user name can hold`,
    );
  if (f.groupExp !== null)
    parts.push(
      `the group expression \`${f.groupExp.source}\` needs \`${impossibleExp(f.groupExp, GROUP_CHARS)}\`, which no group name can hold`,
    );
  if (parts.length === 0)
    return "every entry of this `allow` filter fails the filter name patterns and is dropped, so it admits no user";
  return `${parts.join("; ")}, so this \`allow\` filter admits no user`;
}

/** Whether submit access at a configured queue is open to everyone (some ACL from it up to root is `*`). */
function openToAll(path: string, byPath: ReadonlyMap<string, QueueData>): boolean {
  for (let p = path; ; p = p.slice(0, p.lastIndexOf("."))) {
    const q = byPath.get(p);
    if (q !== undefined && (q.submit.all || q.admin.all)) return true;
    if (!p.includes(".")) return false;
  }
}

function aclEmpty(a: AclData): boolean {
  return !a.all && a.users.length === 0 && a.groups.length === 0;
}

/** The queue path a rule always places into for every application, and the exception, or null when not proven. */
function alwaysPlaces(
  rule: RuleData,
  byPath: ReadonlyMap<string, QueueData>,
): { queue: string; unless: string } | null {
  if (rule.kind !== "fixed" || !admitsAll(rule.filter) || (rule.parent !== null && !rule.qualified))
    return null;
  const queue = rule.qualified ? rule.value : `root.${rule.value}`;
  const q = byPath.get(queue);
  if (q !== undefined) {
    if (!q.leaf || !openToAll(queue, byPath)) return null;
    return { queue, unless: `unless the request reports ${queue} as draining` };
  }
  if (!rule.create) return null;
  // not configured: created on demand, checked against its deepest configured ancestor
  let ancestor = queue;
  while (!byPath.has(ancestor)) ancestor = ancestor.slice(0, ancestor.lastIndexOf("."));
  const a = byPath.get(ancestor) as QueueData;
  if (a.leaf || !openToAll(ancestor, byPath)) return null;
  return {
    queue,
    unless: `unless the request reports ${queue} (or a queue between it and ${ancestor}) among its existing queues`,
  };
}

/** Lists the configured queues with the pointer each was written at, in the compiled order (depth first). */
function queuePointers(root: RawQueue): string[] {
  const out: string[] = [];
  const walk = (q: RawQueue) => {
    out.push(q.at);
    for (const c of q.queues ?? []) walk(c);
  };
  walk(root);
  return out;
}

function* lintPartition(
  part: PartitionData,
  rawRules: readonly RawRule[],
  root: RawQueue | undefined,
  locate: (pointer: string) => string,
  partitionAt: string,
  work: LintWork,
  out: LintFinding[],
): Steps<void> {
  const byPath = new Map(part.queues.map((q) => [q.path, q]));
  const rules: PlacedRule[] = part.rules.map((data, i) => ({
    data,
    raw: rawRules[i] ?? null,
    number: i + 1,
  }));
  const ruleAt = (r: PlacedRule) => (r.raw === null ? locate(partitionAt) : locate(r.raw.at));

  // rules never reached, or the same as an earlier one
  let stopper: { rule: PlacedRule; queue: string; unless: string } | null = null;
  const seen = new Map<string, PlacedRule>();
  for (const r of rules) {
    // a rule's checks build its key and compile its filter's expressions: a few entries' worth
    if (work.due(4 * ENTRY_UNITS)) yield;
    if (stopper !== null) {
      out.push(
        finding(
          "placement_unreachable_rule",
          "warning",
          `${describeRule(r)} is never reached: ${describeRule(stopper.rule)} places every application in ${stopper.queue} first, ${stopper.unless}`,
          ruleAt(r),
        ),
      );
      continue;
    }
    const key = JSON.stringify(r.data);
    work.charge(key.length);
    const same = seen.get(key);
    if (same !== undefined) {
      out.push(
        finding(
          "placement_duplicate_rule",
          "warning",
          `${describeRule(r)} can never place an application: it is the same rule as ${describeRule(same)}, which already ran for every application that reaches it`,
          ruleAt(r),
        ),
      );
    } else {
      seen.set(key, r);
    }
    const always = alwaysPlaces(r.data, byPath);
    if (always !== null) stopper = { rule: r, ...always };
  }

  // filters that admit nobody, the rule's own or a parent's
  for (const r of rules) {
    // a rule's checks build its key and compile its filter's expressions: a few entries' worth
    if (work.due(4 * ENTRY_UNITS)) yield;
    let level: RuleData | null = r.data;
    let pointer = r.raw === null ? partitionAt : `${r.raw.at}/filter`;
    while (level !== null) {
      const why = admitsNobody(level.filter);
      if (why !== null) {
        const whose = level === r.data ? "" : `the parent rule (\`${level.kind}\`) of `;
        out.push(
          finding(
            "placement_filter_matches_nothing",
            "warning",
            `the filter of ${whose}${describeRule(r)} matches nothing: ${why}; the rule never places an application`,
            locate(pointer),
          ),
        );
        break;
      }
      level = level.parent;
      pointer = pointer.replace(/\/filter$/, "/parent/filter");
    }
  }

  // leaf queues nothing can place into, and queues nobody may submit to
  const pointers = root === undefined ? [] : queuePointers(root);
  // each distinct pattern once (thousands of `user` rules under one parent draw one): a queue's check walks them all
  const patterns: ReturnType<typeof rulePatterns> = [];
  const distinct = new Set<string>();
  for (const r of rules) {
    for (const p of rulePatterns(r.data)) {
      // levels are queue names or `*`/`**`, none holding a dot
      const key = p.join(".");
      if (distinct.has(key)) continue;
      distinct.add(key);
      patterns.push(p);
    }
    if (work.due(ENTRY_UNITS)) yield;
  }
  const anyName = patterns.some((p) => p.includes("**"));
  for (let i = 0; i < part.queues.length; i++) {
    const q = part.queues[i];
    if (work.due(ENTRY_UNITS)) yield;
    const at = locate(pointers[i] ?? partitionAt);
    if (!q.leaf) continue;
    const path = q.path.split(".");
    work.charge(patterns.length);
    // once the bound is spent the queue is taken as reached: nothing unproven is reported
    const reached =
      anyName || part.defaultQueue === q.path || work.spent || patterns.some((p) => pathFits(path, p));
    if (!reached)
      out.push(
        finding(
          "placement_unreachable_queue",
          "warning",
          `no placement rule can place an application in the leaf queue ${q.path}: no \`fixed\` or \`user\` rule produces it and no \`provided\` or \`tag\` rule can name it`,
          at,
        ),
      );
    let open = false;
    for (let p = q.path; ; p = p.slice(0, p.lastIndexOf("."))) {
      const node = byPath.get(p);
      if (node !== undefined && (!aclEmpty(node.submit) || !aclEmpty(node.admin))) open = true;
      if (open || !p.includes(".")) break;
    }
    if (!open)
      out.push(
        finding(
          "placement_acl_denies_everyone",
          "warning",
          `nobody may submit to ${q.path}: neither it nor any queue above it has a submitacl or adminacl admitting a user or group, so every application placed there is rejected`,
          at,
        ),
      );
  }
}

/**
 * Lints a placement configuration as its compile left it (compileWithPlacesSteps:
 * the data, and the source's places and validated partitions the findings are
 * placed by, so nothing is read twice), as resumable work yielding when the
 * checks' counted work fills a slice.
 */
export function* lintPlacement(compiled: PlacedCompile, work = new LintWork()): Steps<LintFinding[]> {
  const { data, locate, valid } = compiled;
  const out: LintFinding[] = [];
  for (let i = 0; i < data.partitions.length; i++) {
    const raw = valid[i]?.partition;
    yield* lintPartition(
      data.partitions[i],
      raw?.placementrules ?? [],
      valid[i]?.root,
      locate,
      raw?.at ?? "",
      work,
      out,
    );
  }
  return out;
}
