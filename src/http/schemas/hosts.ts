import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * The host routes' schemas (185 zod instances) are made by `hostSchemas()` on its first call, by
 * the first host request or the first `/v1/openapi.json` of an isolate, not at load: only those
 * routes use them, and they validate with zod's interpreter either way (docs/performance.md,
 * wt/lazyschema2).
 */
function hostSchemasBuild() {
  const num = z.number();
  const int = z.number().int();
  const names = z.array(z.string().max(256)).max(10_000);

  /**
   * The body of `PUT /v1/hosts/{name}`: one flat host object, configuration and
   * status together. The schema checks shapes; the customs engine checks bounds
   * (`invalid criterion maxLoad: 0.1 …`) and fills omitted settings from the policy.
   */
  const HostReport = z.strictObject({
    name: z.string().min(1).max(256).optional(),
    address: z.string().min(1).max(256),
    net: int.min(0).optional(),
    arch: int.min(0).optional(),
    attrs: names.optional(),
    load: num,
    swapFreePct: num,
    jobs: int.min(0),
    idleSeconds: num.optional(),
    idle: z
      .strictObject({ "1": num.optional(), "2": num.optional(), "4": num.optional(), "8": num.optional() })
      .optional(),
    freeProcs: int.optional(),
    maxLoad: num.optional(),
    minSwapPct: num.optional(),
    maxJobs: num.optional(),
    minIdleSeconds: num.optional(),
    idleCrit: num.optional(),
    minFreeProcs: num.optional(),
    bias: num.optional(),
    evictSeconds: num.optional(),
    cpuSeconds: num.optional(),
    memoryKb: num.optional(),
    nice: num.optional(),
    npri: num.optional(),
    localJobs: num.optional(),
    access: num.optional(),
    users: z.record(z.string().max(256), z.string().max(4096)).optional(),
    shells: names.optional(),
    checkSeconds: num.optional(),
    clients: z.union([z.literal("ALL"), names]).optional(),
    allow: names.optional(),
    deny: names.optional(),
    sigxcpu: z.boolean().optional(),
  });

  const Signal = z.enum(["SIGUSR2", "SIGXCPU", "SIGTERM", "SIGKILL"]);
  const Reason = z.enum([
    "AVAIL_IDLE",
    "AVAIL_SWAP",
    "AVAIL_LOAD",
    "AVAIL_IMPORTS",
    "AVAIL_PROC",
    "AVAIL_DOWN",
  ]);
  const Limits = z.strictObject({ cpuSeconds: int, memoryKb: int, nice: int, npri: int });

  /** One delivery the agent must make (or, with `cancel`, no longer make). */
  const HostInstruction = z.strictObject({
    permit: int,
    signal: Signal,
    at: z.string().describe("ISO 8601 delivery time"),
    cancel: z.literal(true).optional(),
  });

  /** The answer to a report: availability, rating, the reporting interval, job limits and signals to deliver. */
  const HostReportResponse = z.strictObject({
    available: z.boolean(),
    rating: z.number().nullable(),
    reason: Reason.optional(),
    interval: int,
    limits: Limits,
    instructions: z.array(HostInstruction),
  });

  /** The body of `POST /v1/hosts/allocate`. */
  const AllocateRequest = z.strictObject({
    client: z.string().min(1).max(256),
    net: int.min(0).optional(),
    fromAddress: z.string().min(1).max(64),
    user: z.string().min(1).max(256),
    arch: int.min(0).optional(),
    attrs: names.optional(),
    same: z.boolean().optional(),
    exclusive: z.boolean().optional(),
    uselocal: z.boolean().optional(),
  });

  /** The allocation verdict; never cacheable. */
  const AllocateResponse = z.strictObject({
    decision_id: z.string(),
    revision: z.string(),
    cacheable: z.literal(false),
    host: z.string().nullable(),
    address: z.string().nullable(),
    permit: z.strictObject({ id: int, expires_at: z.string() }).nullable(),
    limits: Limits.nullable(),
    reason: z.string().optional(),
    trace: z
      .strictObject({
        ratings: z
          .record(z.string(), z.union([z.number(), z.string()]))
          .describe(
            "per host in pool order: its customs rating, `unavailable:AVAIL_…`, or `excluded:<why>` (self, net, arch, clients, attrs, exclusive, acl, access, unknown-client, uselocal)",
          ),
      })
      .optional()
      .describe("present with ?explain=true"),
  });

  /** The answer to finishing a permit. */
  const FinishResponse = z.strictObject({ released: z.literal(true), host: z.string(), permit: int });

  /** One host of the listing. */
  const HostListingJson = z.strictObject({
    net: int.describe("the network number of the host's pool"),
    name: z.string(),
    address: z.string(),
    available: z.boolean(),
    rating: z.number().nullable(),
    reason: Reason.optional(),
    down: z.boolean(),
    jobs: int,
    pending: int,
    reported_at: z.string(),
    permits: z.array(int),
  });

  /** `GET /v1/hosts` (every network's hosts) and `GET /v1/hosts?net=N` (one network's, named as `net`): a page, and the cursor of the next. */
  const HostListResponse = z.strictObject({
    net: int.optional().describe("the network listed, when `net` was given"),
    hosts: z.array(HostListingJson),
    cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  });

  /** `GET /v1/hosts/{name}/acl?net=N`: the effective access list. */
  const HostAclResponse = z.strictObject({ host: z.string(), entries: z.array(z.string()) });

  /** `DELETE /v1/hosts/{name}`'s answer: the host removed and the permits revoked with it. */
  const HostRemoved = z.strictObject({
    removed: z.literal(true),
    host: z.string(),
    net: z.number().int(),
    revoked: z.array(z.number().int()),
  });
  return {
    HostReport,
    HostInstruction,
    HostReportResponse,
    AllocateRequest,
    AllocateResponse,
    FinishResponse,
    HostListingJson,
    HostListResponse,
    HostAclResponse,
    HostRemoved,
  };
}

/** The host routes' schemas, made on the first call and kept. */
export const hostSchemas = lazily(hostSchemasBuild);

/** See `hostSchemas().HostReport`. */
export type HostReport = z.infer<ReturnType<typeof hostSchemas>["HostReport"]>;
/** See `hostSchemas().AllocateRequest`. */
export type AllocateRequest = z.infer<ReturnType<typeof hostSchemas>["AllocateRequest"]>;
