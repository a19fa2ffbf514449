import { describe, expect, it } from "vitest";
import {
  decideLimits,
  dohHits,
  listHits,
  listUrl,
  publishLimits,
  setDohRecords,
  setList,
  throughputTask,
  uniqueId,
} from "./fakes.js";

// url-fetch limits and ip-cymru-asn identifiers in workerd, against the loopback fakes: the web
// service a url-fetch limit asks is the list fake (GET /lists/<id> answers what the test set),
// and Team Cymru's TXT answers come from the DoH fake.

/** A policy whose only limit asks the service at list `id`; requesters of AS64500 are `peers`. */
function policy(id: string, fetchData: Record<string, unknown> = {}) {
  return {
    schema: 1,
    identifiers: [
      { name: "everybody", description: "all", type: "always", data: {} },
      {
        name: "peers",
        description: "AS64500",
        type: "ip-cymru-asn",
        data: { asns: [64500], timeout: "PT0.5S", "fail-result": false },
      },
    ],
    classifiers: [
      { name: "peers", description: "p", identifiers: ["peers"] },
      { name: "default", description: "d", identifiers: ["everybody"] },
    ],
    limits: [
      { name: "always", description: "a", type: "pass-fail", data: { pass: true } },
      {
        name: "remote",
        description: "asks the approval service",
        type: "url-fetch",
        data: { url: listUrl(id), ...fetchData },
      },
    ],
    applications: [
      { classifier: "peers", apply: [{ require: "all", limits: ["always"] }] },
      { classifier: "default", apply: [{ require: "all", limits: ["remote"] }] },
    ],
  };
}

let counter = 0;
/** A fresh TEST-NET-2 address per test, so cached DNS answers of earlier tests never interfere. */
function freshAddress(): string {
  counter += 1;
  return `198.51.100.${100 + counter}`;
}

const asnName = (ipv4: string) => `${ipv4.split(".").reverse().join(".")}.origin.asn.cymru.com`;

describe("url-fetch through the Worker", () => {
  it("asks the service on every decision: its answer decides, and the verdict is never cacheable", async () => {
    const id = uniqueId("approve");
    await publishLimits(policy(id));
    await setList(id, { body: { passed: true, message: "We approve." }, contentType: "application/json" });
    const request = { requester: freshAddress(), task: throughputTask() };
    const first = await decideLimits(request);
    expect(first.body.allowed).toBe(true);
    expect(first.body.cacheable).toBe(false);
    const second = await decideLimits(request);
    expect(second.body.allowed).toBe(true);
    expect(second.response.headers.get("x-arbiter-cache")).not.toBe("hit");
    expect(await listHits(id)).toBe(2);
  });

  it("reports the service's refusal with its message", async () => {
    const id = uniqueId("refuse");
    await publishLimits(policy(id));
    await setList(id, { body: { passed: false, message: "Not during office hours." } });
    const { body } = await decideLimits({ requester: freshAddress(), task: throughputTask() });
    expect(body.allowed).toBe(false);
    expect(body.diagnostics).toContain("Group 1: Limit 'remote' failed: Not during office hours.");
  });

  it("gives up at the limit's timeout and answers fail-result", async () => {
    const id = uniqueId("slow");
    await publishLimits(policy(id, { timeout: "PT0.3S", "fail-result": true }));
    await setList(id, { body: { passed: false }, delayMs: 3000 });
    // the service would refuse after 3 s; passing means the fetch was abandoned at the timeout
    const { body } = await decideLimits({ requester: freshAddress(), task: throughputTask() });
    expect(body.allowed).toBe(true);
    expect(body.cacheable).toBe(false);
  });

  it("states a failed fetch as pScheduler does", async () => {
    const id = uniqueId("down");
    await publishLimits(policy(id));
    await setList(id, { status: 503, body: "maintenance" });
    const { body } = await decideLimits({ requester: freshAddress(), task: throughputTask() });
    expect(body.allowed).toBe(false);
    expect(body.diagnostics).toContain(
      `Limit 'remote' failed: Fetch ${listUrl(id)} failed: 503: maintenance`,
    );
  });
});

describe("ip-cymru-asn through DoH", () => {
  it("identifies a requester whose origin ASN is listed, with one TXT lookup", async () => {
    const requester = freshAddress();
    await publishLimits(policy(uniqueId("unused")));
    await setDohRecords(asnName(requester), "TXT", ['"64500 | 198.51.100.0/24 | ZZ | arin | 2000-01-01"']);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toEqual(["everybody", "peers"]);
    expect(body.allowed).toBe(true);
    // only DNS was consulted (no URL fetched): cacheable for the TXT answer's TTL
    expect(body.cacheable).toBe(true);
    expect(await dohHits(asnName(requester), "TXT")).toBe(1);
  });

  it("does not identify another ASN", async () => {
    const requester = freshAddress();
    const id = uniqueId("other-asn");
    await publishLimits(policy(id));
    await setList(id, { body: { passed: false, message: "not a peer" } });
    await setDohRecords(asnName(requester), "TXT", ['"64511 | 198.51.100.0/24 | ZZ | arin | 2000-01-01"']);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toEqual(["everybody"]);
    expect(body.diagnostics).toContain("failed: not a peer");
  });
});
