/**
 * One example request per documented operation, keyed by operationId, for
 * test/worker/openapi-routes.test.ts: a route added to the OpenAPI document
 * without a row here fails that test. A row gives the concrete path (with its
 * query string), the body, and the status the example answers with (200 unless
 * said). `{name}` placeholders in a path are filled from what `vars` returns, for
 * routes that need something to exist first (a filter rule, a job, a permit).
 * Names and ids are this file's own: workerd state is shared by the test files.
 */
import { SELF } from "cloudflare:test";

const BASE = "http://arbiter.test";

/** One example request of an operation. */
export interface RouteExample {
  path: string;
  /** A JSON body, or a function of the placeholder values giving one. */
  body?: unknown;
  /** A text body (policy sources), or a function of the placeholder values giving one. */
  text?: string | ((vars: Record<string, string>) => string);
  status?: number;
  /** Creates what the request needs and returns the path's placeholder values. */
  vars?: () => Promise<Record<string, string>>;
}

/** Sends a request whose answer a `vars` step needs; fails loudly when it does not succeed. */
async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await SELF.fetch(BASE + path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text === "" ? null : JSON.parse(text);
}

let counter = 0;
/** A job id no other example of this file uses. */
const jobId = () => 7_700_000 + ++counter;

const rule = {
  priority: 5,
  predicates: [["jobid", [">", "id", "watermark"]]],
  action: "CONTINUE",
  reason: [["openapi-test", "example", 1]],
};
const job = (id: number) => ({ id, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", instance_name: "web1" }] });
/** An idle host on network 77, available under the default customs criteria. */
const host = { address: "10.77.0.1", net: 77, load: 0, swapFreePct: 50, jobs: 0, idleSeconds: 2000 };

const filterRows = (base: string): Record<string, RouteExample> => {
  const suffix = base === "/2/filters" ? "Filter" : "QueueFilter";
  const newRule = async () => ({ uuid: (await call("POST", base, rule)) as string });
  return {
    [`list${suffix}s`]: { path: `${base}?bulk=1` },
    [`add${suffix}`]: { path: base, body: rule },
    [`get${suffix}`]: { path: `${base}/{uuid}`, vars: newRule },
    [`replace${suffix}`]: { path: `${base}/{uuid}`, body: { ...rule, action: "ACCEPT" }, vars: newRule },
    [`delete${suffix}`]: { path: `${base}/{uuid}`, vars: newRule },
  };
};

/** Stages the active placement policy as the candidate (so the candidate routes have one to answer about). */
async function stageSameCandidate(): Promise<Record<string, string>> {
  const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
  const res = await SELF.fetch(`${BASE}/v1/policies/placement?stage=candidate`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: source,
  });
  if (res.status !== 200) throw new Error(`staging answered ${res.status}: ${await res.text()}`);
  return {};
}

/** The example rows, by operationId. */
export const ROUTE_EXAMPLES: Record<string, RouteExample> = {
  health: { path: "/healthz" },
  status: { path: "/v1/status" },
  openApiDocument: { path: "/v1/openapi.json" },
  metrics: { path: "/metrics" },
  getPolicySchema: { path: "/v1/schemas/limits.json" },

  listPolicies: { path: "/v1/policies" },
  getPolicy: { path: "/v1/policies/placement" },
  publishPolicy: {
    path: "/v1/policies/placement",
    vars: async () => ({ source: await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text() }),
    text: (v) => v.source,
  },
  policyHistory: { path: "/v1/policies/history?limit=5" },
  rollbackPolicy: {
    // Rolling back to the active revision: kept (the embedded one, or a publish the history names).
    path: "/v1/policies/rollback",
    vars: async () => ({
      revision: ((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { revision: string }).revision,
    }),
    body: (v: Record<string, string>) => ({ revision: v.revision }),
  },
  validatePolicy: {
    path: "/v1/policies/placement/validate",
    vars: async () => ({ source: await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text() }),
    text: (v) => `${v.source}\n# validated, not published\n`,
  },
  lintPolicy: {
    path: "/v1/policies/placement/lint",
    vars: async () => ({ source: await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text() }),
    text: (v) => v.source,
  },
  diffPolicy: {
    path: "/v1/policies/placement/diff",
    vars: async () => ({ source: await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text() }),
    body: (v: Record<string, string>) => ({ old: v.source, new: v.source }),
  },

  // The candidate rows stage the active placement source unchanged: shadow evaluation of the
  // other files' placement decisions then agrees, and a promotion changes no verdict.
  getCandidate: { path: "/v1/candidate", vars: stageSameCandidate },
  dropCandidate: { path: "/v1/candidate", vars: stageSameCandidate },
  promoteCandidate: { path: "/v1/candidate/promote", vars: stageSameCandidate },
  candidateReport: { path: "/v1/candidate/report", vars: stageSameCandidate },

  placementQueues: { path: "/v1/placement/queues?partition=default" },
  placeApplication: {
    path: "/v1/place?explain=true",
    body: { user: "openapi", groups: ["dev_app"], tags: { namespace: "newapp" } },
  },
  decideLimits: {
    path: "/v1/limits/decide?explain=true",
    body: {
      requester: "203.0.113.7",
      task: {
        schema: 1,
        test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } },
      },
    },
  },
  urlFetchLimits: {
    path: `/v1/limits/url-fetch?task=${encodeURIComponent(JSON.stringify({ schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1" } } }))}&requester=203.0.113.7`,
  },
  matchJob: {
    path: "/v1/match?explain=true",
    body: {
      job: '[ Requirements = TARGET.Memory >= 1024; Rank = TARGET.Memory; Owner = "alice" ]',
      machines: [
        '[ Name = "slot1"; Memory = 2048; Requirements = true ]',
        '[ Name = "slot2"; Memory = 512; Requirements = true ]',
      ],
    },
  },
  analyzeMatch: {
    path: "/v1/match/analyze",
    body: {
      job: '[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory; Owner = "alice" ]',
      machines: [
        '[ Name = "slot1"; Memory = 2048; Requirements = true ]',
        '[ Name = "slot2"; Memory = 512; Requirements = true ]',
      ],
    },
  },
  checkAd: {
    path: "/v1/ads/check?explain=true",
    body: { kind: "startd", ad: '[ Name = "slot1"; Memory = 2048 ]' },
  },

  ...filterRows("/2/filters"),
  ...filterRows("/v1/queues/openapi/filters"),

  submitJob: {
    path: "/v1/queues/openapi/jobs?explain=true",
    vars: async () => ({ id: String(jobId()) }),
    body: (v: Record<string, string>) => job(Number(v.id)),
  },
  getJob: {
    path: "/v1/queues/openapi/jobs/{id}?explain=true",
    vars: async () => {
      const id = jobId();
      await call("POST", "/v1/queues/openapi/jobs", job(id));
      return { id: String(id) };
    },
  },
  heartbeatJob: {
    path: "/v1/queues/openapi/jobs/{id}/heartbeat",
    body: {},
    vars: async () => {
      const id = jobId();
      await call("POST", "/v1/queues/openapi/jobs", job(id));
      return { id: String(id) };
    },
  },
  finishJob: {
    path: "/v1/queues/openapi/jobs/{id}/finish",
    vars: async () => {
      const id = jobId();
      await call("POST", "/v1/queues/openapi/jobs", job(id));
      return { id: String(id) };
    },
  },
  scheduleQueue: {
    path: "/v1/queues/openapi/schedule",
    vars: async () => {
      const id = jobId();
      await call("POST", "/v1/queues/openapi/jobs", job(id));
      return { id: String(id) };
    },
    body: (v: Record<string, string>) => ({ queued: [Number(v.id)] }),
  },

  listQueues: {
    path: "/v1/queues?limit=10",
    vars: async () => {
      await call("POST", "/v1/queues/openapi/jobs", job(jobId()));
      return {};
    },
  },
  listJobs: {
    path: "/v1/queues/openapi/jobs?state=running&limit=5",
    vars: async () => {
      await call("POST", "/v1/queues/openapi/jobs", job(jobId()));
      return {};
    },
  },
  cancelJob: {
    path: "/v1/queues/openapi/jobs/{id}",
    vars: async () => {
      const id = jobId();
      await call("POST", "/v1/queues/openapi/jobs", job(id));
      return { id: String(id) };
    },
  },

  reportHost: { path: "/v1/hosts/oa-report", body: host },
  allocateHost: {
    path: "/v1/hosts/allocate?explain=true",
    vars: async () => {
      // The requester is itself a host of the pool (customs' client), and is never chosen.
      await call("PUT", "/v1/hosts/oa-client", { ...host, address: "10.77.0.200" });
      await call("PUT", "/v1/hosts/oa-alloc", host);
      return {};
    },
    body: { client: "oa-client", net: 77, fromAddress: "10.77.0.200", user: "alice" },
  },
  finishPermit: {
    path: "/v1/hosts/{host}/permits/{permit}/finish?net=77",
    vars: async () => {
      await call("PUT", "/v1/hosts/oa-client", { ...host, address: "10.77.0.200" });
      await call("PUT", "/v1/hosts/oa-finish", { ...host, address: "10.77.0.2" });
      const allocated = (await call("POST", "/v1/hosts/allocate", {
        client: "oa-client",
        net: 77,
        fromAddress: "10.77.0.200",
        user: "alice",
      })) as {
        host: string;
        permit: { id: number };
      };
      if (allocated.permit === null) throw new Error(`no permit: ${JSON.stringify(allocated)}`);
      return { host: allocated.host, permit: String(allocated.permit.id) };
    },
  },
  listHosts: { path: "/v1/hosts?net=77" },
  removeHost: {
    path: "/v1/hosts/oa-remove?net=77",
    vars: async () => {
      await call("PUT", "/v1/hosts/oa-remove", { ...host, address: "10.77.0.4" });
      return {};
    },
  },
  hostAcl: {
    path: "/v1/hosts/oa-acl/acl?net=77",
    vars: async () => {
      await call("PUT", "/v1/hosts/oa-acl", { ...host, address: "10.77.0.3" });
      return {};
    },
  },

  playgroundPage: { path: "/" },
  playgroundDecide: {
    path: "/v1/playground/placement",
    vars: async () => ({ source: await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text() }),
    body: (v: Record<string, string>) => ({
      policy: v.source,
      request: { user: "openapi", groups: ["dev_app"], tags: { namespace: "newapp" } },
    }),
  },
  playgroundJq: {
    path: "/v1/playground/jq",
    body: { program: "[.a + 1, $x]", input: '{"a": 1}', args: [{ name: "x", value: "two" }], compact: true },
  },
};
