// Issue 24: a customs diff of two 100 KB policies spent its whole work bound (about
// 0.6 s) rebuilding access lists: every decision read each host's allow and deny
// entries from text again and checked every allow entry against every deny entry.
// The lists are now read once per array and a deny lookup is a binary search; these
// tests count that work (entries read, lookups), never time, and check the faster
// lists against the old way of building them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseNetworkPadded } from "../../src/engines/common/cidr.js";
import { ACL_WORK, buildAccessList, hostAccessList, permits } from "../../src/engines/customs/acl.js";
import { compileCustomsPolicy, loadCustomsPolicy } from "../../src/engines/customs/policy.js";
import { decideCustoms } from "../../src/engines/customs/decide.js";
import { normalizeHost } from "../../src/engines/customs/host.js";
import { DEFAULT_POLICY_DATA } from "../../src/engines/customs/policy.js";
import { HostPoolCore } from "../../src/state/host-pool-core.js";
import { MemoryPoolTables } from "../../src/state/host-pool-store.js";

/** The old list: allow entries deduplicated in order, then each deny removing what it overlaps (a scan). */
function naive(allow: readonly string[], deny: readonly string[]): string[] | null {
  let kept: { text: string; family: number; start: number | bigint; end: number | bigint }[] = [];
  const seen = new Set<string>();
  for (const a of allow) {
    const n = parseNetworkPadded(a);
    if (n === null) return null;
    const key = `${n.family}:${n.start}/${n.prefix}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ text: a, ...n });
  }
  for (const d of deny) {
    const n = parseNetworkPadded(d);
    if (n === null) return null;
    kept = kept.filter((k) => k.family !== n.family || k.start > n.end || n.start > k.end);
  }
  return kept.map((k) => k.text);
}

const entry = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 24, max: 32 }))
    .map(([a, b, p]) => `10.0.${a}.${b * 64}/${p}`),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 112, max: 128 }))
    .map(([a, p]) => `2001:db8::${a}:0/${p}`),
  fc.integer({ min: 0, max: 3 }).map((a) => `10.0.${a}.7`),
);

describe("customs access lists", () => {
  it("keep what the old scan kept, in the same order, for own networks, allow and deny entries", () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 3 }),
        fc.array(entry, { maxLength: 12 }),
        fc.array(entry, { maxLength: 8 }),
        (nets, allow, deny) => {
          const want = naive([...nets, ...allow], deny);
          const got = hostAccessList(nets, allow, deny);
          expect(got.ok).toBe(true);
          if (!got.ok) return;
          expect([...got.list.entries]).toEqual(want);
          // every address of the entries' edges is permitted exactly when an old entry holds it
          for (const text of [...nets, ...allow, ...deny]) {
            const n = parseNetworkPadded(text)!;
            const probe = { ...n, end: n.start, prefix: n.family === 4 ? 32 : 128 };
            const old = (want ?? []).some((k) => {
              const e = parseNetworkPadded(k)!;
              return e.family === n.family && e.start <= n.start && n.start <= e.end;
            });
            expect(permits(got.list, probe)).toBe(old);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("report the first bad entry as before: networks, then allow, then deny", () => {
    expect(hostAccessList(["10.0.0.0/24", "bad"], ["nope"], [])).toMatchObject({
      ok: false,
      field: "allow",
      index: 1,
      text: "bad",
    });
    expect(hostAccessList(["10.0.0.0/24"], ["10.1.0.0/16", "nope"], ["x"])).toMatchObject({
      ok: false,
      field: "allow",
      index: 2,
      text: "nope",
    });
    expect(hostAccessList(["10.0.0.0/24"], ["10.1.0.0/16"], ["10.2.0.0/16", "x"])).toMatchObject({
      ok: false,
      field: "deny",
      index: 1,
    });
    expect(buildAccessList(["10.1.0.0/16"], ["x"])).toMatchObject({ ok: false, field: "deny", index: 0 });
  });

  it("check each allow entry against the deny list with one lookup, not a scan of it", () => {
    const allow = Array.from({ length: 2_000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
    const deny = Array.from({ length: 2_000 }, (_, i) => `172.16.${i >> 8}.${i & 255}`);
    const before = { ...ACL_WORK };
    expect(buildAccessList(allow, deny).ok).toBe(true);
    expect(ACL_WORK.parsed - before.parsed).toBe(4_000);
    expect(ACL_WORK.lookups - before.lookups).toBe(2_000);
  });

  it("read a policy network's allow and deny entries once, however many decisions take them", () => {
    const allow = Array.from({ length: 200 }, (_, i) => `"10.1.${i}.0/24"`).join(", ");
    const deny = Array.from({ length: 200 }, (_, i) => `"172.16.0.${i}"`).join(", ");
    const compiled = compileCustomsPolicy(`{"networks": {"1": {"allow": [${allow}], "deny": [${deny}]}}}`);
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    const policy = loadCustomsPolicy(JSON.parse(JSON.stringify(compiled.value)));
    const host = (name: string, address: string) => ({
      name,
      address,
      net: 1,
      load: 0,
      swapFreePct: 100,
      jobs: 0,
    });
    const before = ACL_WORK.parsed;
    for (let i = 0; i < 50; i++) {
      const d = decideCustoms(policy, {
        hosts: [host("a", "10.1.5.1"), host("b", "10.1.6.1")],
        request: { client: "a", net: 1, fromAddress: `10.1.${i}.9`, user: "u" },
        now: 0,
      });
      expect(d.ok).toBe(true);
      if (d.ok) expect(d.value.host).toBe("b");
    }
    // the 400 entries once, then each host's own network per decision (the old code: 400 per host per decision)
    expect(ACL_WORK.parsed - before).toBeLessThanOrEqual(400 + 50 * 2);
  });

  it("read hosts' own allow and deny lists once when their entries are equal, across hosts and decisions", () => {
    const policy = loadCustomsPolicy(DEFAULT_POLICY_DATA);
    // every host its own arrays (as read from JSON), with the same entries
    const hosts = Array.from({ length: 100 }, (_, i) => ({
      name: `h${i}`,
      address: `10.7.${i}.2`,
      load: 0,
      swapFreePct: 100,
      jobs: 0,
      allow: ["10.0.0.0/8", "2001:db8:77::/48"],
      deny: ["172.16.0.1"],
    }));
    const before = ACL_WORK.parsed;
    for (let i = 0; i < 3; i++) {
      const d = decideCustoms(policy, {
        hosts: JSON.parse(JSON.stringify(hosts)),
        request: { client: "h0", net: 0, fromAddress: "10.9.0.1", user: "u" },
      });
      expect(d.ok && d.value.host).toBe("h1");
    }
    // the three entries at most once, then each host's own network (its /24) per decision;
    // the old code read the three again for every host: 3 × 100 × 4 = 1,200
    expect(ACL_WORK.parsed - before).toBeLessThanOrEqual(3 + 3 * 100);
  });

  it("never take a list built before for lists whose entries differ, even when joined they read the same", () => {
    expect(buildAccessList(["10.0.0.0/8", "10.1.0.0/16"], []).ok).toBe(true);
    expect(hostAccessList(["10.2.0.0/24"], ["10.0.0.0/8\n10.1.0.0/16"], [])).toMatchObject({
      ok: false,
      field: "allow",
      index: 1,
    });
    expect(buildAccessList(["10.0.0.0/8"], ["10.0.0.1"]).ok).toBe(true);
    // the same allow entries, another deny list: its own list, not the one built first
    const other = buildAccessList(["10.0.0.0/8"], ["10.0.0.2"]);
    expect(other.ok && other.list.entries).toEqual([]);
    const none = buildAccessList(["10.0.0.0/8"], []);
    expect(none.ok && none.list.entries).toEqual(["10.0.0.0/8"]);
  });

  it("follow a host's reports in the host pool: a new deny list takes effect at once, in selection and in the view", () => {
    const pool = new HostPoolCore(new MemoryPoolTables());
    const pp = { revision: "r1", data: DEFAULT_POLICY_DATA };
    const policy = loadCustomsPolicy(DEFAULT_POLICY_DATA);
    const report = (name: string, address: string, extra: object) => {
      const h = normalizeHost(
        { name, address, load: 0, swapFreePct: 100, jobs: 0, ...extra },
        policy.defaultsFor(0),
      );
      if (!h.ok) throw new Error(h.error[0].message);
      pool.report(pp, h.value, 1_000);
    };
    const request = { client: "ws", net: 0, fromAddress: "192.168.4.4", user: "u", attrs: [] } as never;
    report("ws", "10.0.0.1", {});
    report("a", "10.0.1.1", { allow: ["192.168.0.0/16"] });
    expect(pool.allocate(pp, request, 2_000).host).toBe("a");
    expect(pool.acl("a")).toEqual(["10.0.1.0/24", "192.168.0.0/16"]);
    report("a", "10.0.1.1", { allow: ["192.168.0.0/16"], deny: ["192.168.4.4"] });
    expect(pool.allocate(pp, request, 3_000).host).toBeNull();
    expect(pool.acl("a")).toEqual(["10.0.1.0/24"]);
    report("a", "10.0.1.1", { allow: ["192.168.0.0/16"] });
    expect(pool.allocate(pp, request, 4_000).host).toBe("a");
    expect(pool.acl("a")).toEqual(["10.0.1.0/24", "192.168.0.0/16"]);
    // removing a host prepares no other host again (their lists were read at their reports)
    report("b", "10.0.2.1", { allow: ["192.168.0.0/16"] });
    report("c", "10.0.3.1", { allow: ["192.168.0.0/16"] });
    const before = ACL_WORK.parsed;
    expect(pool.remove("a")).toEqual({ revoked: [1, 2] });
    expect(pool.allocate(pp, request, 5_000).host).toBe("b");
    expect(pool.allocate(pp, request, 5_000).host).toBe("c");
    expect(pool.list(pp, 5_000).map((h) => [h.name, h.pending])).toEqual([
      ["ws", 0],
      ["b", 1],
      ["c", 1],
    ]);
    expect(pool.acl("a")).toBeNull();
    expect(ACL_WORK.parsed - before).toBe(0);
  });
});
