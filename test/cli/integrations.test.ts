import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { BLOCKED_NETWORK_POLICY } from "../support/blocked-network-policy.js";
import { freePort, startDevServer, type DevServer } from "../support/dev-server.js";
import { run, scratchSpace } from "./run-cli.js";

// Issue 15, "The originals' servers ask Arbiter": the runnable examples of docs/integrations/ against
// the Worker under `wrangler dev` on loopback, with tokens on. The limits.conf of pscheduler.md, run by
// Arbiter's own `url-fetch` limit type (pScheduler's, limitprocessor/limit/urlfetch.py), asks the Worker
// exactly as a pScheduler node would; the YuniKorn webhook answers admission reviews from Arbiter's
// placements; the customs agent reports a host. The server and the webhook
// take ports within ARBITER_DEV_PORTS (LOW-HIGH) when it is set.

const DECISION = "node-token";
const ADMIN = "admin-token";
const AGENT = "agent-token";
const STANZA = readFileSync(join(REPO_ROOT, "docs/integrations/pscheduler/limits.conf"), "utf8");
const scratch = scratchSpace("arbiter-pscheduler-");
let server: DevServer;

const task = { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1", count: 5 } } };

/** The docs' limits.conf pointed at the test server, with the node's token (or `stanza` changed first). */
function nodeLimits(stanza = STANZA): string {
  return scratch.file(
    `limits-${Math.random().toString(36).slice(2)}.conf`,
    stanza
      .replace("https://arbiter.example", server.url)
      .replace("Bearer DECISION_TOKEN", `Bearer ${DECISION}`),
  );
}

/** What the node decides for these requests, running its limits.conf with Arbiter's engine. */
async function nodeDecides(policyFile: string, requesters: string[]) {
  const lines = requesters.map((requester) => JSON.stringify({ requester, task })).join("\n");
  const r = await run(["eval", "limits", "--policy", policyFile], lines);
  expect(r.code, r.err).toBe(0);
  return r.out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { allowed: boolean; cacheable: boolean; diagnostics: string });
}

beforeAll(async () => {
  server = await startDevServer({
    timeoutMs: 180_000,
    vars: { DECISION_TOKENS: DECISION, ADMIN_TOKEN: ADMIN, AGENT_TOKENS: AGENT },
  });
  const res = await fetch(`${server.url}/v1/policies/limits`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" },
    body: BLOCKED_NETWORK_POLICY,
  });
  expect(res.status, await res.text()).toBe(200);
}, 200_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

describe("pScheduler: a node delegating to Arbiter", () => {
  it("the docs page shows the shipped limits.conf exactly", () => {
    const page = readFileSync(join(REPO_ROOT, "docs/integrations/pscheduler.md"), "utf8");
    const block = /```json\n([\s\S]*?)\n```/.exec(page);
    expect(block?.[1]).toBe(STANZA.trimEnd());
  });

  it("passes and refuses as Arbiter's policy says, with Arbiter's diagnostics as the reason", async () => {
    const [allowed, refused] = await nodeDecides(nodeLimits(), ["203.0.113.9", "198.51.100.9"]);
    expect(allowed.allowed, allowed.diagnostics).toBe(true);
    expect(allowed.cacheable).toBe(false);
    expect(allowed.diagnostics).toContain("Limit 'arbiter' passed");
    expect(refused.allowed).toBe(false);
    // the node's reason is Arbiter's own diagnostics: its limit, and the requester the node passed on
    const answer = await fetch(
      `${server.url}/v1/limits/url-fetch?${new URLSearchParams({ task: JSON.stringify(task), requester: "198.51.100.9" })}`,
      {
        headers: { authorization: `Bearer ${DECISION}` },
      },
    );
    const { passed, message } = (await answer.json()) as { passed: boolean; message: string };
    expect(passed).toBe(false);
    expect(message).toContain("Limit 'no-blocked' failed");
    expect(message).toContain("requester: 198.51.100.9");
    expect(refused.diagnostics).toContain(`Limit 'arbiter' failed: ${message.split("\n")[0]}`);
    expect(refused.diagnostics).toContain("Limit 'no-blocked' failed");
  });

  it("sends no token without the headers-transform, and is refused with the 401 as its reason", async () => {
    const withoutTransform = STANZA.replace(/\n\s*"headers-transform": \{ "script": "\." \},/, "");
    expect(withoutTransform).not.toBe(STANZA);
    const [decision] = await nodeDecides(nodeLimits(withoutTransform), ["203.0.113.9"]);
    expect(decision.allowed).toBe(false);
    expect(decision.diagnostics).toContain(
      `Limit 'arbiter' failed: Fetch ${server.url}/v1/limits/url-fetch failed: 401:`,
    );
  });

  it("refuses the task when the token is wrong (fail-result false)", async () => {
    const wrong = nodeLimits();
    writeFileSync(wrong, readFileSync(wrong, "utf8").replace(`Bearer ${DECISION}`, "Bearer wrong"));
    const [decision] = await nodeDecides(wrong, ["203.0.113.9"]);
    expect(decision.allowed).toBe(false);
    expect(decision.diagnostics).toContain("failed: 403:");
  });
});

describe("YuniKorn: the admission webhook placing pods", () => {
  let webhook: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    webhook = spawn(process.execPath, [join(REPO_ROOT, "docs/integrations/yunikorn/webhook.mjs")], {
      env: { ...process.env, ARBITER_URL: server.url, ARBITER_DECISION_TOKEN: DECISION, PORT: String(port) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      webhook.stdout?.once("data", () => resolve());
      webhook.once("exit", (code) => reject(new Error(`the webhook exited with ${code}`)));
    });
  });

  afterAll(() => {
    webhook?.kill();
  });

  /** Sends the webhook the review the API server sends for a new pod. */
  async function admit(
    user: string,
    groups: string[],
    namespace: string,
    labels?: Record<string, string>,
    kind = "Pod",
  ) {
    const object = { metadata: { name: "p", ...(labels ? { labels } : {}) } };
    const body = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: `uid-${user}`,
        kind: { group: "", version: "v1", kind },
        namespace,
        userInfo: { username: user, groups },
        object,
      },
    };
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const review = (await res.json()) as {
      response: {
        uid: string;
        allowed: boolean;
        patch?: string;
        patchType?: string;
        status?: { message: string };
      };
    };
    expect(review.response.uid).toBe(`uid-${user}`);
    const patch =
      review.response.patch === undefined
        ? undefined
        : JSON.parse(Buffer.from(review.response.patch, "base64").toString());
    return { ...review.response, patch };
  }

  it("labels the pod with Arbiter's queue, as the docs example shows", async () => {
    const placed = await admit("sarah", ["sarah", "dev_app"], "newapp", { app: "web" });
    expect(placed).toMatchObject({ allowed: true, patchType: "JSONPatch" });
    expect(placed.patch).toEqual([{ op: "add", path: "/metadata/labels/queue", value: "root.newapp.sarah" }]);
    const page = readFileSync(join(REPO_ROOT, "docs/integrations/yunikorn.md"), "utf8");
    expect(page).toContain(Buffer.from(JSON.stringify(placed.patch)).toString("base64"));
    // a pod without labels gets the map; a pod naming a queue has it replaced
    expect((await admit("bob", ["bob"], "testapp")).patch).toEqual([
      { op: "add", path: "/metadata/labels", value: { queue: "root.default" } },
    ]);
    expect((await admit("john", ["john"], "testing", { queue: "root.x" })).patch).toEqual([
      { op: "replace", path: "/metadata/labels/queue", value: "root.namespaces.testing" },
    ]);
  });

  it("denies a pod Arbiter's policy rejects, with YuniKorn's reason, and lets other objects through", async () => {
    const source = readFileSync(join(REPO_ROOT, "policies/placement.yaml"), "utf8").replace(
      /\n\s*# 3\. Everything that reaches this point lands in root\.default\.\n\s*- name: fixed\n\s*value: root\.default\n/,
      "\n",
    );
    const put = await fetch(`${server.url}/v1/policies/placement`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" },
      body: source,
    });
    expect(put.status, await put.text()).toBe(200);
    const denied = await admit("bob", ["bob"], "testapp");
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toMatch(/rejected/);
    expect(await admit("bob", ["bob"], "testapp", undefined, "ConfigMap")).toEqual({
      uid: "uid-bob",
      allowed: true,
      patch: undefined,
    });
  });
});

const python = spawnSync("python3", ["--version"]).status === 0;

describe("customs: the host agent", () => {
  it.skipIf(!python)(
    "reports the host once and prints Arbiter's answer (skipped without python3)",
    async () => {
      const agent = spawnSync("python3", [join(REPO_ROOT, "docs/integrations/customs/agent.py"), "--once"], {
        encoding: "utf8",
        env: {
          ...process.env,
          ARBITER_URL: server.url,
          ARBITER_AGENT_TOKEN: AGENT,
          HOST_NAME: "agent-test",
          HOST_ADDRESS: "10.9.0.21",
          HOST_NET: "9",
          PERMITS_DIR: scratch.root,
        },
      });
      expect(agent.status, agent.stderr).toBe(0);
      const answer = JSON.parse(agent.stdout) as {
        available: boolean;
        interval: number;
        instructions: unknown[];
      };
      expect(answer).toMatchObject({ interval: expect.any(Number), instructions: [] });
      const hosts = await fetch(`${server.url}/v1/hosts?net=9`, {
        headers: { authorization: `Bearer ${DECISION}` },
      });
      const listed = (await hosts.json()) as { hosts: { name: string; address: string }[] };
      expect(listed.hosts.find((h) => h.name === "agent-test")).toMatchObject({ address: "10.9.0.21" });
    },
  );
});
