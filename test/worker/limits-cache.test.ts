import { beforeEach, describe, expect, it } from "vitest";
import { decideLimits, publishLimits, throughputTask } from "./fakes.js";

// The verdict cache is keyed by the request body; a verdict about the connecting address (no
// `requester` in the body) must never be cached, or one caller's verdict would answer another's.
// This policy consults neither DNS nor downloaded lists, so its verdicts are otherwise cacheable.

const policy = {
  schema: 1,
  identifiers: [
    { name: "everybody", description: "all", type: "always", data: {} },
    { name: "blocked", description: "b", type: "ip-cidr-list", data: { cidrs: ["198.51.100.0/24"] } },
  ],
  classifiers: [
    { name: "blocked", description: "b", identifiers: ["blocked"] },
    { name: "default", description: "d", identifiers: ["everybody"] },
  ],
  limits: [
    { name: "always", description: "a", type: "pass-fail", data: { pass: true } },
    { name: "never", description: "n", type: "pass-fail", data: { pass: false } },
  ],
  applications: [
    { classifier: "blocked", apply: [{ require: "all", limits: ["never"] }], "stop-on-failure": true },
    { classifier: "default", apply: [{ require: "all", limits: ["always"] }] },
  ],
};

beforeEach(async () => {
  await publishLimits(policy);
});

describe("verdict caching of limits decisions", () => {
  it("caches a verdict whose requester is in the body", async () => {
    const body = { requester: "203.0.113.40", task: throughputTask({ parallel: 4 }) };
    const first = await decideLimits(body);
    expect(first.body.cacheable).toBe(true);
    expect(first.body.allowed).toBe(true);
    const second = await decideLimits(body);
    expect(second.response.headers.get("X-Arbiter-Cache")).toBe("hit");
    expect(second.body.allowed).toBe(true);
  });

  it("never caches a verdict about the connecting address", async () => {
    const body = { task: throughputTask({ parallel: 5 }) };
    const friendly = await decideLimits(body, { "CF-Connecting-IP": "203.0.113.41" });
    expect(friendly.body.allowed).toBe(true);
    expect(friendly.body.cacheable).toBe(false);
    const blocked = await decideLimits(body, { "CF-Connecting-IP": "198.51.100.41" });
    expect(blocked.response.headers.get("X-Arbiter-Cache")).not.toBe("hit");
    expect(blocked.body.allowed).toBe(false);
    expect(blocked.body.identifiers).toContain("blocked");
  });
});
