import { SELF } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import {
  decideLimits,
  dohHits,
  ptrName,
  publishLimits,
  setDoh,
  setDohRecords,
  throughputTask,
  uniqueId,
} from "./fakes.js";

// DNS identifiers against the loopback DoH fake, on a policy published through the admin route:
// `trusted` (ip-reverse-dns, forward-confirmed, name under .trusted.example) lets a task through;
// `suspect` (ip-cymru-bogon, fail-result true) denies; everybody else is denied by `never`.

const policy = {
  schema: 1,
  identifiers: [
    { name: "everybody", description: "all", type: "always", data: {} },
    {
      name: "trusted",
      description: "forward-confirmed reverse DNS under trusted.example",
      type: "ip-reverse-dns",
      data: { match: { style: "regex", match: "\\.trusted\\.example\\.?$" }, timeout: "PT0.5S" },
    },
    {
      name: "suspect",
      description: "bogons, and anyone the bogon lookup fails for",
      type: "ip-cymru-bogon",
      data: { timeout: "PT0.5S", "fail-result": true },
    },
  ],
  classifiers: [
    { name: "suspects", description: "s", identifiers: ["suspect"] },
    { name: "trusted", description: "t", identifiers: ["trusted"] },
    { name: "default", description: "d", identifiers: ["everybody"] },
  ],
  limits: [
    { name: "always", description: "a", type: "pass-fail", data: { pass: true } },
    { name: "never", description: "n", type: "pass-fail", data: { pass: false } },
  ],
  applications: [
    { classifier: "suspects", apply: [{ require: "all", limits: ["never"] }], "stop-on-failure": true },
    { classifier: "trusted", apply: [{ require: "all", limits: ["always"] }] },
    { classifier: "default", apply: [{ require: "all", limits: ["never"] }] },
  ],
};

/** A fresh TEST-NET-3 address per test, so DNS answers cached by earlier tests never interfere. */
let counter = 0;
function freshAddress(): string {
  counter += 1;
  return `203.0.113.${100 + counter}`;
}

const BASE = "http://arbiter.test";
const bogonName = (ipv4: string) => `${ipv4.split(".").reverse().join(".")}.v4.fullbogons.cymru.com`;

beforeEach(async () => {
  await publishLimits(policy);
});

describe("ip-reverse-dns through DoH", () => {
  it("identifies a forward-confirmed name that matches", async () => {
    const requester = freshAddress();
    const host = `${uniqueId("h")}.trusted.example.`;
    await setDohRecords(ptrName(requester), "PTR", [host]);
    await setDohRecords(host, "A", ["192.0.2.200", requester]);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toContain("trusted");
    expect(body.allowed).toBe(true);
    // cacheable for the shortest TTL of the answers it used (docs/operations.md, Verdict cache)
    expect(body.cacheable).toBe(true);
  });

  it("does not identify when the forward lookup does not lead back to the requester", async () => {
    const requester = freshAddress();
    const host = `${uniqueId("h")}.trusted.example.`;
    await setDohRecords(ptrName(requester), "PTR", [host]);
    await setDohRecords(host, "A", ["192.0.2.201"]);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).not.toContain("trusted");
    expect(body.allowed).toBe(false);
    expect(await dohHits(host, "A")).toBe(1);
  });

  it("does not identify a confirmed name that does not match", async () => {
    const requester = freshAddress();
    const host = `${uniqueId("h")}.elsewhere.example.`;
    await setDohRecords(ptrName(requester), "PTR", [host]);
    await setDohRecords(host, "A", [requester]);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).not.toContain("trusted");
  });

  it("gives up after the identifier's timeout and does not identify", async () => {
    const requester = freshAddress();
    const host = `${uniqueId("h")}.trusted.example.`;
    await setDoh(ptrName(requester), "PTR", {
      body: { Status: 0, Answer: [{ name: ptrName(requester), type: 12, TTL: 300, data: host }] },
      delayMs: 3000,
    });
    await setDohRecords(host, "A", [requester]);
    const started = Date.now();
    const { status, body } = await decideLimits({ requester, task: throughputTask() });
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(body.identifiers).not.toContain("trusted");
    expect(body.allowed).toBe(false);
  });

  it("does not identify when the resolver fails", async () => {
    const requester = freshAddress();
    await setDoh(ptrName(requester), "PTR", { status: 502, body: "bad gateway" });
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).not.toContain("trusted");
  });

  it("asks the resolver once per record TTL for the same requester", async () => {
    const requester = freshAddress();
    const host = `${uniqueId("h")}.trusted.example.`;
    await setDohRecords(ptrName(requester), "PTR", [host], 600);
    await setDohRecords(host, "A", [requester], 600);
    for (let i = 0; i < 3; i++) {
      const { body } = await decideLimits({ requester, task: throughputTask() });
      expect(body.identifiers).toContain("trusted");
    }
    expect(await dohHits(ptrName(requester), "PTR")).toBe(1);
    expect(await dohHits(host, "A")).toBe(1);
  });
});

describe("ip-cymru-bogon through DoH", () => {
  it("applies fail-result when the lookup times out", async () => {
    const requester = freshAddress();
    await setDoh(bogonName(requester), "A", { body: { Status: 0, Answer: [] }, delayMs: 3000 });
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toContain("suspect");
    expect(body.allowed).toBe(false);
  });

  it("does not identify on NXDOMAIN", async () => {
    const requester = freshAddress();
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).not.toContain("suspect");
    expect(await dohHits(bogonName(requester), "A")).toBe(1);
  });

  it("identifies on 127.0.0.2 and not on another address", async () => {
    const bogon = freshAddress();
    await setDohRecords(bogonName(bogon), "A", ["127.0.0.2"]);
    expect((await decideLimits({ requester: bogon, task: throughputTask() })).body.identifiers).toContain(
      "suspect",
    );

    const other = freshAddress();
    await setDohRecords(bogonName(other), "A", ["127.0.0.9"]);
    expect((await decideLimits({ requester: other, task: throughputTask() })).body.identifiers).not.toContain(
      "suspect",
    );
  });

  it("says in the explain trace that the lookup failed, why, and which fail-result it applied", async () => {
    const requester = freshAddress();
    await setDoh(bogonName(requester), "A", { body: { Status: 2 } });
    const response = await SELF.fetch(`${BASE}/v1/limits/decide?explain=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ requester, task: throughputTask() }),
    });
    const body = (await response.json()) as {
      trace: { identifiers: { name: string; identified: boolean; note?: string }[] };
    };
    const suspect = body.trace.identifiers.find((i) => i.name === "suspect");
    expect(suspect).toMatchObject({ identified: true });
    expect(suspect?.note).toMatch(
      /^lookup failed: 127\.0\.0\.1:\d+ answered DNS status 2 \(\S+\.fullbogons\.cymru\.com\); fail-result true applied$/,
    );
    // An identifier whose lookup answered carries no note.
    expect(body.trace.identifiers.find((i) => i.name === "everybody")?.note).toBeUndefined();
  });

  it("applies fail-result on a server failure", async () => {
    const requester = freshAddress();
    await setDoh(bogonName(requester), "A", { body: { Status: 2 } });
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toContain("suspect");
  });
});
