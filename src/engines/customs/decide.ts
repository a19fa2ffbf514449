import { isJsonObject } from "../common/json.js";
import { policyError, type PolicyError, type Result } from "../common/result.js";
import { normalizeHost } from "./host.js";
import type { CustomsPolicy } from "./policy.js";
import { prepareHost, prepareRequest, type PreparedHost } from "./prepare.js";
import { normalizeRequest } from "./request.js";
import { selectHost } from "./select.js";
import type { AccessDenial } from "./types.js";

/** The answer of the pure decision: the chosen host and every host's rating or reason. */
export interface CustomsDecision {
  readonly host: string | null;
  readonly ratings: Record<string, number | string>;
  /** Refusals by access level 3 hosts (present only when there were some), for the log. */
  readonly accessDenied?: readonly AccessDenial[];
}

const INPUT_KEYS = new Set(["hosts", "request", "now", "last"]);

/** Validates and prepares a list of host objects in scan order; names must be unique. */
export function preparePool(
  policy: CustomsPolicy,
  hosts: unknown,
  at = "/hosts",
): Result<PreparedHost[], PolicyError[]> {
  if (!Array.isArray(hosts))
    return {
      ok: false,
      error: [policyError("customs_invalid_field", "invalid field hosts: expected a list of hosts", at)],
    };
  const errors: PolicyError[] = [];
  const pool: PreparedHost[] = [];
  const seen = new Set<string>();
  hosts.forEach((raw, i) => {
    const net = isJsonObject(raw) && typeof raw.net === "number" ? raw.net : 0;
    const host = normalizeHost(raw, policy.defaultsFor(net), `${at}/${i}`);
    if (!host.ok) return void errors.push(...host.error);
    if (seen.has(host.value.name))
      return void errors.push(
        policyError("customs_duplicate_host", `duplicate host \`${host.value.name}\``, `${at}/${i}/name`),
      );
    seen.add(host.value.name);
    const prepared = prepareHost(host.value, `${at}/${i}`);
    if (!prepared.ok) return void errors.push(...prepared.error);
    pool.push(prepared.value);
  });
  return errors.length > 0 ? { ok: false, error: errors } : { ok: true, value: pool };
}

/**
 * The whole customs decision as a pure function of its inputs: hosts in scan
 * order, the request, the clock (for down detection) and the round-robin
 * position (`last`, the host allocated last); the chosen host is the new position.
 */
export function decideCustoms(
  policy: CustomsPolicy,
  input: unknown,
  now?: number,
): Result<CustomsDecision, PolicyError[]> {
  if (!isJsonObject(input))
    return {
      ok: false,
      error: [
        policyError("customs_invalid_input", "the input must be an object {hosts, request, now?, last?}", ""),
      ],
    };
  const unknown = Object.keys(input).filter((k) => !INPUT_KEYS.has(k));
  if (unknown.length > 0)
    return {
      ok: false,
      error: unknown.map((k) => policyError("customs_unknown_field", `unknown field ${k}`, `/${k}`)),
    };
  const clock = typeof input.now === "number" ? input.now : now;
  if (input.now !== undefined && typeof input.now !== "number")
    return {
      ok: false,
      error: [policyError("customs_invalid_field", "invalid field now: expected epoch milliseconds", "/now")],
    };
  if (input.last !== undefined && input.last !== null && typeof input.last !== "string") {
    return {
      ok: false,
      error: [
        policyError("customs_invalid_field", "invalid field last: expected a host name or null", "/last"),
      ],
    };
  }
  const pool = preparePool(policy, input.hosts);
  const request = normalizeRequest(input.request, "/request");
  if (!pool.ok || !request.ok)
    return { ok: false, error: [...(pool.ok ? [] : pool.error), ...(request.ok ? [] : request.error)] };
  const prepared = prepareRequest(request.value, "/request");
  if (!prepared.ok) return prepared;
  const last = typeof input.last === "string" ? pool.value.findIndex((p) => p.host.name === input.last) : -1;
  const sel = selectHost(pool.value, prepared.value, {
    now: clock,
    downFactor: policy.downFactor,
    last,
    ratings: true,
  });
  return {
    ok: true,
    value: {
      host: sel.index >= 0 ? pool.value[sel.index].host.name : null,
      ratings: sel.ratings ?? {},
      ...(sel.audit.length > 0 ? { accessDenied: sel.audit } : {}),
    },
  };
}
