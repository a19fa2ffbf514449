/**
 * The identifiers that test the requester against networks: localif and
 * local-subnet, ip-cidr-list (ranges prepared at compile time) and
 * ip-cidr-list-url (the list the scheduled refresh downloaded).
 */
import {
  buildCidrSet,
  cidrSetOf,
  parseNetwork,
  rangeOverlaps,
  type CidrSet,
  type IpNetwork,
} from "../common/cidr.js";
import { RangeSet, RangeSetBuilder, type PackedRanges } from "../common/cidr-ranges.js";
import { SCANNED, scanNetwork } from "../common/cidr-scan.js";
import { parseIsoDuration } from "../common/iso8601.js";
import { checkJsonShape, MAX_JSON_DEPTH } from "../common/json-shape.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileSpec, type DataError, type JqSpec } from "./jq-bridge.js";
import {
  ADDRESS_OR_CIDR_ANYOF,
  addressOf,
  checkData,
  emptyObject,
  requesterNetwork,
  requesterOf,
  type Build,
  type IdentAnswer,
  type Identifier,
} from "./identifier-base.js";
import { pyStringRepr } from "./python-text.js";
import { DURATION, JQ_TRANSFORM, type Schema } from "./schema.js";

/** localif and local-subnet: does the requester overlap the local addresses (LOCAL_ADDRESSES). */
export const localif: Build = (data) => {
  const e = emptyObject(data);
  if (e) return err(e);
  let cachedFor: readonly string[] | null = null;
  let set: CidrSet | null = null;
  return ok((hints, state) => {
    const net = requesterNetwork(hints);
    if (net === false || "error" in net) return net;
    if (cachedFor !== state.ctx.localAddresses) {
      cachedFor = state.ctx.localAddresses;
      set = buildCidrSet(cachedFor);
    }
    return set !== null && set.overlaps(net);
  });
};

export const CIDR_LIST_SCHEMA: Schema = {
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
    if (typeof text !== "string" || !scanNetwork(text))
      return err(checkData(CIDR_LIST_SCHEMA, data) ?? "Invalid data");
    if (SCANNED.hostBits) hostBits ??= `${text} has host bits set`;
    else b.addScanned();
  }
  return hostBits !== null ? err(hostBits) : ok(b.build());
}

/** The ip-cidr-list evaluator over a prepared set. */
function cidrListEvaluator(set: RangeSet): (hints: JsonObject) => IdentAnswer {
  return (hints) => {
    const net = requesterNetwork(hints);
    if (net === false || "error" in net) return net;
    return rangeOverlaps(set, net);
  };
}

/** Compiles an ip-cidr-list from its text (compile time), or takes its packed ranges (load time). */
export function ipCidrList(
  data: Json,
  packed: PackedRanges | undefined,
): Result<{ evaluate: Identifier["evaluate"]; ranges: RangeSet }, string> {
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

export const CIDR_URL_SCHEMA: Schema = {
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
      if (shape !== null)
        return {
          error: `an output of the transform is nested more than ${shape.limit} levels deep (the limit is ${shape.limit})`,
        };
      lines.push(JSON.stringify(o));
    }
    return { text: lines.join("\n") };
  });
}

/** Reads an ip-cidr-list-url identifier's refresh settings (data already validated). */
export function urlSourceOf(data: Json): Result<UrlSource, DataError> {
  const e = checkData(CIDR_URL_SCHEMA, data);
  if (e) return err(e);
  const d = data as unknown as {
    source: string;
    update: string;
    retry: string;
    "fail-state"?: boolean;
    transform?: JqSpec;
  };
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

/** ip-cidr-list-url: is the requester in the downloaded list and not excluded. */
export const ipCidrListUrl: Build = (data) => {
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
      if (state.ctx.explain)
        state.note = `list ${source} ${list === undefined ? "not downloaded yet" : "is empty"}; fail-state ${failState} applied`;
      return failState;
    }
    const r = requesterOf(hints);
    if (r === undefined) return false;
    const addr = addressOf(r);
    if (!addr) return { error: `Invalid IP ${pyStringRepr(r)}` };
    return list.contains(addr) && !exclude.contains(addr);
  });
};
