import { Hono, type Context } from "hono";
import {
  DEFAULT_POLICY_DATA,
  loadCustomsPolicy,
  normalizeHost,
  normalizeRequest,
  prepareHost,
  prepareRequest,
  type CustomsPolicy,
  type AccessDenial,
  type CustomsPolicyData,
} from "../../engines/customs/index.js";
import type { PolicyError } from "../../engines/common/result.js";
import {
  allocationAnswer,
  reportAnswer,
  type HostPool,
  type OnceAllocation,
  type PoolPolicy,
} from "../../state/host-pool.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { authorize, type Role } from "../auth.js";
import { parseJsonText, readJson, readJsonText, validate } from "../body.js";
import { idempotencyKey, idempotencyRequest, keyReusedMessage } from "../idempotency.js";
import { elapsedMs, newDecisionId, wantsExplain } from "../decision.js";
import { logDecisionCapturing } from "../capture.js";
import { meteredStub, recordDecision } from "../metrics.js";
import type { AppEnv, Env } from "../../env.js";
import { ApiError, type ErrorCode } from "../errors.js";
import { EXPLAIN_QUERY, IDEMPOTENCY_HEADER, NET_QUERY, registerOperation } from "../openapi.js";
import { admit } from "../overload.js";
import {
  allNetsPage,
  HOST_PAGE_DEFAULT,
  HOST_PAGE_MAX,
  netPage,
  POOLS_PER_PAGE,
  type PoolPage,
} from "../host-listing.js";
import { writeLog } from "../../log-line.js";
import { hostSchemas } from "../schemas/hosts.js";

const builtin = loadCustomsPolicy(DEFAULT_POLICY_DATA);

/** The Durable Object of one network number: every host of that network and its round robin. */
export function poolStub(env: Env, net: number): DurableObjectStub<HostPool> {
  return meteredStub(
    env.HOST_POOL.get(env.HOST_POOL.idFromName(String(net))),
    "HostPool",
  ) as unknown as DurableObjectStub<HostPool>;
}

/** Calls the pool of one network, counted against OBJECT_MAX_PENDING (a 503 `overloaded` past it). */
async function inPool<T>(
  env: Env,
  net: number,
  call: (stub: DurableObjectStub<HostPool>) => Promise<T>,
): Promise<T> {
  const release = admit(env, `pool:${net}`);
  try {
    return await call(poolStub(env, net));
  } finally {
    release();
  }
}

/** The active customs policy: the compiled data for the pool and the loaded form for validation here (also what `GET /metrics` counts pools with). */
export async function activePolicy(env: Env): Promise<{ pool: PoolPolicy; policy: CustomsPolicy }> {
  const bundle = await getActiveBundle(env);
  const data = bundle.bundle.engines.customs?.compiled as CustomsPolicyData | undefined;
  if (data === undefined)
    return { pool: { revision: bundle.revision, data: DEFAULT_POLICY_DATA }, policy: builtin };
  return {
    pool: { revision: bundle.revision, data },
    policy: bundle.policy<CustomsPolicy>("customs") ?? builtin,
  };
}

function fail(code: ErrorCode, errors: PolicyError[]): never {
  throw new ApiError(
    code,
    errors[0]?.message ?? "invalid",
    errors.map((e) => ({ code: e.code, message: e.message, at: e.at })),
  );
}

function netParam(c: Context<AppEnv>): number {
  const raw = c.req.query("net") ?? "0";
  if (!/^(0|[1-9]\d{0,9})$/.test(raw))
    throw new ApiError("invalid_request", `\`net\`: \`${raw}\` is not a network number`);
  return Number(raw);
}

/** `limit`: hosts per page, 1 to HOST_PAGE_MAX (absent: HOST_PAGE_DEFAULT); a 400 naming it otherwise. */
function pageLimit(text: string | undefined): number {
  if (text === undefined) return HOST_PAGE_DEFAULT;
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= HOST_PAGE_MAX))
    throw new ApiError(
      "invalid_request",
      `\`limit\` must be an integer from 1 to ${HOST_PAGE_MAX}, not \`${text}\``,
    );
  return n;
}

function authorizeAny(c: Context<AppEnv>, roles: Role[]): void {
  let last: unknown;
  for (const role of roles) {
    try {
      return authorize(c, role);
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

const iso = (ms: number) => new Date(ms).toISOString();

registerOperation({
  operationId: "reportHost",
  method: "put",
  path: "/v1/hosts/{name}",
  summary:
    "A host agent's report (and registration): availability, rating, job limits and eviction signals to deliver",
  tag: "hosts",
  auth: "agent",
  request: () => hostSchemas().HostReport,
  response: () => hostSchemas().HostReportResponse,
  errors: ["invalid_host_report"],
});
registerOperation({
  operationId: "allocateHost",
  method: "post",
  path: "/v1/hosts/allocate",
  summary: "Pick the best available host for a remote job and issue its permit (never cacheable)",
  tag: "hosts",
  auth: "decision",
  request: () => hostSchemas().AllocateRequest,
  response: () => hostSchemas().AllocateResponse,
  headers: [IDEMPOTENCY_HEADER],
  query: [EXPLAIN_QUERY],
});
registerOperation({
  operationId: "finishPermit",
  method: "post",
  path: "/v1/hosts/{name}/permits/{id}/finish",
  summary: "Release a permit when its job ends (query `net`, default 0)",
  tag: "hosts",
  auth: "agent",
  response: () => hostSchemas().FinishResponse,
  query: [NET_QUERY],
  errors: ["invalid_request", "permit_not_found"],
});
registerOperation({
  operationId: "listHosts",
  method: "get",
  path: "/v1/hosts",
  summary: `Every host of every network's pool (customs' \`reginfo\`), each naming its network, with availability, the reason when unavailable, rating, jobs, permits and last report; \`net\` lists one network. Paged: at most \`limit\` hosts and ${POOLS_PER_PAGE} pools asked per request, networks in the pool registry's order, hosts in registration order`,
  tag: "hosts",
  auth: "decision",
  response: () => hostSchemas().HostListResponse,
  query: [
    {
      ...NET_QUERY,
      description:
        "only this network's hosts (the answer then names it as `net`); every network's when absent",
    },
    {
      name: "limit",
      description: `hosts per page, 1 to ${HOST_PAGE_MAX} (default ${HOST_PAGE_DEFAULT})`,
      schema: { type: "string", pattern: "^[0-9]{1,16}$" },
    },
    {
      name: "cursor",
      description: "the `cursor` of the previous page (with the same `net`, or none)",
      schema: { type: "string" },
    },
  ],
  errors: ["invalid_request"],
  example: {
    hosts: [
      {
        net: 0,
        name: "h21",
        address: "10.0.0.21",
        available: true,
        rating: 199,
        down: false,
        jobs: 0,
        pending: 1,
        reported_at: "2026-11-22T06:00:00.000Z",
        permits: [7],
      },
      {
        net: 0,
        name: "ws0",
        address: "10.0.0.13",
        available: false,
        rating: null,
        reason: "AVAIL_IDLE",
        down: false,
        jobs: 1,
        pending: 0,
        reported_at: "2026-11-22T06:00:00.000Z",
        permits: [],
      },
      {
        net: 7,
        name: "ws9",
        address: "10.7.0.19",
        available: false,
        rating: null,
        reason: "AVAIL_DOWN",
        down: true,
        jobs: 0,
        pending: 0,
        reported_at: "2026-11-22T05:58:10.000Z",
        permits: [],
      },
    ],
    cursor: null,
  },
});
registerOperation({
  operationId: "hostAcl",
  method: "get",
  path: "/v1/hosts/{name}/acl",
  summary: "A host's effective access list (customs' acl debugging call; query `net`, default 0)",
  tag: "hosts",
  auth: "decision",
  response: () => hostSchemas().HostAclResponse,
  query: [NET_QUERY],
  errors: ["invalid_request", "host_not_found"],
});

registerOperation({
  operationId: "removeHost",
  method: "delete",
  path: "/v1/hosts/{name}",
  summary:
    "Remove a host from its network's pool (query `net`, default 0): its permits are revoked and it is not selected until it reports again",
  tag: "hosts",
  auth: "admin",
  response: () => hostSchemas().HostRemoved,
  query: [NET_QUERY],
  errors: ["invalid_request", "host_not_found"],
  example: { removed: true, host: "h21", net: 0, revoked: [7] },
});

/** The host pool API: agent reports, allocations, permit release, listings. */
export const hostRoutes = new Hono<AppEnv>()
  .post("/v1/hosts/allocate", async (c) => {
    const started = Date.now();
    authorize(c, "decision");
    const key = idempotencyKey(c);
    const text = await readJsonText(c);
    const body = validate(hostSchemas().AllocateRequest, parseJsonText(text));
    const checked = normalizeRequest(body);
    if (!checked.ok) fail("invalid_request", checked.error);
    const prepared = prepareRequest(checked.value);
    if (!prepared.ok) fail("invalid_request", prepared.error);
    const { pool } = await activePolicy(c.env);
    const now = Date.now();
    const stub = poolStub(c.env, checked.value.net);
    const explain = wantsExplain(c);
    const envelope = { decision_id: newDecisionId(), revision: pool.revision };
    let answer: ReturnType<typeof allocationAnswer>;
    let accessDenied: AccessDenial[] = [];
    const release = admit(c.env, `pool:${checked.value.net}`);
    try {
      if (key === undefined) {
        const result = await stub.allocate(pool, checked.value, now, explain);
        answer = allocationAnswer(result, envelope, explain);
        accessDenied = result.accessDenied;
      } else {
        const idem = await idempotencyRequest(key, "hosts.allocate", text);
        const once = (await stub.allocateOnce(
          pool,
          checked.value,
          now,
          idem,
          envelope,
          explain,
        )) as OnceAllocation;
        if ("mismatch" in once) throw new ApiError("idempotency_key_reused", keyReusedMessage(key));
        answer = once.answer as ReturnType<typeof allocationAnswer>;
        if (once.replayed) {
          c.header("Idempotent-Replayed", "true");
          return c.json(answer);
        }
        accessDenied = once.accessDenied ?? [];
      }
    } finally {
      release();
    }
    // customs' access log, one JSON object per refusal: the user name is the client's to choose, so never plain text.
    for (const d of accessDenied)
      writeLog({
        ts: iso(now),
        event: "access_denied",
        user: d.user,
        host: d.host,
        client: d.client,
        net: checked.value.net,
      });
    const entry = {
      decision_id: answer.decision_id,
      engine: "customs",
      revision: pool.revision,
      outcome: answer.host === null ? "no_host" : "allocated",
      ms: elapsedMs(started),
    };
    recordDecision(c.env, entry);
    logDecisionCapturing(c, entry, () => ({ kind: "customs", text }));
    return c.json(answer);
  })
  .put("/v1/hosts/:name", async (c) => {
    authorize(c, "agent");
    const name = c.req.param("name");
    const body = await readJson(c, hostSchemas().HostReport);
    if (body.name !== undefined && body.name !== name) {
      throw new ApiError(
        "invalid_request",
        `\`name\`: the body names \`${body.name}\` but the path \`${name}\``,
      );
    }
    const { pool, policy } = await activePolicy(c.env);
    const host = normalizeHost({ ...body, name }, policy.defaultsFor(body.net ?? 0));
    if (!host.ok) fail("invalid_host_report", host.error);
    const prepared = prepareHost(host.value);
    if (!prepared.ok) fail("invalid_host_report", prepared.error);
    const result = await inPool(c.env, host.value.net, (stub) => stub.report(pool, host.value, Date.now()));
    return c.json(reportAnswer(result));
  })
  .post("/v1/hosts/:name/permits/:id/finish", async (c) => {
    authorizeAny(c, ["agent", "decision"]);
    const name = c.req.param("name");
    const idText = c.req.param("id");
    if (!/^[1-9]\d{0,14}$/.test(idText))
      throw new ApiError("invalid_request", `\`id\`: \`${idText}\` is not a permit id`);
    const id = Number(idText);
    const released = await inPool(c.env, netParam(c), (stub) => stub.finish(name, id, Date.now()));
    if (!released) throw new ApiError("permit_not_found", `no permit \`${id}\` on host \`${name}\``);
    return c.json({ released: true as const, host: name, permit: id });
  })
  .get("/v1/hosts", async (c) => {
    authorize(c, "decision");
    const net = c.req.query("net") === undefined ? undefined : netParam(c);
    const limit = pageLimit(c.req.query("limit"));
    const cursor = c.req.query("cursor") || undefined;
    const { pool } = await activePolicy(c.env);
    const now = Date.now();
    const page: PoolPage = (n, after, room) =>
      inPool(c.env, n, (stub) => stub.listPage(pool, now, after, room));
    return c.json(
      net === undefined
        ? await allNetsPage(c.env, limit, cursor, page)
        : await netPage(net, limit, cursor, page),
    );
  })
  .delete("/v1/hosts/:name", async (c) => {
    authorize(c, "admin");
    const name = c.req.param("name");
    const net = netParam(c);
    const removed = await inPool(c.env, net, (stub) => stub.remove(name, Date.now()));
    if (removed === null) throw new ApiError("host_not_found", `no host \`${name}\` on this network`);
    writeLog({
      ts: new Date().toISOString(),
      event: "host_removed",
      host: name,
      net,
      revoked: removed.revoked,
    });
    return c.json({ removed: true as const, host: name, net, revoked: removed.revoked });
  })
  .get("/v1/hosts/:name/acl", async (c) => {
    authorize(c, "decision");
    const name = c.req.param("name");
    const entries = await inPool(c.env, netParam(c), (stub) => stub.acl(name));
    if (entries === null) throw new ApiError("host_not_found", `no host \`${name}\` on this network`);
    return c.json({ host: name, entries });
  });
