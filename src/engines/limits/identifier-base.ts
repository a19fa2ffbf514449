/**
 * What every identifier type shares: the evaluator's per-decision state, the
 * compiled identifier's shape, the data check, and the requester parsed once.
 */
import { parseAddress, parseNetwork, type IpNetwork } from "../common/cidr.js";
import type { RangeSet } from "../common/cidr-ranges.js";
import { scanNetwork } from "../common/cidr-scan.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import type { LimitsContext } from "./context.js";
import type { DataError } from "./jq-bridge.js";
import { pyStr, pyStringRepr } from "./python-text.js";
import { NOT_A_DICTIONARY, firstError, schemaErrorText, type Schema } from "./schema.js";

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

/** Compiles one identifier type's `data` into its evaluator, or says why it cannot. */
export type Build = (
  data: Json,
) => Result<(hints: JsonObject, state: EvalState) => IdentAnswer | Promise<IdentAnswer>, DataError>;

/** Checks `data` against an identifier's schema; the error in pScheduler's words, or null. */
export function checkData(schema: Schema, data: Json): string | null {
  if (!isJsonObject(data)) return NOT_A_DICTIONARY;
  const e = firstError(schema, data);
  return e ? `Invalid data: ${schemaErrorText(e)}` : null;
}

/** IPCIDR or IPAddress: an anyOf, so a bad entry gets jsonschema's anyOf message. */
export const ADDRESS_OR_CIDR_ANYOF: Schema = {
  anyOf: [
    {
      check: (v) => (typeof v === "string" && scanNetwork(v) ? null : "invalid"),
      json: { type: "string", description: "an IP address or CIDR" },
    },
  ],
};
export const CIDR_ONLY: Schema = {
  anyOf: [
    {
      check: (v) => (typeof v === "string" && v.includes("/") && parseNetwork(v) ? null : "invalid"),
      json: { type: "string", pattern: "/", description: "a CIDR" },
    },
  ],
};
/** The data of `always` and `localif`: an empty object (checked by `emptyObject`, in pScheduler's words). */
export const EMPTY_DATA: Schema = { type: "object", additionalProperties: false };

/** Parses CIDR texts strictly (host bits are a load error, as Python's ip_network says). */
export function strictNetworks(list: readonly string[]): Result<IpNetwork[], string> {
  const out: IpNetwork[] = [];
  for (const text of list) {
    const n = parseNetwork(text);
    if (!n) return err(`${pyStringRepr(text)} does not appear to be an IPv4 or IPv6 network`);
    if (n.hostBits) return err(`${text} has host bits set`);
    out.push(n);
  }
  return ok(out);
}

/** Checks that `data` is an empty object, as `always` and `localif` require. */
export function emptyObject(data: Json): string | null {
  return isJsonObject(data) && Object.keys(data).length === 0
    ? null
    : "Invalid data: Data is not an object or not empty.";
}

/** The request's `requester` hint as Python's str() writes it, if given. */
export function requesterOf(hints: JsonObject): string | undefined {
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
export function addressOf(text: string): IpNetwork | null {
  if (text !== addrText) {
    addrParsed = parseAddress(text);
    addrText = text;
  }
  return addrParsed;
}

/** The requester as a network (localif, ip-cidr-list): false without one, Python's ip_network error for a bad one. */
export function requesterNetwork(hints: JsonObject): IpNetwork | false | { error: string } {
  const r = requesterOf(hints);
  if (r === undefined) return false;
  const net = networkOf(r);
  if (!net) return { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 network` };
  if (net.hostBits) return { error: `${r} has host bits set` };
  return net;
}

/** The requester as an address (ip-cymru-bogon, ip-reverse-dns): false without one, Python's ip_address error for a bad one. */
export function requesterAddress(hints: JsonObject): IpNetwork | false | { error: string } {
  const r = requesterOf(hints);
  if (r === undefined) return false;
  return addressOf(r) ?? { error: `${pyStringRepr(r)} does not appear to be an IPv4 or IPv6 address` };
}
