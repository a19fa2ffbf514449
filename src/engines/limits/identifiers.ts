/**
 * Identifiers: who is asking. Each type is compiled once into an evaluator;
 * DNS answers and downloaded lists come from the decision context.
 */
import { BUDGET_EXCEEDED_MESSAGE } from "../common/budget.js";
import { buildCidrSet, cidrSetOf, parseAddress, parseNetwork, rangeOverlaps, type CidrSet, type IpNetwork } from "../common/cidr.js";
import { RangeSet, RangeSetBuilder, type PackedRanges } from "../common/cidr-ranges.js";
import { SCANNED, scanNetwork } from "../common/cidr-scan.js";
import { parseIsoDuration } from "../common/iso8601.js";
import { checkJsonShape, MAX_JSON_DEPTH } from "../common/json-shape.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileStringMatch, type StringMatcher, type StringMatchSpec } from "../common/string-match.js";
import type { DnsAnswer, DnsResolver, LimitsContext } from "./context.js";
import { compileSpec, type CompiledJq, type DataError, type JqSpec } from "./jq-bridge.js";
import { pyStr, pyStringRepr } from "./python-text.js";
import { DURATION, JQ_TRANSFORM, NOT_A_DICTIONARY, STRING_MATCH, firstError, schemaErrorText, type Schema } from "./schema.js";

/** Per-decision scratch state the evaluators report into. */
export interface EvalState {
  readonly ctx: LimitsContext;
  /** Set when a downloaded list or a URL fetch was consulted, or a DNS lookup gave no answer with a TTL: such verdicts are not cacheable. */
  usedOutside: boolean;
  /** The shortest TTL (seconds left) of the DNS answers consulted so far; Infinity while none was. */
  ttlSeconds: number;
  /** URL fetches made so far in this decision (bounded by the context's fetch budget). */
  fetches: number;
  /** Set by an identifier, for the explain trace, when it answered something other than what it looked up (a failed lookup). */
  note?: string;
}

/** Why a lookup gave no answer, in the trace's words. */
function lookupFailure(name: string, answer: DnsAnswer | undefined): string {
  if (answer === undefined) return `lookup failed: no DNS resolver is configured (${name})`;
  return `lookup failed: ${answer.reason ?? (answer.status === "timeout" ? "timed out" : "resolver error")} (${name})`;
}

/**
 * Notes a DNS answer the verdict now depends on: its TTL bounds how long the
 * verdict may be cached; a lookup that gave no answer with a TTL (no resolver,
 * a timeout, an error) makes the verdict not cacheable at all.
 */
function dependsOn(state: EvalState, answer: DnsAnswer | undefined): void {
  if (answer?.ttl === undefined) state.usedOutside = true;
  else if (answer.ttl < state.ttlSeconds) state.ttlSeconds = answer.ttl;
}

/** An identifier's answer: identified or not, or the text of the error it raised. */
export type IdentAnswer = boolean | { error: string };

/** A compiled identifier. */
export interface Identifier {
  readonly name: string;
  readonly invert: boolean;
  evaluate(hints: JsonObject, state: EvalState): IdentAnswer | Promise<IdentAnswer>;
  /** An ip-cidr-list's prepared ranges, stored in the compiled policy so loading skips the CIDR text. */
  readonly ranges?: RangeSet;
}

type Build = (data: Json) => Result<(hints: JsonObject, state: EvalState) => IdentAnswer | Promise<IdentAnswer>, DataError>;

function checkData(schema: Schema, data: Json): string | null {
  if (!isJsonObject(data)) return NOT_A_DICTIONARY;
  const e = firstError(schema, data);
  return e ? `Invalid data: ${schemaErrorText(e)}` : null;
}

/** IPCIDR or IPAddress: an anyOf, so a bad entry gets jsonschema's anyOf message. */
const ADDRESS_OR_CIDR_ANYOF: Schema = {
  anyOf: [{ check: (v) => (typeof v === "string" && scanNetwork(v) ? null : "invalid"), json: { type: "string", description: "an IP address or CIDR" } }],
};
const CIDR_ONLY: Schema = {
  anyOf: [{ check: (v) => (typeof v === "string" && v.includes("/") && parseNetwork(v) ? null : "invalid"), json: { type: "string", pattern: "/", description: "a CIDR" } }],
};
/** The data of `always` and `localif`: an empty object (checked by `emptyObject`, in pScheduler's words). */
const EMPTY_DATA: Schema = { type: "object", additionalProperties: false };

/** Parses CIDR texts strictly (host bits are a load error, as Python's ip_network says). */
function strictNetworks(list: readonly string[]): Result<IpNetwork[], string> {
  const out: IpNetwork[] = [];
  for (const text of list) {
    const n = parseNetwork(text);
    if (!n) return err(`${pyStringRepr(text)} does not appear to be an IPv4 or IPv6 network`);
    if (n.hostBits) return err(`${text} has host bits set`);
    out.push(n);
  }
  return ok(out);
}

function emptyObject(data: Json): string | null {
  return isJsonObject(data) && Object.keys(data).length === 0 ? null : "Invalid data: Data is not an object or not empty.";
}

function requesterOf(hints: JsonObject): string | undefined {
  const r = hints.requester;
  return r === undefined ? undefined : pyStr(r);
}

// Several identifiers parse the same requester, and consecutive decisions often share it:
// the last parse of each kind is kept (the parsed values are never modified).
let netText: string | null = null;
let netParsed: IpNetwork | null = null;
let addrText: string | null = null;
let addrParsed: IpNetwork | null = null;

/** parseNetwork, remembering the last text parsed. */
function networkOf(text: string): IpNetwork | null {
  if (text !== netText) {
    netParsed = parseNetwork(text);
    netText = text;
  }
  return netParsed;
}

/** parseAddress, remembering the last text parsed. */
function addressOf(text: string): IpNetwork | null {
  if (text !== addrText) {
    addrParsed = parseAddress(text);
    addrText = text;
  }
  return addrParsed;
}

const always: Build = (data) => {
  const e = emptyObject(data);
  return e ? err(e) : ok(() => true);
};

const localif: Build = (data) => {
  const e = emptyObject(data);
  if (e) return err(e);
  let cachedFor: readonly string[] | null = null;
  let set: CidrSet | null = null;
  return ok((hints, state) => {
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const net = networkOf(r);
    if (!net) return { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 network` };
    if (net.hostBits) return { error: `${r} has host bits set` };
    if (cachedFor !== state.ctx.localAddresses) {
      cachedFor = state.ctx.localAddresses;
      set = buildCidrSet(cachedFor);
    }
    return set !== null && set.overlaps(net);
  });
};

const HINT_SCHEMA: Schema = { type: "object", properties: { hint: { type: "string" }, match: STRING_MATCH }, required: ["hint", "match"] };

const hint: Build = (data) => {
  const e = checkData(HINT_SCHEMA, data);
  if (e) return err(e);
  const d = data as unknown as { hint: string; match: StringMatchSpec };
  const m = compileStringMatch(d.match);
  if (!m.ok) return err(m.error);
  const matcher: StringMatcher = m.value;
  return ok((hints) => {
    const v = hints[d.hint];
    return v === undefined ? false : matcher(pyStr(v));
  });
};

const jq: Build = (data) => {
  const e = checkData(JQ_TRANSFORM, data);
  if (e) return err(e);
  const c = compileSpec(data as unknown as JqSpec);
  if (!c.ok) return c;
  const program: CompiledJq = c.value;
  return ok((hints, state) => {
    const r = program.first(hints, state.ctx.now / 1000);
    // a spent work budget is the exception pScheduler reports for the identifier
    if (r.kind === "error" && r.message === BUDGET_EXCEEDED_MESSAGE) return { error: r.message };
    return r.kind === "value" && typeof r.value === "boolean" ? r.value : false;
  });
};

const CIDR_LIST_SCHEMA: Schema = {
  type: "object",
  properties: { cidrs: { type: "array", items: ADDRESS_OR_CIDR_ANYOF } },
  required: ["cidrs"],
};

/**
 * Scans an ip-cidr-list's entries once into a range set. An entry that is not an
 * address or network fails the schema (its message computed from `data` only
 * then); otherwise the first entry with host bits set is the load error, as
 * Python's ip_network raises it.
 */
function strictRanges(list: readonly Json[], data: Json): Result<RangeSet, string> {
  const b = new RangeSetBuilder();
  let hostBits: string | null = null;
  for (const text of list) {
    if (typeof text !== "string" || !scanNetwork(text)) return err(checkData(CIDR_LIST_SCHEMA, data) ?? "Invalid data");
    if (SCANNED.hostBits) hostBits ??= `${text} has host bits set`;
    else b.addScanned();
  }
  return hostBits !== null ? err(hostBits) : ok(b.build());
}

/** The ip-cidr-list evaluator over a prepared set. */
function cidrListEvaluator(set: RangeSet): (hints: JsonObject) => IdentAnswer {
  return (hints) => {
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const net = networkOf(r);
    if (!net) return { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 network` };
    if (net.hostBits) return { error: `${r} has host bits set` };
    return rangeOverlaps(set, net);
  };
}

/** Compiles an ip-cidr-list from its text (compile time), or takes its packed ranges (load time). */
function ipCidrList(data: Json, packed: PackedRanges | undefined): Result<{ evaluate: Identifier["evaluate"]; ranges: RangeSet }, string> {
  if (packed !== undefined) {
    const ranges = RangeSet.unpack(packed);
    return ok({ evaluate: cidrListEvaluator(ranges), ranges });
  }
  // the schema's item check is the scan itself: check the rest of the shape, then scan once
  const cidrs = isJsonObject(data) ? data.cidrs : undefined;
  const e = checkData(CIDR_LIST_SCHEMA, Array.isArray(cidrs) ? { ...(data as JsonObject), cidrs: [] } : data);
  if (e) return err(e);
  const ranges = strictRanges(cidrs as Json[], data);
  if (!ranges.ok) return err(ranges.error);
  return ok({ evaluate: cidrListEvaluator(ranges.value), ranges: ranges.value });
}

const CIDR_URL_SCHEMA: Schema = {
  type: "object",
  properties: {
    source: { type: "string" },
    transform: JQ_TRANSFORM,
    bind: { type: "string" },
    exclude: { type: "array", items: ADDRESS_OR_CIDR_ANYOF },
    update: DURATION,
    retry: DURATION,
    "fail-state": { type: "boolean" },
  },
  additionalProperties: false,
  required: ["source", "update", "retry"],
};

/** What the scheduled refresh needs to know about one ip-cidr-list-url identifier. */
export interface UrlSource {
  source: string;
  updateSeconds: number;
  retrySeconds: number;
  failState: boolean;
  transform?: (body: Json, nowMs?: number) => { text: string } | { error: string };
}

/** How deep a list transform's output may nest: as deep as a request body (written as JSON, by recursion). */
const TRANSFORM_DEPTH = { maxDepth: MAX_JSON_DEPTH, maxItems: Number.POSITIVE_INFINITY };

/** Compiles the optional list transform: raw output, outputs joined with newlines (each nested at most 100 deep). */
function listTransform(spec: JqSpec | undefined): Result<UrlSource["transform"], DataError> {
  if (spec === undefined) return ok(undefined);
  const c = compileSpec(spec, ["transform"]);
  if (!c.ok) return c;
  const program = c.value;
  return ok((body: Json, nowMs = 0) => {
    const r = program.all(body, nowMs / 1000);
    if ("error" in r) return { error: r.error };
    // non-string outputs are written as JSON, which recurses: nothing deeper than a request may be
    const lines: string[] = [];
    for (const o of r.outputs) {
      if (typeof o === "string") {
        lines.push(o);
        continue;
      }
      const shape = checkJsonShape(o, TRANSFORM_DEPTH);
      if (shape !== null) return { error: `an output of the transform is nested more than ${shape.limit} levels deep (the limit is ${shape.limit})` };
      lines.push(JSON.stringify(o));
    }
    return { text: lines.join("\n") };
  });
}

/** Reads an ip-cidr-list-url identifier's refresh settings (data already validated). */
export function urlSourceOf(data: Json): Result<UrlSource, DataError> {
  const e = checkData(CIDR_URL_SCHEMA, data);
  if (e) return err(e);
  const d = data as unknown as { source: string; update: string; retry: string; "fail-state"?: boolean; transform?: JqSpec };
  const update = parseIsoDuration(d.update);
  const retry = parseIsoDuration(d.retry);
  if (!update.ok) return err(update.error);
  if (!retry.ok) return err(retry.error);
  const t = listTransform(d.transform);
  if (!t.ok) return err(t.error);
  return ok({
    source: d.source,
    updateSeconds: update.value / 1e6,
    retrySeconds: retry.value / 1e6,
    failState: d["fail-state"] === true,
    ...(t.value ? { transform: t.value } : {}),
  });
}

const ipCidrListUrl: Build = (data) => {
  const src = urlSourceOf(data);
  if (!src.ok) return err(src.error);
  const { source, failState } = src.value;
  const exclude = cidrSetOf(
    ((data as JsonObject).exclude as string[] | undefined)?.map((x) => parseNetwork(x) as IpNetwork) ?? [],
  );
  return ok((hints, state) => {
    state.usedOutside = true;
    const list = state.ctx.cidrList(source);
    if (list === undefined || list.size === 0) {
      if (state.ctx.explain) state.note = `list ${source} ${list === undefined ? "not downloaded yet" : "is empty"}; fail-state ${failState} applied`;
      return failState;
    }
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const addr = addressOf(r);
    if (!addr) return { error: `Invalid IP ${pyStringRepr(r)}` };
    return list.contains(addr) && !exclude.contains(addr);
  });
};

const BOGON_SCHEMA: Schema = {
  type: "object",
  properties: { exclude: { type: "array", items: CIDR_ONLY }, timeout: DURATION, "fail-result": { type: "boolean" } },
  required: ["fail-result"],
};

/** The DNS name under which a reverse (PTR) or Cymru lookup is made for an address. */
export function reverseLabels(addr: IpNetwork): string[] {
  if (addr.family === 4) {
    const n = Number(addr.start);
    return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].map(String);
  }
  const hex = BigInt(addr.start).toString(16).padStart(32, "0");
  return hex.split("").reverse();
}

function timeoutMs(text: string | undefined, fallbackMs: number): number {
  if (text === undefined) return fallbackMs;
  const d = parseIsoDuration(text);
  return d.ok ? d.value / 1000 : fallbackMs;
}

// the Cymru name of the last address asked about (addressOf returns the same object for the same text)
let bogonAddr: IpNetwork | null = null;
let bogonName = "";

/** Answers an identifier's `fail-result` after a lookup that gave nothing, noting why for the trace. */
function failed(state: EvalState, name: string, answer: DnsAnswer | undefined, failResult: boolean): boolean {
  if (!state.ctx.explain) return failResult;
  const why = answer !== undefined && answer.status === "ok" ? `no record for ${name}` : lookupFailure(name, answer);
  state.note = `${why}; fail-result ${failResult} applied`;
  return failResult;
}

const ipCymruBogon: Build = (data) => {
  const e = checkData(BOGON_SCHEMA, data);
  if (e) return err(e);
  const d = data as { exclude?: string[]; timeout?: string; "fail-result": boolean };
  const ex = strictNetworks(d.exclude ?? []);
  if (!ex.ok) return err(ex.error);
  const exclude = cidrSetOf(ex.value);
  const ms = timeoutMs(d.timeout, 2000);
  const failResult = d["fail-result"];
  // synchronous until a lookup is made: without a resolver the answer is at once
  return ok((hints, state) => {
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const addr = addressOf(r);
    if (!addr) return { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 address` };
    if (addr !== bogonAddr) {
      bogonName = `${reverseLabels(addr).join(".")}.${addr.family === 4 ? "v4" : "v6"}.fullbogons.cymru.com`;
      bogonAddr = addr;
    }
    const name = bogonName;
    const dns = state.ctx.dns;
    if (!dns) return (dependsOn(state, undefined), failed(state, name, undefined, failResult));
    return dns.lookup(name, "A", ms).then((answer) => {
      dependsOn(state, answer);
      if (answer.status === "nxdomain") return false;
      if (answer.status !== "ok" || answer.answers.length === 0) return failed(state, name, answer, failResult);
      if (answer.answers[0] !== "127.0.0.2") return false;
      return !exclude.contains(addr);
    });
  });
};

const ASN_SCHEMA: Schema = {
  type: "object",
  properties: {
    asns: { type: "array", items: { type: "integer", minimum: 1 } },
    peers: { type: "boolean" },
    timeout: DURATION,
    "fail-result": { type: "boolean" },
  },
  required: ["fail-result"],
};

const DOTTED_QUAD = /^(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}$/;

/**
 * The labels dnspython's `reversename.from_address` gives an address (without
 * the in-addr.arpa / ip6.arpa suffix): four octets for IPv4 and for
 * IPv4-mapped IPv6, 32 nibbles for other IPv6; null when it refuses the text.
 */
function cymruLabels(text: string): string[] | null {
  if (text.includes(":")) {
    if (text.includes("%") || text.includes("/")) return null;
    const a = parseAddress(text);
    if (a === null || a.family !== 6) return null;
    const v = BigInt(a.start);
    if (v >> 32n === 0xffffn) return reverseLabels({ ...a, family: 4, start: Number(v & 0xffffffffn) } as IpNetwork);
    return reverseLabels(a);
  }
  if (!DOTTED_QUAD.test(text)) return null;
  const a = parseAddress(text);
  return a === null ? null : reverseLabels(a);
}

/** The ASNs of a Team Cymru TXT record, `"ASN [ASN...] | CIDR | CC | Registry | Date"`, as Python's int() reads them. */
function asnsOf(record: string): number[] {
  const out: number[] = [];
  for (const line of record.split("\n")) {
    const fields = line.slice(1, -1).split(" | ")[0];
    for (const word of fields.split(/\s+/)) {
      if (!/^[+-]?[0-9]+(?:_[0-9]+)*$/.test(word)) continue;
      out.push(Number(word.replace(/_/g, "")));
    }
  }
  return out;
}

const ipCymruAsn: Build = (data) => {
  const e = checkData(ASN_SCHEMA, data);
  if (e) return err(e);
  const d = data as { asns?: number[]; peers?: boolean; timeout?: string; "fail-result": boolean };
  if (d.asns === undefined) return err("'asns'");
  const asns = new Set(d.asns);
  const zone = d.peers === true ? "peer" : null;
  const ms = timeoutMs(d.timeout, 2000);
  const failResult = d["fail-result"];
  return ok((hints, state) => {
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const labels = cymruLabels(r);
    if (labels === null) return { error: "Text input is malformed." };
    const name = `${labels.join(".")}.${zone ?? (labels.length === 4 ? "origin" : "origin6")}.asn.cymru.com`;
    const dns = state.ctx.dns;
    if (!dns) return (dependsOn(state, undefined), failed(state, name, undefined, failResult));
    return dns.lookup(name, "TXT", ms).then((answer) => {
      dependsOn(state, answer);
      if (answer.status === "nxdomain") return false;
      if (answer.status !== "ok" || answer.answers.length === 0) return failed(state, name, answer, failResult);
      return asnsOf(answer.answers[0]).some((n) => asns.has(n));
    });
  });
};

const REVERSE_SCHEMA: Schema = {
  type: "object",
  properties: { match: STRING_MATCH, timeout: DURATION },
  additionalProperties: false,
  required: ["match", "timeout"],
};

/** A failed lookup of ip-reverse-dns: not identified, noting why for the trace. */
function notIdentified(state: EvalState, why: string): false {
  if (state.ctx.explain) state.note = `${why}; not identified`;
  return false;
}

const ipReverseDns: Build = (data) => {
  const e = checkData(REVERSE_SCHEMA, data);
  if (e) return err(e);
  const d = data as unknown as { match: StringMatchSpec; timeout: string };
  const m = compileStringMatch(d.match);
  if (!m.ok) return err(m.error);
  const matcher = m.value;
  const ms = timeoutMs(d.timeout, 2000);
  return ok((hints, state) => {
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const addr = addressOf(r);
    if (!addr) return { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 address` };
    const dns = state.ctx.dns;
    const ptrName = `${reverseLabels(addr).join(".")}.${addr.family === 4 ? "in-addr.arpa" : "ip6.arpa"}`;
    // ip-reverse-dns has no fail-result: a failed lookup is "not identified", as in pScheduler.
    if (!dns) return (dependsOn(state, undefined), notIdentified(state, lookupFailure(ptrName, undefined)));
    return confirmedName(dns, state, addr, ptrName, ms, matcher);
  });
};

/** ip-reverse-dns's lookups: the PTR name, confirmed by a forward lookup, then matched. */
async function confirmedName(dns: DnsResolver, state: EvalState, addr: IpNetwork, ptrName: string, ms: number, matcher: StringMatcher): Promise<IdentAnswer> {
  const ptr = await dns.lookup(ptrName, "PTR", ms);
  dependsOn(state, ptr);
  if (ptr.status === "timeout" || ptr.status === "error") return notIdentified(state, lookupFailure(ptrName, ptr));
  if (ptr.status !== "ok" || ptr.answers.length === 0) return false;
  const name = ptr.answers[0];
  const forward = await dns.lookup(name, addr.family === 4 ? "A" : "AAAA", ms);
  dependsOn(state, forward);
  if (forward.status === "timeout" || forward.status === "error") return notIdentified(state, lookupFailure(name, forward));
  if (forward.status !== "ok") return false;
  const confirmed = forward.answers.some((a) => {
    const f = parseAddress(a);
    return f !== null && f.family === addr.family && f.start === addr.start;
  });
  if (!confirmed) return false;
  return matcher(name) || matcher(name.replace(/\.+$/, ""));
}

const BUILDERS: Readonly<Record<string, Build>> = {
  always,
  hint,
  jq,
  "ip-cidr-list-url": ipCidrListUrl,
  "ip-cymru-asn": ipCymruAsn,
  "ip-cymru-bogon": ipCymruBogon,
  "ip-reverse-dns": ipReverseDns,
  localif,
  // Both read LOCAL_ADDRESSES as networks: an entry written with its prefix
  // length (192.0.2.1/24) stands for the interface and its subnet.
  "local-subnet": localif,
};

/** Every identifier type a limits file may use. */
export const IDENTIFIER_TYPES: readonly string[] = [...Object.keys(BUILDERS), "ip-cidr-list"].sort();

/**
 * The schema of each identifier type's `data`, as its builder checks it, for the
 * generated JSON Schema of limits.json: the same constants the builders use.
 */
export const IDENTIFIER_DATA: Readonly<Record<string, Schema>> = {
  always: EMPTY_DATA,
  hint: HINT_SCHEMA,
  jq: JQ_TRANSFORM,
  "ip-cidr-list": CIDR_LIST_SCHEMA,
  "ip-cidr-list-url": CIDR_URL_SCHEMA,
  "ip-cymru-asn": ASN_SCHEMA,
  "ip-cymru-bogon": BOGON_SCHEMA,
  "ip-reverse-dns": REVERSE_SCHEMA,
  localif: EMPTY_DATA,
  "local-subnet": EMPTY_DATA,
};

/** One identifier entry after the top-level schema check. */
export interface IdentifierEntry {
  name: string;
  description: string;
  type: string;
  data: Json;
  invert?: boolean;
}

/** Compiles one identifier; the error text is the load error pScheduler would raise. */
export function compileIdentifier(entry: IdentifierEntry, packed?: PackedRanges): Result<Identifier, DataError> {
  if (entry.type === "ip-cidr-list") {
    const c = ipCidrList(entry.data, packed);
    if (!c.ok) return err(c.error);
    return ok({ name: entry.name, invert: entry.invert === true, ...c.value });
  }
  const build = Object.hasOwn(BUILDERS, entry.type) ? BUILDERS[entry.type] : undefined;
  if (!build) return err(`Identifier '${entry.name}' has unsupported type '${entry.type}'`);
  const built = build(entry.data);
  if (!built.ok) return err(built.error);
  return ok({ name: entry.name, invert: entry.invert === true, evaluate: built.value });
}
