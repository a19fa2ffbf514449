import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HostIndex } from "./host-index.js";
import { normalizeHost } from "./host.js";
import { loadCustomsPolicy, DEFAULT_POLICY_DATA } from "./policy.js";
import { prepareHost, prepareRequest, withJobs, type PreparedHost } from "./prepare.js";
import { normalizeRequest } from "./request.js";
import { selectHost } from "./select.js";

const policy = loadCustomsPolicy(DEFAULT_POLICY_DATA);

const hostArb = fc.record({
  net: fc.integer({ min: 0, max: 1 }),
  arch: fc.integer({ min: 0, max: 1 }),
  load: fc.constantFrom(0, 0.2, 0.6, 2),
  swapFreePct: fc.constantFrom(10, 30, 90),
  jobs: fc.integer({ min: 0, max: 3 }),
  access: fc.constantFrom(0, 0, 3),
  attrs: fc.subarray(["x86", "hugemem", "fastdisk"]),
  allow: fc.constantFrom(undefined, ["10.0.0.0/8"], ["192.168.0.0/16"]),
  clients: fc.constantFrom(undefined, ["ws0"], ["ws9"]),
  bias: fc.integer({ min: 0, max: 3 }),
  reportedAgo: fc.constantFrom(0, 5_000, 60_000),
});

type HostSpec = typeof hostArb extends fc.Arbitrary<infer T> ? T : never;

function pool(specs: HostSpec[], now: number): PreparedHost[] {
  return specs.map((s, i) => {
    const raw = {
      name: i === 0 ? "ws0" : `h${i}`,
      address: `10.0.${i >> 8}.${i & 255}`,
      net: i === 0 ? 0 : s.net,
      arch: s.arch,
      load: s.load,
      swapFreePct: s.swapFreePct,
      jobs: s.jobs,
      access: s.access,
      attrs: s.attrs,
      bias: s.bias,
      users: { alice: "/bin/sh" },
      shells: ["/bin/sh"],
      reportedAt: now - s.reportedAgo,
      ...(s.allow ? { allow: s.allow } : {}),
      ...(s.clients ? { clients: s.clients } : {}),
    };
    const h = normalizeHost(raw, policy.defaults);
    if (!h.ok) throw new Error(h.error[0].message);
    const p = prepareHost(h.value);
    if (!p.ok) throw new Error(p.error[0].message);
    return p.value;
  });
}

describe("HostIndex.select", () => {
  it("chooses exactly as selectHost does, audit included", () => {
    const reqArb = fc.record({
      user: fc.constantFrom("alice", "bob"),
      attrs: fc.constantFrom([], ["x86"], ["hugemem", "OR", "fastdisk"]),
      same: fc.boolean(),
      exclusive: fc.boolean(),
      uselocal: fc.boolean(),
      from: fc.constantFrom("10.0.0.13", "192.168.1.1"),
      last: fc.integer({ min: -1, max: 30 }),
      now: fc.constantFrom(undefined, 1_700_000_000_000),
    });
    fc.assert(
      fc.property(fc.array(hostArb, { minLength: 1, maxLength: 30 }), reqArb, (specs, q) => {
        const now = 1_700_000_000_000;
        const hosts = pool(specs, now);
        const req = normalizeRequest({
          client: "ws0",
          fromAddress: q.from,
          user: q.user,
          attrs: q.attrs,
          same: q.same,
          exclusive: q.exclusive,
          uselocal: q.uselocal,
        });
        if (!req.ok) throw new Error(req.error[0].message);
        const prepared = prepareRequest(req.value);
        if (!prepared.ok) throw new Error("request");
        const opts = { now: q.now, downFactor: 2, last: q.last < hosts.length ? q.last : -1, ratings: false };
        const want = selectHost(hosts, prepared.value, opts);
        const got = HostIndex.of(hosts).select(prepared.value, opts);
        expect(got.index).toBe(want.index);
        expect(got.audit).toEqual(want.audit);
      }),
      { numRuns: 400 },
    );
  });
  it("keeps a host's scan position when it is replaced, and follows its job count", () => {
    const hosts = pool(
      [0, 1, 2].map(() => ({
        net: 0,
        arch: 0,
        load: 0,
        swapFreePct: 90,
        jobs: 0,
        access: 0,
        attrs: [],
        allow: undefined,
        clients: undefined,
        bias: 0,
        reportedAgo: 0,
      })),
      0,
    );
    const index = HostIndex.of(hosts);
    const req = prepareRequest({ client: "ws0", net: 0, fromAddress: "10.0.0.1", user: "alice" });
    if (!req.ok) throw new Error("request");
    const first = index.select(req.value, { now: undefined, downFactor: 2, last: -1, ratings: false });
    expect(first.index).toBe(1);
    index.put(withJobs(index.at(1), 2));
    expect(index.indexOf("h1")).toBe(1);
    expect(index.select(req.value, { now: undefined, downFactor: 2, last: -1, ratings: false }).index).toBe(
      2,
    );
  });
});
