/**
 * What a captured request keeps of the people it names, for decision logs
 * (`DECISION_LOG_REQUESTS=masked`) and the examples of comparison reports.
 * Addresses are cut to their network (/24, /48); names become pseudonyms
 * (`m_` and 12 hex digits of their SHA-256), so equal names stay equal and a
 * replay still groups one person's requests together, while the name itself is
 * not written. Everything a masked request keeps is still a valid request.
 */
import { parseIpv4, parseIpv6, formatAddress } from "../../engines/common/cidr.js";
import { isJsonObject } from "../../engines/common/json.js";
import { maskAd } from "./mask-classad.js";
import { pseudonym } from "./pseudonym.js";
import type { DecisionKind, View } from "./views.js";

/** How decision logs capture requests: not at all, masked, or as received. */
export type CaptureMode = "off" | "masked" | "full";

/** Reads `DECISION_LOG_REQUESTS`; anything unknown is `off`. */
export function captureMode(value: string | undefined): CaptureMode {
  const v = (value ?? "").trim().toLowerCase();
  return v === "masked" || v === "full" ? v : "off";
}

/** ClassAd attributes masked by default: who submitted, who runs, and free texts that often carry names or paths. */
export const DEFAULT_MASKED_ATTRIBUTES = [
  "Owner",
  "User",
  "AcctGroupUser",
  "AccountingGroup",
  "RemoteUser",
  "RemoteOwner",
  "SubmitterUser",
  "x509userproxysubject",
  "x509UserProxyEmail",
  "x509UserProxyFQAN",
  "Iwd",
  "Cmd",
  "Args",
  "Arguments",
  "Env",
  "Environment",
  "UserLog",
  "Out",
  "Err",
  "In",
] as const;

/** The masking rules in force: the ClassAd attributes to mask, lower-cased. */
export interface MaskRules {
  readonly attributes: ReadonlySet<string>;
}

/** The rules for a `DECISION_LOG_MASK_ATTRIBUTES` value (comma-separated names; unset or blank: the defaults). */
export function maskRules(attributes: string | undefined): MaskRules {
  const named = (attributes ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
  const list = named.length > 0 ? named : DEFAULT_MASKED_ATTRIBUTES;
  return { attributes: new Set(list.map((a) => a.toLowerCase())) };
}

let rulesMemo: { value: string | undefined; rules: MaskRules } | undefined;

/** `maskRules`, worked out once per distinct setting (the setting is read per request). */
export function maskRulesFor(attributes: string | undefined): MaskRules {
  if (rulesMemo === undefined || rulesMemo.value !== attributes)
    rulesMemo = { value: attributes, rules: maskRules(attributes) };
  return rulesMemo.rules;
}

/** An address cut to its network: IPv4 to the /24, IPv6 to the /48; anything else (a host name) becomes a pseudonym. */
export async function maskAddress(text: string): Promise<string> {
  const v4 = parseIpv4(text);
  if (v4 !== null) return formatAddress(4, v4 - (v4 % 256));
  const v6 = parseIpv6(text);
  if (v6 !== null) return formatAddress(6, (v6 >> 80n) << 80n);
  return pseudonym(text);
}

type Obj = Record<string, unknown>;

/** A placement name masked: the user's own name (and a queue level or group spelt like it) becomes its pseudonym. */
async function maskPlacement(request: Obj): Promise<Obj> {
  const out: Obj = { ...request };
  if (typeof request.user !== "string") return out;
  const user = request.user;
  const alias = await pseudonym(user);
  out.user = alias;
  if (Array.isArray(request.groups)) out.groups = request.groups.map((g) => (g === user ? alias : g));
  if (typeof request.queue === "string") out.queue = maskQueuePath(request.queue, user, alias);
  return out;
}

/** The levels of a queue path that name the user (as the user rule spells them: lower case, dots as `_dot_`) replaced. */
function maskQueuePath(path: string, user: string, alias: string): string {
  const own = new Set([user.toLowerCase(), user.toLowerCase().replaceAll(".", "_dot_")]);
  return path
    .split(".")
    .map((level) => (own.has(level.toLowerCase()) ? alias : level))
    .join(".");
}

/** A job submission: a free-text `comment` of an opcode becomes a pseudonym (rules never read it; people write names in it). */
async function maskJob(request: Obj): Promise<Obj> {
  if (!Array.isArray(request.opcodes)) return { ...request };
  const opcodes = await Promise.all(
    request.opcodes.map(async (op: unknown) => {
      if (!isJsonObject(op) || typeof op.comment !== "string") return op;
      return { ...op, comment: await pseudonym(op.comment) };
    }),
  );
  return { ...request, opcodes };
}

/** What a decision log can capture the request of: the compared kinds, and customs allocations. */
export type CaptureKind = DecisionKind | "customs";

/** The request of one decision with the people in it masked, by the rules of its kind (docs/operations.md). */
export async function maskRequest(kind: CaptureKind, request: unknown, rules: MaskRules): Promise<unknown> {
  if (!isJsonObject(request)) return request;
  switch (kind) {
    case "customs": {
      const out: Obj = { ...request };
      if (typeof request.user === "string") out.user = await pseudonym(request.user);
      if (typeof request.fromAddress === "string") out.fromAddress = await maskAddress(request.fromAddress);
      return out;
    }
    case "limits": {
      const out: Obj = { ...request };
      if (typeof request.requester === "string") out.requester = await maskAddress(request.requester);
      return out;
    }
    case "placement":
      return maskPlacement(request);
    case "match": {
      const out: Obj = { ...request };
      out.job = await maskAd(request.job, rules.attributes);
      if (request.schedd !== undefined) out.schedd = await maskAd(request.schedd, rules.attributes);
      if (Array.isArray(request.machines))
        out.machines = await Promise.all(request.machines.map((m) => maskAd(m, rules.attributes)));
      return out;
    }
    case "ads-check":
      return { ...request, ad: await maskAd(request.ad, rules.attributes) };
    case "jobfilter":
      return maskJob(request);
  }
}

/** A view masked like its request: a placement queue named after the user shows the user's pseudonym. */
export async function maskView(kind: DecisionKind, request: unknown, view: View): Promise<View> {
  if (
    kind !== "placement" ||
    !isJsonObject(request) ||
    typeof request.user !== "string" ||
    typeof view.queue !== "string"
  )
    return view;
  return { ...view, queue: maskQueuePath(view.queue, request.user, await pseudonym(request.user)) };
}
