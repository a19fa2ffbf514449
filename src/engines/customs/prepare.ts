import type { PolicyError } from "../common/result.js";
import type { IpNetwork } from "../common/cidr.js";
import { hostAccessList, invalidAddressError, parseAclAddress, type AccessList } from "./acl.js";
import { compileAttrs, type AttrExpr } from "./attrs.js";
import { availability } from "./avail.js";
import type { Availability, Host, HostRequest } from "./types.js";

/**
 * A host ready for selection: its attribute set, client set and access list
 * built once per report, and its availability computed once per report (and
 * again when an allocation raises its job count).
 */
export interface PreparedHost {
  readonly host: Host;
  readonly attrSet: ReadonlySet<string>;
  /** null when the host serves ALL clients. */
  readonly clientSet: ReadonlySet<string> | null;
  readonly acl: AccessList;
  readonly shellSet: ReadonlySet<string>;
  avail: Availability;
}

/** A request with its attribute expression compiled and its address parsed. */
export interface PreparedRequest {
  readonly request: HostRequest;
  readonly attrs: AttrExpr;
  readonly from: IpNetwork;
}

/** Client sets by list: hosts taking the policy's `clients` share one set. */
const CLIENT_SETS = new WeakMap<readonly string[], ReadonlySet<string>>();

function clientSetOf(clients: readonly string[]): ReadonlySet<string> {
  let set = CLIENT_SETS.get(clients);
  if (set === undefined) CLIENT_SETS.set(clients, (set = new Set(clients)));
  return set;
}

/** Builds the per-report indexes of a validated host; fails only on a bad access-list entry. */
export function prepareHost(
  host: Host,
  at = "",
): { ok: true; value: PreparedHost } | { ok: false; error: PolicyError[] } {
  // hosts stored before `networks` existed have none: their lists start empty
  const networks = host.networks ?? [];
  const acl = hostAccessList(networks, host.allow, host.deny);
  if (!acl.ok) {
    const field = acl.field === "allow" && acl.index < networks.length ? "networks" : acl.field;
    const index = field === "allow" ? acl.index - networks.length : acl.index;
    return { ok: false, error: [invalidAddressError(field, acl.text, `${at}/${field}/${index}`, "network")] };
  }
  return {
    ok: true,
    value: {
      host,
      attrSet: new Set(host.attrs),
      clientSet: host.clients === "ALL" ? null : clientSetOf(host.clients),
      acl: acl.list,
      shellSet: new Set(host.shells ?? []),
      avail: availability(host),
    },
  };
}

/** Compiles a request once: its attribute expression and its client address. */
export function prepareRequest(
  request: HostRequest,
  at = "",
): { ok: true; value: PreparedRequest } | { ok: false; error: PolicyError[] } {
  const from = parseAclAddress(request.fromAddress);
  if (from === null) {
    const error = invalidAddressError("fromAddress", request.fromAddress, `${at}/fromAddress`, "address");
    return { ok: false, error: [error] };
  }
  return { ok: true, value: { request, attrs: compileAttrs(request.attrs), from } };
}

/**
 * The host as seen after allocations since its last report: each permit issued
 * since counts as one more imported job, so the rating drops (and the host can
 * reach its maximum) before the agent's next report says so.
 */
export function withJobs(p: PreparedHost, jobs: number): PreparedHost {
  if (jobs === p.host.jobs) return p;
  const host = { ...p.host, jobs };
  return { ...p, host, avail: availability(host) };
}
