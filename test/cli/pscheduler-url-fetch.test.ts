import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { devPortsFromEnv, startDevServer, type DevServer } from "../support/dev-server.js";
import { run, scratchSpace } from "./run-cli.js";

// Issue 15, "The originals' servers ask Arbiter": the limits.conf of docs/integrations/pscheduler.md,
// run by Arbiter's own `url-fetch` limit type (pScheduler's, limitprocessor/limit/urlfetch.py), asks
// the Worker under `wrangler dev` on loopback, exactly as a pScheduler node would, and reads its answer.
// ARBITER_DEV_PORTS=PORT,INSPECTOR pins the server's ports (free ones otherwise).

const DECISION = "node-token";
const ADMIN = "admin-token";
const STANZA = readFileSync(join(REPO_ROOT, "docs/integrations/pscheduler/limits.conf"), "utf8");
const scratch = scratchSpace("arbiter-pscheduler-");
let server: DevServer;

/** Arbiter's own policy: requesters in 198.51.100.0/24 are refused by a named limit, everyone else passes. */
const arbiterPolicy = JSON.stringify({
  schema: 1,
  identifiers: [
    { name: "blocked", description: "b", type: "ip-cidr-list", data: { cidrs: ["198.51.100.0/24"] } },
    { name: "everybody", description: "all", type: "always", data: {} },
  ],
  classifiers: [
    { name: "blocked", description: "b", identifiers: ["blocked"] },
    { name: "everybody", description: "all", identifiers: ["everybody"] },
  ],
  limits: [
    { name: "pass", description: "p", type: "pass-fail", data: { pass: true } },
    { name: "no-blocked", description: "refuses the blocked network", type: "pass-fail", data: { pass: false } },
  ],
  applications: [
    { classifier: "blocked", apply: [{ require: "all", limits: ["no-blocked"] }], "stop-on-failure": true },
    { classifier: "everybody", apply: [{ require: "all", limits: ["pass"] }] },
  ],
});

const task = { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1", count: 5 } } };

/** The docs' limits.conf pointed at the test server, with the node's token (or `stanza` changed first). */
function nodeLimits(stanza = STANZA): string {
  return scratch.file(
    `limits-${Math.random().toString(36).slice(2)}.conf`,
    stanza.replace("https://arbiter.example", server.url).replace("Bearer DECISION_TOKEN", `Bearer ${DECISION}`),
  );
}

/** What the node decides for these requests, running its limits.conf with Arbiter's engine. */
async function nodeDecides(policyFile: string, requesters: string[]) {
  const lines = requesters.map((requester) => JSON.stringify({ requester, task })).join("\n");
  const r = await run(["eval", "limits", "--policy", policyFile], lines);
  expect(r.code, r.err).toBe(0);
  return r.out.trim().split("\n").map((l) => JSON.parse(l) as { allowed: boolean; cacheable: boolean; diagnostics: string });
}

beforeAll(async () => {
  server = await startDevServer(180_000, devPortsFromEnv(), { DECISION_TOKENS: DECISION, ADMIN_TOKEN: ADMIN });
  const res = await fetch(`${server.url}/v1/policies/limits`, { method: "PUT", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" }, body: arbiterPolicy });
  expect(res.status, await res.text()).toBe(200);
}, 200_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

describe("a pScheduler node delegating to Arbiter", () => {
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
    const answer = await fetch(`${server.url}/v1/limits/url-fetch?${new URLSearchParams({ task: JSON.stringify(task), requester: "198.51.100.9" })}`, {
      headers: { authorization: `Bearer ${DECISION}` },
    });
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
    expect(decision.diagnostics).toContain(`Limit 'arbiter' failed: Fetch ${server.url}/v1/limits/url-fetch failed: 401:`);
  });

  it("refuses the task when the token is wrong (fail-result false)", async () => {
    const wrong = nodeLimits();
    writeFileSync(wrong, readFileSync(wrong, "utf8").replace(`Bearer ${DECISION}`, "Bearer wrong"));
    const [decision] = await nodeDecides(wrong, ["203.0.113.9"]);
    expect(decision.allowed).toBe(false);
    expect(decision.diagnostics).toContain("failed: 403:");
  });
});
