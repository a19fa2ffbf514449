import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// Issue 25, item 2: the shipped policies/customs.json keeps customs(8)'s default access
// list (the networks a host is attached to), and a host's list is a set.

const BASE = "http://arbiter.test";

const send = (method: string, path: string, body?: unknown) =>
  SELF.fetch(BASE + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** docs/api.md's "report and allocation" example: the requester ws0, then h21 allowing 10.0.0.0/24 and 10.0.1.0/24 but denying 10.0.1.13. */
async function reportExample(net: number): Promise<void> {
  const ws0 = await send("PUT", `/v1/hosts/ws0`, {
    address: "10.0.0.13",
    net,
    load: 1.5,
    swapFreePct: 60,
    jobs: 1,
    idleSeconds: 0,
  });
  expect(ws0.status).toBe(200);
  const h21 = await send("PUT", `/v1/hosts/h21`, {
    address: "10.0.0.21",
    net,
    arch: 1,
    attrs: ["fastdisk"],
    load: 0.25,
    swapFreePct: 60,
    jobs: 0,
    idleSeconds: 1200,
    freeProcs: 500,
    maxLoad: 0.5,
    minSwapPct: 25,
    maxJobs: 2,
    minIdleSeconds: 900,
    idleCrit: 3,
    minFreeProcs: 10,
    bias: 0,
    evictSeconds: 120,
    cpuSeconds: 600,
    memoryKb: 0,
    nice: 4,
    npri: 0,
    localJobs: 0,
    access: 2,
    users: { alice: "/bin/sh" },
    shells: ["/bin/sh"],
    checkSeconds: 10,
    clients: "ALL",
    allow: ["10.0.0.0/24", "10.0.1.0/24"],
    deny: ["10.0.1.13"],
    sigxcpu: true,
  });
  expect(h21.status).toBe(200);
}

const allocate = async (net: number, fromAddress: string) =>
  (await (
    await send("POST", "/v1/hosts/allocate?explain=true", {
      client: "ws0",
      net,
      fromAddress,
      user: "alice",
      arch: 1,
      attrs: ["fastdisk"],
    })
  ).json()) as { host: string | null; trace: { ratings: Record<string, unknown> } };

describe("the shipped customs policy", () => {
  it("admits only the networks a host is attached to and allows, not every address", async () => {
    const net = 0;
    await reportExample(net);
    for (const from of ["2001:db8::5", "192.0.2.77", "10.0.1.13", "10.0.1.14"]) {
      const answer = await allocate(net, from);
      expect(answer.host, from).toBeNull();
      expect(answer.trace.ratings.h21, from).toBe("excluded:acl");
    }
    expect((await allocate(net, "10.0.0.13")).host).toBe("h21");
  });

  it("lists a host's access list as a set", async () => {
    await reportExample(0);
    const acl = await send("GET", "/v1/hosts/h21/acl?net=0");
    expect(await acl.json()).toEqual({ host: "h21", entries: ["10.0.0.0/24"] });
    const ws0 = await send("GET", "/v1/hosts/ws0/acl?net=0");
    expect(await ws0.json()).toEqual({ host: "ws0", entries: ["10.0.0.0/24"] });
  });
});
