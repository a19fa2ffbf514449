/**
 * Match lint: NEGOTIATOR_PE_* expressions whose value no ad can change,
 * macros no policy expression uses, and (given a sample of ads) attributes
 * the expressions read that no ad of the kind they read defines.
 */
import { Budget } from "../common/budget.js";
import { ENTRY_UNITS, finding, LintWork, type LintFinding } from "../common/lint.js";
import type { Steps } from "../common/slices.js";
import { readAdsSample, type AdKind, type SampleAd } from "./ads-sample.js";
import { evaluateRequest } from "./evaluate.js";
import { CONTEXTS } from "./functions/contexts.js";
import { ENVIRONMENT } from "./functions/environment.js";
import { EVAL } from "./functions/eval.js";
import { HOST_LOOKUPS } from "./functions/host-lookups.js";
import { REFERENCES } from "./functions/references.js";
import type { Node } from "./node.js";
import { parseExpr } from "./parser.js";
import { readConfigSteps, type ConfigEntry } from "./pool-config.js";
import { PE_NAMES, type MatchPolicyData, type PeName } from "./policy.js";

/** Functions that read ads by name, the environment or other hosts: an expression calling one is never taken as constant. */
const READERS = new Set(
  [...EVAL, ...REFERENCES, ...CONTEXTS, ...ENVIRONMENT, ...HOST_LOOKUPS].map(([name]) => name),
);

/** Work one constant expression may spend when it is evaluated once to tell its value. */
const CONSTANT_EVAL_BUDGET = 100_000;

/** How deep the tree walks go before they stop (parsed trees are bounded far below this). */
const MAX_DEPTH = 1000;

/** An attribute an expression reads: its name and whether it was written `MY.`, `TARGET.` or bare. */
interface AttrRef {
  readonly name: string;
  readonly scope: "my" | "target" | "bare";
}

/** The attributes a tree reads and whether it calls a function that reads ads or the world by name. */
function readsOf(node: Node): { refs: AttrRef[]; reader: boolean } {
  const refs: AttrRef[] = [];
  let reader = false;
  const walk = (n: Node, depth: number): void => {
    if (depth > MAX_DEPTH) {
      reader = true;
      return;
    }
    switch (n.k) {
      case "lit":
        return;
      case "attr": {
        const s = n.scope;
        if (s === null) refs.push({ name: n.name, scope: "bare" });
        else if (s.k === "attr" && s.scope === null && (s.lc === "my" || s.lc === "target"))
          refs.push({ name: n.name, scope: s.lc });
        else {
          refs.push({ name: n.name, scope: "bare" });
          walk(s, depth + 1);
        }
        return;
      }
      case "op":
        walk(n.a, depth + 1);
        if (n.b !== null) walk(n.b, depth + 1);
        return;
      case "cond":
        walk(n.c, depth + 1);
        walk(n.a, depth + 1);
        walk(n.b, depth + 1);
        return;
      case "paren":
        walk(n.a, depth + 1);
        return;
      case "call":
        if (READERS.has(n.lc)) reader = true;
        for (const a of n.args) walk(a, depth + 1);
        return;
      case "ad":
        for (const [, v] of n.attrs) walk(v, depth + 1);
        return;
      case "list":
        for (const x of n.items) walk(x, depth + 1);
        return;
    }
  };
  walk(node, 0);
  return { refs, reader };
}

/** The ad kinds a reference may read in each expression (`MY`, `TARGET`, bare), per the negotiator's use of it. */
const KINDS: Readonly<Record<PeName, Readonly<Record<AttrRef["scope"], readonly AdKind[]>>>> = {
  NEGOTIATOR_PE_SCHEDD_ONLY_EXPR: { my: ["Scheduler"], bare: ["Scheduler"], target: [] },
  NEGOTIATOR_PE_STARTD_ONLY_EXPR: { my: ["Machine"], bare: ["Machine"], target: [] },
  NEGOTIATOR_PE_JOB_ONLY_EXPR: { my: ["Job"], bare: ["Job"], target: [] },
  NEGOTIATOR_PE_RESOURCE_EXPR: { my: ["Machine"], bare: ["Machine", "Job"], target: ["Job"] },
  NEGOTIATOR_PE_JOB_EXPR: { my: ["Job"], bare: ["Job", "Machine"], target: ["Machine"] },
};

/** What a constant value of an expression does, worded for that expression, and how much it matters. */
function constantEffect(
  name: PeName,
  type: string,
  value: string,
): { severity: "warning" | "info"; text: string } {
  const truth = type === "boolean" && value === "true";
  const shown = type === "boolean" ? value.toUpperCase() : `${value} (${type})`;
  if (name.endsWith("_ONLY_EXPR")) {
    const ads =
      name === "NEGOTIATOR_PE_SCHEDD_ONLY_EXPR"
        ? "schedd ad (and all its jobs)"
        : name === "NEGOTIATOR_PE_STARTD_ONLY_EXPR"
          ? "startd ad"
          : "job ad";
    return truth
      ? {
          severity: "warning",
          text: `is always ${shown}: it discards every ${ads} before negotiation, so nothing is ever matched`,
        }
      : { severity: "info", text: `is always ${shown}: it never discards an ad, so it has no effect` };
  }
  const side = name === "NEGOTIATOR_PE_RESOURCE_EXPR" ? "machine's" : "job's";
  return truth
    ? { severity: "info", text: `is always TRUE: ANDed into every ${side} Requirements it changes nothing` }
    : {
        severity: "warning",
        text: `is always ${shown}: ANDed into every ${side} Requirements it makes every match fail`,
      };
}

/** The macros a value names (`$(NAME)` and `$(NAME:default)`, defaults included), upper-cased. */
function macroNames(value: string): string[] {
  return [...value.matchAll(/\$\(\s*([A-Za-z_][A-Za-z0-9_.]*)/g)].map((m) => m[1].toUpperCase());
}

function place(entry: ConfigEntry): string {
  return `${entry.line}:${entry.column}`;
}

/**
 * Lints a pool policy that compiled to `data`; `ads` is an optional
 * `condor_status -l` sample. Resumable work: reading yields as the compile's
 * does, the checks when their counted work fills a slice.
 */
export function* lintMatch(
  source: string,
  data: MatchPolicyData,
  ads?: string,
  work = new LintWork(),
): Steps<LintFinding[]> {
  const out: LintFinding[] = [];
  const { table } = yield* readConfigSteps(source);
  yield;
  const sample: SampleAd[] | null = ads === undefined ? null : readAdsSample(ads);
  yield;

  // macros: used when a policy expression names them, directly or through another macro
  const used = new Set<string>();
  const pending: string[] = PE_NAMES.filter((n) => table.has(n));
  while (pending.length > 0) {
    if (work.due(ENTRY_UNITS)) yield;
    const entry = table.get(pending.pop() as string);
    if (entry === undefined || !work.charge(entry.value.length)) continue;
    for (const m of macroNames(entry.value)) {
      if (used.has(m)) continue;
      used.add(m);
      pending.push(m);
    }
  }
  for (const [key, entry] of table) {
    if (work.due(ENTRY_UNITS)) yield;
    if ((PE_NAMES as readonly string[]).includes(key) || used.has(key)) continue;
    out.push(
      finding(
        "match_unused_macro",
        "info",
        `macro ${entry.name} is defined but no NEGOTIATOR_PE_* expression uses it`,
        place(entry),
      ),
    );
  }

  for (const name of PE_NAMES) {
    const text = data.exprs[name];
    const entry = table.get(name);
    yield;
    if (text === undefined || entry === undefined || !work.charge(text.length)) continue;
    const parsed = parseExpr(text);
    yield;
    if (!parsed.ok) continue;
    const { refs, reader } = readsOf(parsed.node);
    if (refs.length === 0 && !reader) {
      const v = new Budget(CONSTANT_EVAL_BUDGET).run(() =>
        evaluateRequest({ expr: text }, { now: 0, random: () => 0 }),
      );
      if (v.cacheable) {
        const effect = constantEffect(name, v.type, v.value);
        out.push(
          finding(
            "match_constant_expr",
            effect.severity,
            `${name} reads no attribute: it ${effect.text}`,
            place(entry),
          ),
        );
      }
    }
    if (sample === null) continue;
    const reported = new Set<string>();
    for (const ref of refs) {
      if (work.due(ENTRY_UNITS)) yield;
      const kinds = KINDS[name][ref.scope];
      const lc = ref.name.toLowerCase();
      if (reported.has(lc) || !work.charge(sample.length)) continue;
      const ofKinds = sample.filter((ad) => kinds.includes(ad.kind));
      if (ofKinds.length === 0) continue;
      if (ofKinds.some((ad) => ad.names.has(lc))) continue;
      reported.add(lc);
      const written = ref.scope === "bare" ? ref.name : `${ref.scope === "my" ? "MY" : "TARGET"}.${ref.name}`;
      out.push(
        finding(
          "match_attribute_not_in_ads",
          "warning",
          `${name} reads ${written}, which none of the ${ofKinds.length} ${kinds.join(" or ")} ads in the sample defines`,
          place(entry),
        ),
      );
    }
  }
  return out;
}
