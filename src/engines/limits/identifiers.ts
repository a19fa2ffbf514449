/**
 * Identifiers: who is asking. Each type is compiled once into an evaluator;
 * DNS answers and downloaded lists come from the decision context. The types
 * that test networks are in identifiers-cidr.ts, those that ask DNS in
 * identifiers-dns.ts, what they share in identifier-base.ts.
 */
import { BUDGET_EXCEEDED_MESSAGE } from "../common/budget.js";
import type { PackedRanges } from "../common/cidr-ranges.js";
import type { Json } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileStringMatch, type StringMatcher, type StringMatchSpec } from "../common/string-match.js";
import { checkData, EMPTY_DATA, emptyObject, type Build, type Identifier } from "./identifier-base.js";
import { CIDR_LIST_SCHEMA, CIDR_URL_SCHEMA, ipCidrList, ipCidrListUrl, localif } from "./identifiers-cidr.js";
import {
  ASN_SCHEMA,
  BOGON_SCHEMA,
  ipCymruAsn,
  ipCymruBogon,
  ipReverseDns,
  REVERSE_SCHEMA,
} from "./identifiers-dns.js";
import { compileSpec, type CompiledJq, type DataError, type JqSpec } from "./jq-bridge.js";
import { pyStr } from "./python-text.js";
import { JQ_TRANSFORM, STRING_MATCH, type Schema } from "./schema.js";

export type { EvalState, IdentAnswer, Identifier } from "./identifier-base.js";
export { urlSourceOf, type UrlSource } from "./identifiers-cidr.js";

const always: Build = (data) => {
  const e = emptyObject(data);
  return e ? err(e) : ok(() => true);
};

const HINT_SCHEMA: Schema = {
  type: "object",
  properties: { hint: { type: "string" }, match: STRING_MATCH },
  required: ["hint", "match"],
};

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
export function compileIdentifier(
  entry: IdentifierEntry,
  packed?: PackedRanges,
): Result<Identifier, DataError> {
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
