/**
 * The `url-fetch` limit: asks a web service whether a task may run. The URL,
 * headers and query parameters may be made by jq transforms of the task and
 * the hints; the service answers `{"passed": bool, "message"?: ...}`. Every
 * reason text is the one pScheduler's limit/urlfetch.py writes. The GET
 * itself goes through the context's UrlFetcher, bounded by the limit's
 * timeout and by the decision's fetch budget.
 */
import { parseAddress } from "../common/cidr.js";
import { parseIsoDuration } from "../common/iso8601.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { checkJsonShape, describeJsonShape, MAX_JSON_DEPTH } from "../common/json-shape.js";
import { err, ok, type Result } from "../common/result.js";
import { DEFAULT_FETCH_BUDGET, type FetchAnswer, type UrlFetcher } from "./context.js";
import type { EvalState } from "./identifiers.js";
import { compileSpec, type CompiledJq, type DataError, type JqSpec } from "./jq-bridge.js";
import type { LimitAnswer, LimitEvaluator } from "./limit-types.js";
import { pyStr, pyTypeName, pyUrlencode } from "./python-text.js";
import {
  DURATION,
  JQ_TRANSFORM,
  NOT_A_DICTIONARY,
  firstError,
  schemaErrorText,
  type Schema,
} from "./schema.js";
import { stripComments } from "./source.js";

const BOOLEAN: Schema = { type: "boolean" };
const HOST_NAME = /^[A-Za-z0-9_][A-Za-z0-9-]{0,62}(\.[A-Za-z0-9][A-Za-z0-9-]{0,62})*\.?$/;

/** pScheduler's Host: a host name or an IP address. */
const HOST: Schema = {
  anyOf: [
    {
      check: (v) =>
        typeof v === "string" && v.length >= 1 && v.length <= 255 && HOST_NAME.test(v) ? null : "invalid",
      json: { type: "string", minLength: 1, maxLength: 255, pattern: HOST_NAME.source },
    },
    {
      check: (v) =>
        typeof v === "string" && !v.includes("/") && parseAddress(v) !== null ? null : "invalid",
      json: { type: "string", description: "an IP address" },
    },
  ],
};

/** The data of a url-fetch limit. */
export const URL_FETCH: Schema = {
  type: "object",
  properties: {
    url: { type: "string" },
    "url-transform": JQ_TRANSFORM,
    bind: HOST,
    "verify-keys": BOOLEAN,
    "follow-redirects": BOOLEAN,
    timeout: DURATION,
    headers: { type: "object" },
    "headers-transform": JQ_TRANSFORM,
    params: { type: "object" },
    "params-transform": JQ_TRANSFORM,
    "success-only": BOOLEAN,
    "fail-result": BOOLEAN,
  },
  additionalProperties: false,
  required: ["url"],
};

/** The key under which a transform's input carries the hints, for its `hint($name)`. */
const PRIVATE_KEY = "__URLFETCH_PRIVATE__";

/** A compiled transform and whether its outputs are joined as raw text. */
interface Transform {
  program: CompiledJq;
  raw: boolean;
}

/** Compiles a transform with `hint($name)` defined in front of the script, as pScheduler does. */
function compileTransform(spec: JqSpec | undefined, key: string): Result<Transform | null, DataError> {
  if (spec === undefined) return ok(null);
  const c = compileSpec(spec, [key], `def hint($name): .${PRIVATE_KEY}.hints[$name];`);
  if (!c.ok) return c;
  return ok({ program: c.value, raw: spec["output-raw"] === true });
}

/** Values from scripts and servers nest at most as deep as a request may (their size is bounded otherwise). */
const DEPTH_ONLY = { maxDepth: MAX_JSON_DEPTH, maxItems: Number.POSITIVE_INFINITY };

/**
 * The transform's result indexed `[0]`, as Python indexes what JQFilter
 * returns: the first output, or with output-raw the first character of the
 * outputs' str() forms joined with newlines; the text of what was raised.
 */
function firstOf(t: Transform, input: Json, now: number): { value: Json } | { error: string } {
  const r = t.program.all(input, now);
  if ("error" in r) return { error: r.error };
  // the outputs are rendered as Python's str() and urlencoded, which recurse: nothing deeper than a request may be
  for (const out of t.raw ? r.outputs : r.outputs.slice(0, 1)) {
    const shape = checkJsonShape(out, DEPTH_ONLY);
    if (shape !== null) return { error: describeJsonShape(shape, "the transform's result") };
  }
  if (t.raw) {
    const joined = r.outputs.map(pyStr).join("\n");
    return joined.length === 0 ? { error: "string index out of range" } : { value: joined[0] };
  }
  return r.outputs.length === 0 ? { error: "list index out of range" } : { value: r.outputs[0] };
}

/** `result.get(key, {})` on a transform result; a non-object has no `get`. */
function member(result: Json, key: string): { value: Json } | { error: string } {
  if (!isJsonObject(result)) return { error: `'${pyTypeName(result)}' object has no attribute 'get'` };
  return { value: Object.hasOwn(result, key) ? result[key] : {} };
}

/** What the curl transfer would have failed with when the fetch budget is spent. */
function budgetSpent(budget: number): FetchAnswer {
  return { status: 400, text: `URL fetch budget exhausted (${budget} per decision)` };
}

/** Without a fetcher every server is unreachable, as curl reports it. */
const UNREACHABLE: FetchAnswer = { status: 400, text: "Couldn't connect to server" };

/** Reads a url-fetch limit's data; errors are pScheduler's load texts. */
export function compileUrlFetch(data: Json): Result<LimitEvaluator, DataError> {
  if (!isJsonObject(data)) return err(NOT_A_DICTIONARY);
  const e = firstError(URL_FETCH, data);
  if (e) return err(`Invalid data: ${schemaErrorText(e)}`);
  const d = data as JsonObject;
  const transforms: (Transform | null)[] = [];
  for (const key of ["url-transform", "headers-transform", "params-transform"]) {
    const t = compileTransform(d[key] as unknown as JqSpec | undefined, key);
    if (!t.ok) return t;
    transforms.push(t.value);
  }
  const [urlT, headersT, paramsT] = transforms;
  const baseUrl = d.url as string;
  const followRedirects = d["follow-redirects"] !== false;
  const timeout = parseIsoDuration(d.timeout ?? "PT3S");
  if (!timeout.ok) return err(timeout.error);
  const timeoutMs = Math.trunc((timeout.value / 1e6) * 1000);
  const failResult = d["fail-result"] === true;
  const baseHeaders: Json = d.headers ?? {};
  const baseParams: Json = d.params ?? {};
  const successOnly = d["success-only"] === true;

  const failed = (reason: string): LimitAnswer => ({ passed: failResult, reasons: [reason] });

  // synchronous until the fetcher is called: without one (or with the budget spent) the answer is at once
  function evaluate(
    task: JsonObject,
    now: number,
    hints: JsonObject,
    state: EvalState,
  ): LimitAnswer | Promise<LimitAnswer> {
    const priv: JsonObject = { hints };
    let url = baseUrl;
    if (urlT !== null) {
      const r = firstOf(urlT, { url: baseUrl, run: task, [PRIVATE_KEY]: priv }, now);
      if ("error" in r) return failed(`URL transform failed: ${r.error}`);
      if (typeof r.value !== "string")
        return failed("URL transform failed: Transform did not return a string");
      url = r.value;
    }
    // without a transform, pScheduler sends no headers and no parameters at all
    let headers: Json = {};
    if (headersT !== null) {
      const r = firstOf(headersT, { headers: baseHeaders, run: task, [PRIVATE_KEY]: priv }, now);
      const h = "error" in r ? r : member(r.value, "headers");
      if ("error" in h) return failed(`Header transform failed: ${h.error}`);
      headers = h.value;
    }
    let params: Json = {};
    if (paramsT !== null) {
      const r = firstOf(paramsT, { params: baseParams, run: task, [PRIVATE_KEY]: priv }, now);
      const p = "error" in r ? r : member(r.value, "params");
      if ("error" in p) return failed(`Parameter transform failed: ${p.error}`);
      params = p.value;
    }

    // url_get: the query is appended whenever params is not None, even when empty
    let fullUrl = url;
    if (params !== null) {
      const q = pyUrlencode(params);
      if ("error" in q) return { error: q.error };
      fullUrl = `${url}?${q.text}`;
    }
    const headerLines: [string, string][] = [];
    if (headers !== null) {
      if (!isJsonObject(headers))
        return { error: `'${pyTypeName(headers)}' object has no attribute 'items'` };
      for (const [k, v] of Object.entries(headers)) headerLines.push([k, pyStr(v)]);
    }

    state.usedOutside = true;
    const budget = state.ctx.fetchBudget ?? DEFAULT_FETCH_BUDGET;
    if (state.fetches >= budget) return judge(budgetSpent(budget), url);
    state.fetches++;
    const fetcher: UrlFetcher | undefined = state.ctx.fetcher;
    if (fetcher === undefined) return judge(UNREACHABLE, url);
    return fetcher
      .get({ url: fullUrl, headers: headerLines, timeoutMs, followRedirects })
      .then((answer) => judge(answer, url));
  }

  /** Turns the server's answer into the limit's result, as urlfetch.py reads it. */
  function judge({ status, text }: FetchAnswer, url: string): LimitAnswer {
    if (successOnly) {
      if (status === 200) return { passed: true, reasons: [] };
      if (status === 404) return { passed: false, reasons: ["Resource not found"] };
    }
    if (status !== 200) return failed(`Fetch ${url} failed: ${status}: ${text}`);
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return failed(`Server returned invalid JSON '${text}'`);
    }
    // the server is outside: its answer is held to a request's depth before anything recursive reads it
    const shape = checkJsonShape(body, DEPTH_ONLY);
    if (shape !== null)
      return failed(`Server returned an invalid result: ${describeJsonShape(shape, "the result")}`);
    body = stripComments(body);
    if (!isJsonObject(body))
      return { passed: false, reasons: [`Server returned an invalid result '${text}'`] };
    const passed = Object.hasOwn(body, "passed") ? body.passed : undefined;
    if (typeof passed !== "boolean") return failed(`Server returned an invalid result '${text}'`);
    return { passed, reasons: Object.hasOwn(body, "message") ? [pyStr(body.message)] : [] };
  }

  return ok({ checksSchedule: false, evaluate: (task, now, io) => evaluate(task, now, io.hints, io.state) });
}
