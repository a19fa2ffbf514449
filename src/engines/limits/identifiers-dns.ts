/**
 * The identifiers that ask DNS: ip-cymru-bogon, ip-cymru-asn and
 * ip-reverse-dns. Each notes the answers it consulted, whose TTLs bound how
 * long the verdict may be cached.
 */
import { cidrSetOf, parseAddress, type IpNetwork } from "../common/cidr.js";
import { parseIsoDuration } from "../common/iso8601.js";
import { err, ok } from "../common/result.js";
import { compileStringMatch, type StringMatcher, type StringMatchSpec } from "../common/string-match.js";
import type { DnsAnswer, DnsResolver } from "./context.js";
import {
  checkData,
  CIDR_ONLY,
  requesterAddress,
  requesterOf,
  strictNetworks,
  type Build,
  type EvalState,
  type IdentAnswer,
} from "./identifier-base.js";
import { DURATION, STRING_MATCH, type Schema } from "./schema.js";

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

export const BOGON_SCHEMA: Schema = {
  type: "object",
  properties: {
    exclude: { type: "array", items: CIDR_ONLY },
    timeout: DURATION,
    "fail-result": { type: "boolean" },
  },
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
  const why =
    answer !== undefined && answer.status === "ok" ? `no record for ${name}` : lookupFailure(name, answer);
  state.note = `${why}; fail-result ${failResult} applied`;
  return failResult;
}

/** ip-cymru-bogon: is the requester in Team Cymru's full bogon list. */
export const ipCymruBogon: Build = (data) => {
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
    const addr = requesterAddress(hints);
    if (addr === false || "error" in addr) return addr;
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
      if (answer.status !== "ok" || answer.answers.length === 0)
        return failed(state, name, answer, failResult);
      if (answer.answers[0] !== "127.0.0.2") return false;
      return !exclude.contains(addr);
    });
  });
};

export const ASN_SCHEMA: Schema = {
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
    if (v >> 32n === 0xffffn)
      return reverseLabels({ ...a, family: 4, start: Number(v & 0xffffffffn) } as IpNetwork);
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

/** ip-cymru-asn: is the requester announced by one of the listed ASNs. */
export const ipCymruAsn: Build = (data) => {
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
      if (answer.status !== "ok" || answer.answers.length === 0)
        return failed(state, name, answer, failResult);
      return asnsOf(answer.answers[0]).some((n) => asns.has(n));
    });
  });
};

export const REVERSE_SCHEMA: Schema = {
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

/** ip-reverse-dns: does the requester's confirmed PTR name match. */
export const ipReverseDns: Build = (data) => {
  const e = checkData(REVERSE_SCHEMA, data);
  if (e) return err(e);
  const d = data as unknown as { match: StringMatchSpec; timeout: string };
  const m = compileStringMatch(d.match);
  if (!m.ok) return err(m.error);
  const matcher = m.value;
  const ms = timeoutMs(d.timeout, 2000);
  return ok((hints, state) => {
    const addr = requesterAddress(hints);
    if (addr === false || "error" in addr) return addr;
    const dns = state.ctx.dns;
    const ptrName = `${reverseLabels(addr).join(".")}.${addr.family === 4 ? "in-addr.arpa" : "ip6.arpa"}`;
    // ip-reverse-dns has no fail-result: a failed lookup is "not identified", as in pScheduler.
    if (!dns) return (dependsOn(state, undefined), notIdentified(state, lookupFailure(ptrName, undefined)));
    return confirmedName(dns, state, addr, ptrName, ms, matcher);
  });
};

/** ip-reverse-dns's lookups: the PTR name, confirmed by a forward lookup, then matched. */
async function confirmedName(
  dns: DnsResolver,
  state: EvalState,
  addr: IpNetwork,
  ptrName: string,
  ms: number,
  matcher: StringMatcher,
): Promise<IdentAnswer> {
  const ptr = await dns.lookup(ptrName, "PTR", ms);
  dependsOn(state, ptr);
  if (ptr.status === "timeout" || ptr.status === "error")
    return notIdentified(state, lookupFailure(ptrName, ptr));
  if (ptr.status !== "ok" || ptr.answers.length === 0) return false;
  const name = ptr.answers[0];
  const forward = await dns.lookup(name, addr.family === 4 ? "A" : "AAAA", ms);
  dependsOn(state, forward);
  if (forward.status === "timeout" || forward.status === "error")
    return notIdentified(state, lookupFailure(name, forward));
  if (forward.status !== "ok") return false;
  const confirmed = forward.answers.some((a) => {
    const f = parseAddress(a);
    return f !== null && f.family === addr.family && f.start === addr.start;
  });
  if (!confirmed) return false;
  return matcher(name) || matcher(name.replace(/\.+$/, ""));
}
