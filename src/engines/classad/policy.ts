/**
 * The `match` engine definition: compiles policies/pool.conf to plain JSON
 * (the five macro-expanded NEGOTIATOR_PE_* expression texts) and loads that
 * into compiled closures once per isolate.
 */
import type { EngineDefinition } from "../common/engine.js";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import { compile } from "./compile.js";
import type { Compiled } from "./node.js";
import { parseExpr } from "./parser.js";
import { expandSteps, MacroError, readConfigSteps, valuePosition } from "./pool-config.js";
import { finish, Pace, type Steps } from "../common/slices.js";

/** The five policy expressions, in the order the negotiator applies them. */
export const PE_NAMES = [
  "NEGOTIATOR_PE_SCHEDD_ONLY_EXPR",
  "NEGOTIATOR_PE_STARTD_ONLY_EXPR",
  "NEGOTIATOR_PE_JOB_ONLY_EXPR",
  "NEGOTIATOR_PE_RESOURCE_EXPR",
  "NEGOTIATOR_PE_JOB_EXPR",
] as const;

export type PeName = (typeof PE_NAMES)[number];

/** Compiled policy data: each set expression's expanded text (unset ones absent). */
export interface MatchPolicyData {
  readonly exprs: Partial<Record<PeName, string>>;
}

/** The loaded policy: compiled expressions, null when unset. */
export interface MatchPolicy {
  readonly scheddOnly: Compiled | null;
  readonly startdOnly: Compiled | null;
  readonly jobOnly: Compiled | null;
  readonly resource: Compiled | null;
  readonly job: Compiled | null;
  readonly texts: Partial<Record<PeName, string>>;
}

/** Parses pool.conf and checks that every set PE expression parses. */
export function compileMatchPolicy(source: string): Result<MatchPolicyData, PolicyError[]> {
  return finish(compileMatchPolicySteps(source));
}

/** {@link compileMatchPolicy} as resumable work (common/slices.ts): reading and macro expansion yield as they go, each expression's parse after a checkpoint. */
export function* compileMatchPolicySteps(source: string): Steps<Result<MatchPolicyData, PolicyError[]>> {
  const pace = new Pace();
  const { table, errors } = yield* readConfigSteps(source, pace);
  const exprs: Partial<Record<PeName, string>> = {};
  for (const name of PE_NAMES) {
    const entry = table.get(name);
    if (entry === undefined) continue;
    const text = yield* expandSteps(entry.value, table, [name], new Map(), 0, pace);
    yield;
    if (text instanceof MacroError) {
      errors.push(policyError(text.code, text.message, `${entry.line}:${entry.column}`));
      continue;
    }
    const trimmed = text.trim();
    if (trimmed === "") continue;
    const p = parseExpr(trimmed);
    if (!p.ok) {
      // The place in the source is known only when no macro changed the text; otherwise the value's start.
      const expanded = trimmed !== entry.value;
      const at = expanded ? `${entry.line}:${entry.column}` : valuePosition(entry, p.offset);
      errors.push(
        policyError(
          "match_expr_syntax",
          `policy: ${name}: syntax error: ${p.message}${expanded ? " (after macro expansion)" : ""}`,
          at,
        ),
      );
      continue;
    }
    exprs[name] = trimmed;
  }
  if (errors.length > 0) return err(errors);
  return ok({ exprs });
}

function load(text: string | undefined): Compiled | null {
  if (text === undefined) return null;
  const p = parseExpr(text);
  if (!p.ok) throw new Error(`compiled policy holds an unparsable expression: ${text}`);
  return compile(p.node);
}

/** Rebuilds the closures from compiled policy data. */
export function loadMatchPolicy(data: MatchPolicyData): MatchPolicy {
  const e = data.exprs;
  return {
    scheddOnly: load(e.NEGOTIATOR_PE_SCHEDD_ONLY_EXPR),
    startdOnly: load(e.NEGOTIATOR_PE_STARTD_ONLY_EXPR),
    jobOnly: load(e.NEGOTIATOR_PE_JOB_ONLY_EXPR),
    resource: load(e.NEGOTIATOR_PE_RESOURCE_EXPR),
    job: load(e.NEGOTIATOR_PE_JOB_EXPR),
    texts: { ...e },
  };
}

/** The engine the bundle registers under `match`. */
export const matchEngine: EngineDefinition<MatchPolicyData, MatchPolicy> = {
  name: "match",
  file: "pool.conf",
  format: "htcondor-config",
  compile: compileMatchPolicy,
  compileSteps: compileMatchPolicySteps,
  load: loadMatchPolicy,
};
