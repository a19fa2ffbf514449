/**
 * The context the semantic diff decides limits requests in: no network. There
 * is no DNS resolver (ip-reverse-dns answers not identified, ip-cymru-bogon and
 * ip-cymru-asn their `fail-result`), no downloaded list (ip-cidr-list-url
 * answers its `fail-state`), no URL fetcher (url-fetch limits fail as for an
 * unreachable server), fixed local addresses and a fixed clock, so both
 * policies see the same world and every decision answers at once.
 */
import { Budget, DEFAULT_DECISION_BUDGET, enterBudget } from "../common/budget.js";
import type { JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type PolicyError, type Result } from "../common/result.js";
import type { LimitsContext } from "./context.js";
import { finish, type Steps } from "../common/slices.js";
import { compiledForm, limitsEngine, loadLimitsTextSteps, type LimitsCompiled } from "./engine.js";
import { classify, decideLimitsOffline, type LimitsRequest, type LimitsVerdict } from "./decide.js";
import type { EvalState } from "./identifiers.js";
import type { LimitsPolicy } from "./policy.js";

/** What `localif` and `local-subnet` take as this host's addresses in the diff. */
export const DIFF_LOCAL_ADDRESSES: readonly string[] = ["127.0.0.1", "::1"];

/** The instant jq's `now` reads in the diff (2026-01-01T00:00:00Z). */
export const DIFF_NOW_MS = Date.UTC(2026, 0, 1);

/** A fresh offline context, with its own work budget for one decision. */
export function offlineContext(): LimitsContext {
  return {
    now: DIFF_NOW_MS,
    explain: false,
    cidrList: () => undefined,
    localAddresses: DIFF_LOCAL_ADDRESSES,
    budget: new Budget(DEFAULT_DECISION_BUDGET),
  };
}

/** Decides one request offline; a request that is not an object with a `task` object is refused (thrown). */
export function decideOffline(policy: LimitsPolicy, request: unknown): LimitsVerdict {
  if (!isJsonObject(request as never) || !isJsonObject((request as JsonObject).task))
    throw new TypeError("a limits request is an object with a `task` object");
  return decideLimitsOffline(policy, request as LimitsRequest, offlineContext()).verdict;
}

/** Which classifiers hold for these hints under the policy, offline (an identifier that errs or would wait does not identify). */
export function classifyOffline(policy: LimitsPolicy, hints: JsonObject): boolean[] {
  const ctx = offlineContext();
  const state: EvalState = { ctx, usedOutside: false, ttlSeconds: Infinity, fetches: 0, note: undefined };
  const identified: boolean[] = [];
  for (const ident of policy.identifiers) {
    const previous = enterBudget(ctx.budget as Budget);
    let yes = false;
    try {
      const answer = ident.evaluate(hints, state);
      if (typeof answer === "boolean") yes = answer !== ident.invert;
      else if (answer instanceof Promise) answer.catch(() => undefined);
    } catch {
      yes = false;
    } finally {
      enterBudget(previous);
    }
    identified.push(yes);
  }
  return classify(policy.classifiers, identified);
}

/** Built policies of compiled data, so one diff builds each side once (compile, generate and decide share it). */
const BUILT = new WeakMap<LimitsCompiled, LimitsPolicy>();

/** Compiles a limits source for the diff, keeping the built policy for {@link loadForDiff}. */
export function compileForDiff(source: string): Result<LimitsCompiled, PolicyError[]> {
  return finish(compileForDiffSteps(source));
}

/** {@link compileForDiff} as resumable work (common/slices.ts). */
export function* compileForDiffSteps(source: string): Steps<Result<LimitsCompiled, PolicyError[]>> {
  const r = yield* loadLimitsTextSteps(source);
  if (!r.ok) return err([r.error]);
  const data = compiledForm(r.value);
  BUILT.set(data, r.value);
  return ok(data);
}

/** The policy of compiled data: the one {@link compileForDiff} built, else loaded now. */
export function loadForDiff(data: LimitsCompiled): LimitsPolicy {
  let policy = BUILT.get(data);
  if (policy === undefined) BUILT.set(data, (policy = limitsEngine.load(data)));
  return policy;
}
