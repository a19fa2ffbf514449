import type { Context, Handler } from "hono";
import type { z } from "zod";
import type { LoadedBundle } from "../bundle/index.js";
import { BudgetExceeded, decisionBudget, type Budget } from "../engines/common/budget.js";
import {
  shapeVerdict,
  verdictMembersWriter,
  type Decision,
  type VerdictEnvelope,
} from "../engines/common/decision.js";
import type { EngineName } from "../engines/common/engine.js";
import { bundleWithoutRead, getActiveBundle } from "../state/policy-store.js";
import { authorize } from "./auth.js";
import { verdictCacheKey } from "./cache-key.js";
import { compiledSchema, parseJsonText, readJsonText, validate } from "./body.js";
import { numberVar, type AppEnv, type Env } from "../env.js";
import { BUDGET_OUTCOME } from "../metrics/index.js";
import { answerJson } from "./answer-json.js";
import { ApiError } from "./errors.js";
import { VerdictMemo, withDecisionId } from "./verdict-memo.js";
import { decisionIdJson, elapsedMs, logDecision, newDecisionId, type DecisionLog } from "./decision-log.js";
import { logDecisionCapturing, type Capture } from "./capture.js";
import { sampledCandidate, shadowDecision } from "./shadow.js";
import { captureMode } from "../bundle/compare/index.js";
import { recordDecision } from "./metrics.js";
import { identified, requestHeadersOf, requestIdOf, requestUrlOf } from "./request-id.js";
import type { DecisionKind } from "../bundle/compare/index.js";

export { elapsedMs, logDecision, newDecisionId, type DecisionLog } from "./decision-log.js";

/** What a route's decide function gets besides the policy and the request. */
export interface RouteContext {
  env: Env;
  now: number;
  explain: boolean;
  connectingIp: string | null;
  revision: string;
  bundle: LoadedBundle;
  /** This decision's work budget (`DECISION_BUDGET`); current while `decide` runs synchronously. */
  budget: Budget;
}

/** Whether the request asked for the trace. */
export function wantsExplain(c: Context<AppEnv>): boolean {
  // no `?` past the scheme: no query (what Hono's query parser answers first), without reading the URL again
  if (requestUrlOf(c).indexOf("?", 8) === -1) return false;
  const v = c.req.query("explain");
  return v === "true" || v === "1";
}

function verdictCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
}

const memo = new VerdictMemo();

/**
 * A decision's 200 answer with its headers set on it (`X-Arbiter-Cache`: `hit`
 * from either cache level, else `miss` or `bypass`; and the request id): one
 * header list per answer, where setting them on Hono's context and then on the
 * answer builds three.
 */
function jsonAnswer(c: Context<AppEnv>, json: string, cache: "hit" | "miss" | "bypass"): Response {
  return identified(c, decisionAnswer(json, cache, requestIdOf(c)));
}

/**
 * The answer {@link jsonAnswer} makes, with the request id given (bench/ladder/ answers with this).
 * Its headers are given as an object, so the answer's `headers` is never read: reading it makes a
 * Headers wrapper per answer, one more runtime object that lives until a full collection (issue 31
 * goal 7; test/worker/frame.test.ts guards it). Setting the three one by one on `answer.headers`
 * costs 6,000–8,000 fewer workerd instructions (wt/answer, counted under cachegrind: 34,000–36,500
 * against 43,000 for the answer), about 1 µs, and was left for that reason.
 */
export function decisionAnswer(json: string, cache: "hit" | "miss" | "bypass", requestId: string): Response {
  return new Response(json, {
    headers: { "content-type": "application/json", "x-arbiter-cache": cache, "x-request-id": requestId },
  });
}

/** What a stateless decision route is: its engine, schema and decide function, and how it reads and answers. */
export interface DecisionRouteOptions<S extends z.ZodType, P, V extends object> {
  engine: EngineName;
  schema: S;
  decide: (policy: P, request: z.output<S>, ctx: RouteContext) => Decision<V> | Promise<Decision<V>>;
  /**
   * A schema zod can compile where `schema` cannot, taking part of what `schema` takes and
   * answering the same value for it (limits: LimitsRequestFast); a body it refuses is
   * validated by `schema`, whose errors the answer gives.
   */
  fastSchema?: z.ZodType;
  /** Engines whose origin decides without a policy (pScheduler allows all) take `null` instead of a 503. */
  acceptsMissingPolicy?: boolean;
  /** The kind of decision for logs and comparisons, when it is not the engine's name (`ads-check`). */
  kind?: DecisionKind;
  /**
   * Whether the decide function reads the connecting address for this validated request (limits:
   * the requester, when the body names none). Where it does not, the context carries null and the
   * header is not read (a runtime call: about 2,600 workerd instructions); other routes give none.
   * An answer from the cache reads the header whenever the route reads it at all, for a captured
   * request's `amend`.
   */
  readsConnectingIp?: (request: z.output<S>) => boolean;
  /** What the decision used that the body does not say (limits: the connecting address), for captured requests. */
  amend?: (
    request: Record<string, unknown>,
    connectingIp: string | null,
  ) => Record<string, unknown> | undefined;
  /** Where the request's JSON text comes from (default: the body, which must be JSON). */
  readRequest?: (c: Context<AppEnv>) => Promise<string>;
  /** The answer in another protocol's shape, made from the verdict (default: the verdict itself). */
  answer?: (verdict: Record<string, unknown>) => object;
}

/**
 * A route's validation as its handler runs it: the schema compiled (or, with a fast schema,
 * that one compiled and the full schema answering what it refuses). Call it at module load:
 * workerd compiles only while a Worker starts. bench/ladder/ validates with this too.
 */
export function routeValidator<S extends z.ZodType>(opts: {
  schema: S;
  fastSchema?: z.ZodType;
}): (raw: unknown) => z.output<S> {
  const fast = opts.fastSchema === undefined ? undefined : compiledSchema(opts.fastSchema);
  // with a fast schema, `schema` only ever answers refused bodies: not worth compiling (nor can it always be)
  const schema = fast === undefined ? compiledSchema(opts.schema) : opts.schema;
  return (raw) => validate(schema, raw, fast);
}

/**
 * The longest request text whose parsed and validated objects a decision route keeps until its
 * next request. The objects JSON.parse and the validator make have hidden classes reached only
 * through V8's weak transitions: with none of them alive at a full collection between requests,
 * V8 collects those classes and throws away every optimized function that read a request (the
 * route's own and the engine's), which the route then recompiles while it answers the backlog the
 * collection left. The last request alive keeps the classes of the requests callers usually send
 * (src/engines/common/shapes.ts for the engines' own classes; docs/performance.md, wt/stall2).
 * Bounded, so that one large request is not kept (it would only add to the heap the collections mark).
 */
export const KEPT_REQUEST_CHARS = 16_384;

/** What each kind's first decision route keeps (its last small request), for tests. */
const keptRequests = new Map<DecisionKind, () => { raw: unknown; request: unknown } | undefined>();

/** The request a decision route of this kind keeps now: its last one, when that was small. */
export function keptRequest(kind: DecisionKind): { raw: unknown; request: unknown } | undefined {
  return keptRequests.get(kind)?.();
}

/**
 * Builds the handler of a stateless decision route: authorize, read and
 * validate the body, answer from the verdict cache when allowed, otherwise
 * decide with the active bundle's policy, then log and cache. Engines stay
 * unaware of HTTP, caching and logging.
 */
export function decisionRoute<S extends z.ZodType, P, V extends object>(
  opts: DecisionRouteOptions<S, P, V>,
): Handler<AppEnv> {
  const kind: DecisionKind = opts.kind ?? (opts.engine as DecisionKind);
  // compiled here, while the Worker starts (route modules build their handlers at load)
  const check = routeValidator(opts);
  // the route's last small request, parsed and validated, kept until the next (see KEPT_REQUEST_CHARS)
  // (two variables, not an object: nothing allocated per request to keep them)
  let lastRaw: unknown;
  let lastRequest: unknown;
  let kept = false;
  if (!keptRequests.has(kind))
    keptRequests.set(kind, () => (kept ? { raw: lastRaw, request: lastRequest } : undefined));
  return async (c) => {
    const started = Date.now();
    authorize(c, "decision");
    const text = await (opts.readRequest ?? readJsonText)(c);
    // the usual request: the isolate's bundle is fresh, taken without a promise
    const checkedAt = Date.now();
    const fresh = bundleWithoutRead(c.env, checkedAt);
    const bundle = fresh ?? (await getActiveBundle(c.env, checkedAt));
    const explain = wantsExplain(c);
    const ttl = numberVar(c.env.VERDICT_CACHE_SECONDS, 60);
    const caching = !explain && ttl > 0;
    // the route's path names cache entries; Hono has it already (no URL parse per request)
    const path = c.req.path;
    // no I/O since `checkedAt` when the bundle was fresh: the runtime's clock has not moved
    const now = fresh === undefined ? Date.now() : checkedAt;
    const decisionId = newDecisionId();
    const memoKey = caching ? memo.key(path, bundle.revision, text) : undefined;

    const logged = {
      kind,
      text,
      now,
      // read below once the request is known, or for an answer from the cache (see `readsConnectingIp`)
      connectingIp: null as string | null,
      schema: opts.schema,
      decide: opts.decide,
      amend: opts.amend,
      acceptsMissingPolicy: opts.acceptsMissingPolicy,
    };

    const remembered = memoKey ? memo.get(memoKey, now) : undefined;
    if (remembered && remembered.json !== null) {
      if (opts.readsConnectingIp !== undefined) logged.connectingIp = connectingIpOf(c);
      return answerCached(c, opts, logged, decisionId, bundle.revision, started, {
        outcome: remembered.outcome,
        json: remembered.json,
      });
    }

    const raw = parseJsonText(text);
    const request = check(raw);
    if (opts.readsConnectingIp?.(request) === true) logged.connectingIp = connectingIpOf(c);
    const connectingIp = logged.connectingIp;
    kept = text.length <= KEPT_REQUEST_CHARS;
    lastRaw = kept ? raw : undefined;
    lastRequest = kept ? request : undefined;
    const policy = bundle.policy<P>(opts.engine) ?? (opts.acceptsMissingPolicy ? (null as P) : undefined);
    if (policy === undefined) {
      throw new ApiError("service_unavailable", `no \`${opts.engine}\` policy is loaded`);
    }
    // A request already known to give a verdict that is not cacheable skips the shared cache.
    const cache = caching && !remembered ? verdictCache() : undefined;
    const key = cache ? await verdictCacheKey(path, bundle.revision, text) : undefined;
    if (cache && key) {
      const hit = await cache.match(key);
      if (hit) {
        const stored = (await hit.json()) as { outcome: string; json: string; expires?: number };
        // an entry kept for less than the cache lifetime (its verdict used DNS answers) ends when they do
        const expires = Math.min(now + ttl * 1000, stored.expires ?? Infinity);
        if (expires > now) {
          if (memoKey) memo.set(memoKey, stored.outcome, stored.json, expires);
          if (opts.readsConnectingIp !== undefined) logged.connectingIp = connectingIpOf(c);
          return answerCached(c, opts, logged, decisionId, bundle.revision, started, stored);
        }
      }
    }

    const ctx: RouteContext = {
      env: c.env,
      now,
      explain,
      connectingIp,
      revision: bundle.revision,
      bundle,
      budget: decisionBudget(c.env.DECISION_BUDGET),
    };
    const cacheResult = caching ? "miss" : "bypass";
    let decision: Decision<V>;
    try {
      // a decide that answers at once (every engine but limits) is not awaited
      const decided = decideNow(ctx.budget, () => opts.decide(policy, request, ctx));
      decision = decided instanceof Promise ? await decided : decided;
    } catch (e) {
      // A 422 budget_exceeded is counted as a decision (no log line: there is no verdict to log).
      if (e instanceof ApiError && e.code === BUDGET_OUTCOME) {
        recordDecision(
          c.env,
          logEntry(decisionId, opts.engine, bundle.revision, BUDGET_OUTCOME, started, cacheResult),
          true,
        );
      }
      throw e;
    }
    // another protocol's answer is made from the whole answer object
    const body =
      opts.answer === undefined ? undefined : shapeVerdict(decision, decisionId, bundle.revision, explain);
    const entry = logEntry(decisionId, opts.engine, bundle.revision, decision.outcome, started, cacheResult);
    recordDecision(c.env, entry, ctx.budget.exhausted());
    afterDecision(c, logged, entry, decision.verdict, { raw, request });
    // a verdict that used answers which expire (DNS TTLs) is kept no longer than the shortest of them
    const keep =
      decision.maxAgeSeconds === undefined ? ttl : Math.min(ttl, Math.floor(decision.maxAgeSeconds));
    if (memoKey && !decision.cacheable) memo.set(memoKey, decision.outcome, null, now + ttl * 1000);
    // the answer's members after decision_id: the cache keeps them in braces, the answer is them with the id
    // put in front, the text JSON.stringify gives for the whole answer object, which is never built
    const members =
      opts.answer === undefined ? verdictMembers(decision, bundle.revision, explain) : undefined;
    if (caching && decision.cacheable && keep >= 1) {
      let json: string;
      if (members === undefined) {
        const { decision_id: _omit, ...verdict } = body as VerdictEnvelope;
        json = answerJson(verdict);
      } else json = `{${members}}`;
      const expires = now + keep * 1000;
      if (memoKey) memo.set(memoKey, decision.outcome, json, expires);
      if (cache && key) {
        const stored = new Response(JSON.stringify({ outcome: decision.outcome, json, expires }), {
          headers: { "content-type": "application/json", "cache-control": `max-age=${keep}` },
        });
        const put = cache.put(key, stored);
        try {
          c.executionCtx.waitUntil(put);
        } catch {
          await put;
        }
      }
    }
    // written once, not a second JSON.stringify of the whole verdict (2,000 match lines and their log); withDecisionId's
    // text, made without cutting the brace off a whole text (which copied the answer once more)
    if (opts.answer === undefined)
      return jsonAnswer(c, answerWithId(decisionId, members as string), cacheResult);
    return jsonAnswer(c, answerJson(opts.answer(body as Record<string, unknown>)), cacheResult);
  };
}

/** The address the request came from (`cf-connecting-ip`), or null without one. */
function connectingIpOf(c: Context<AppEnv>): string | null {
  return requestHeadersOf(c).get("cf-connecting-ip");
}

/** What the after-answer work of a route's decisions needs besides the decision (one per request, no closures). */
interface Logged<S extends z.ZodType, P> {
  kind: DecisionKind;
  text: string;
  now: number;
  connectingIp: string | null;
  schema: S;
  decide: (
    policy: P,
    request: z.output<S>,
    ctx: RouteContext,
  ) => Decision<object> | Promise<Decision<object>>;
  amend?: (
    request: Record<string, unknown>,
    connectingIp: string | null,
  ) => Record<string, unknown> | undefined;
  acceptsMissingPolicy?: boolean;
}

/** A decision answered from either cache level: its log line and count, and the stored answer with a fresh decision id. */
function answerCached<S extends z.ZodType, P>(
  c: Context<AppEnv>,
  opts: { engine: EngineName; answer?: (verdict: Record<string, unknown>) => object },
  logged: Logged<S, P>,
  decisionId: string,
  revision: string,
  started: number,
  stored: { outcome: string; json: string },
): Response {
  const entry = logEntry(decisionId, opts.engine, revision, stored.outcome, started, "hit");
  recordDecision(c.env, entry);
  afterDecision(c, logged, entry, stored.json);
  if (opts.answer !== undefined)
    return jsonAnswer(c, answerJson(opts.answer(JSON.parse(stored.json) as Record<string, unknown>)), "hit");
  return jsonAnswer(c, withDecisionId(decisionId, stored.json), "hit");
}

/**
 * {@link decideWithin} without a promise when the decide function answers at once: its
 * value, or the decide function's promise with a spent budget turned into the 422.
 */
export function decideNow<T>(budget: Budget, decide: () => T | Promise<T>): T | Promise<T> {
  let decided: T | Promise<T>;
  try {
    decided = budget.run(decide);
  } catch (e) {
    throw budgetError(e);
  }
  return decided instanceof Promise
    ? decided.catch((e: unknown) => {
        throw budgetError(e);
      })
    : decided;
}

/** A budget spent where no verdict carries it is the 422 `budget_exceeded`; any other error is itself. */
function budgetError(e: unknown): unknown {
  return e instanceof BudgetExceeded ? new ApiError("budget_exceeded", e.message) : e;
}

/**
 * A decision's answer members after its decision_id (in braces, what the caches keep). A
 * verdict that writes its own JSON (match: from its columns) is never spread into an answer
 * object. bench/ladder/ answers with this too.
 */
export function verdictMembers(decision: Decision<object>, revision: string, explain: boolean): string {
  return envelopedMembers(decision, revision, explain, verdictMembersWriter(decision.verdict));
}

/** The answer's text: the decision id, then {@link verdictMembers}' members. */
export function answerWithId(decisionId: string, members: string): string {
  return `{"decision_id":${decisionIdJson(decisionId)},${members}}`;
}

/** The active revision's JSON text, written once per revision rather than per answer. */
let lastRevision = { revision: "", json: '""' };

/**
 * The members, without the braces, of the text JSON.stringify gives for shapeVerdict's
 * answer without its decision_id: the envelope, the verdict's own members (its own
 * writer's, when it has one, else JSON.stringify's text cut), then the trace when asked
 * for. Verdicts have fixed field names (none an array index, none an envelope field or
 * `trace`), so in braces this is the text of the spread answer object, never built. Never
 * empty (the revision). A verdict's own writer gives its members at once: cutting the
 * braces off its text (made by joining) copied the whole of it (match's lines and log).
 */
function envelopedMembers(
  decision: Decision<object>,
  revision: string,
  explain: boolean,
  ownMembers: (() => string) | undefined,
): string {
  let verdict: string;
  if (ownMembers === undefined) {
    const json = answerJson(decision.verdict);
    verdict = json === "{}" ? "" : json.slice(1, -1);
  } else verdict = answerJson(null, ownMembers);
  if (revision !== lastRevision.revision) lastRevision = { revision, json: JSON.stringify(revision) };
  const head = `"revision":${lastRevision.json},"cacheable":${decision.cacheable ? "true" : "false"}`;
  const fields = verdict === "" ? "" : `,${verdict}`;
  const trace = explain && decision.trace !== undefined ? `,"trace":${answerJson(decision.trace)}` : "";
  return `${head}${fields}${trace}`;
}

/**
 * What a decision leaves for after its answer: the log line, carrying the
 * request when DECISION_LOG_REQUESTS captures it, and the decision again under
 * a staged candidate when it falls in the sample. Without either (the usual
 * case) it writes the line and allocates nothing more.
 */
function afterDecision<S extends z.ZodType, P>(
  c: Context<AppEnv>,
  d: Logged<S, P>,
  entry: DecisionLog,
  verdict: object | string,
  /** The parsed and validated request, when the decision had them (an answer from the cache did not). */
  known?: { raw: unknown; request: z.output<S> },
): void {
  const capturing = captureMode(c.env.DECISION_LOG_REQUESTS) !== "off";
  const candidate = sampledCandidate(c, d.kind);
  if (!capturing) logDecision(entry);
  if (!capturing && candidate === null) return;
  const amend =
    d.amend === undefined ? undefined : (r: Record<string, unknown>) => d.amend?.(r, d.connectingIp);
  if (capturing)
    logDecisionCapturing(c, entry, (): Capture => ({ kind: d.kind, text: d.text, verdict, amend }));
  if (candidate === null) return;
  const raw = () => known?.raw ?? parseJsonText(d.text);
  shadowDecision(c, candidate, {
    kind: d.kind,
    request: () => known?.request ?? validate(d.schema, raw()),
    requestValue: () => {
      const value = raw() as Record<string, unknown>;
      return amend?.(value) ?? value;
    },
    active: verdict,
    decide: d.decide,
    ctx: { env: c.env, now: d.now, explain: false, connectingIp: d.connectingIp },
    acceptsMissingPolicy: d.acceptsMissingPolicy,
  });
}

/**
 * Runs a decide function with the decision's budget current (engines that
 * await, like limits, also carry it in their context); a budget that runs out
 * where the engine has no verdict for it is the 422 `budget_exceeded`.
 */
export async function decideWithin<T>(budget: Budget, decide: () => T | Promise<T>): Promise<T> {
  return decideNow(budget, decide);
}

function logEntry(
  id: string,
  engine: string,
  revision: string,
  outcome: string,
  started: number,
  cache: "hit" | "miss" | "bypass",
): DecisionLog {
  return { decision_id: id, engine, revision, outcome, ms: elapsedMs(started), cache };
}
