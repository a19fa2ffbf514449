import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseNetworkPadded } from "../../src/engines/common/cidr.js";
import {
  buildAccessList,
  compileCustomsPolicy,
  DEFAULT_POLICY_DATA,
  loadCustomsPolicy,
  normalizeHost,
  normalizeRequest,
  parseAclAddress,
  permits,
  prepareHost,
  prepareRequest,
} from "../../src/engines/customs/index.js";

const addr = (text: string) => {
  const a = parseAclAddress(text);
  if (a === null) throw new Error(`bad address ${text}`);
  return a;
};

describe("address parsing", () => {
  it("reads IPv4 and IPv6 forms, including :: and embedded IPv4", () => {
    expect(parseAclAddress("10.0.0.13")).toMatchObject({
      family: 4,
      start: 0x0a00000d,
      end: 0x0a00000d,
      prefix: 32,
    });
    expect(parseAclAddress("::1")).toMatchObject({ family: 6, start: 1n, prefix: 128 });
    expect(parseAclAddress("::")).toMatchObject({ family: 6, start: 0n });
    expect(parseAclAddress("2001:db8::1")).toMatchObject({ family: 6, start: (0x20010db8n << 96n) | 1n });
    expect(parseAclAddress("::ffff:10.0.0.1")).toMatchObject({
      family: 6,
      start: (0xffffn << 32n) | 0x0a000001n,
    });
    expect(parseAclAddress("1:2:3:4:5:6:7:8")).toEqual(parseAclAddress("1:2:3:4:5:6:0.7.0.8"));
  });

  it("reads zero-padded IPv4 octets as decimal, as the customs parser always has", () => {
    expect(parseAclAddress("010.0.0.013")).toEqual(parseAclAddress("10.0.0.13"));
    expect(parseAclAddress("::ffff:010.000.0.1")).toEqual(parseAclAddress("::ffff:10.0.0.1"));
    expect(parseNetworkPadded("010.0.0.0/08")).toMatchObject({ family: 4, start: 0x0a000000, prefix: 8 });
  });

  it("refuses malformed addresses", () => {
    for (const bad of [
      "",
      "10.0.0",
      "10.0.0.256",
      "10.0.0.1.2",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "g::1",
      "1:2:3:4:5:6:7::8",
      " 10.0.0.1",
      "fe80::1%eth0",
      "1.2.3.4::",
      "1:1.2.3.4::5",
      "0255.0.0.1",
      "10.0.0.1/32",
    ]) {
      expect(parseAclAddress(bad), bad).toBeNull();
    }
  });

  it("turns networks into inclusive ranges, masking host bits", () => {
    expect(parseNetworkPadded("10.0.0.0/8")).toMatchObject({ family: 4, start: 0x0a000000, end: 0x0affffff });
    expect(parseNetworkPadded("10.1.2.3/16")).toMatchObject({ start: 0x0a010000, end: 0x0a01ffff });
    expect(parseNetworkPadded("0.0.0.0/0")).toMatchObject({ start: 0, end: 0xffffffff });
    expect(parseNetworkPadded("2001:db8::/32")).toMatchObject({
      family: 6,
      start: 0x20010db8n << 96n,
      end: (0x20010db8n << 96n) | ((1n << 96n) - 1n),
    });
    expect(parseNetworkPadded("10.0.0.1/33")).toBeNull();
    expect(parseNetworkPadded("::/129")).toBeNull();
    expect(parseNetworkPadded("10.0.0.1/")).toBeNull();
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        parseNetworkPadded(s);
        parseAclAddress(s);
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(parseAclAddress(ip)).not.toBeNull();
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        expect(parseAclAddress(ip)).not.toBeNull();
      }),
    );
  });
});

describe("access lists", () => {
  it("removes every allowed entry a deny overlaps, in either direction", () => {
    const built = buildAccessList(
      ["10.0.0.0/8", "10.1.2.3", "192.168.0.0/16", "2001:db8::/32"],
      ["10.1.0.0/16"],
    );
    expect(built.ok && built.list.entries).toEqual(["192.168.0.0/16", "2001:db8::/32"]);
    if (!built.ok) return;
    expect(permits(built.list, addr("192.168.9.9"))).toBe(true);
    expect(permits(built.list, addr("10.200.0.1"))).toBe(false);
    expect(permits(built.list, addr("2001:db8:ffff::1"))).toBe(true);
    expect(permits(built.list, addr("2001:db9::1"))).toBe(false);
  });

  it("keeps the families apart", () => {
    const built = buildAccessList(["0.0.0.0/0"], ["::/0"]);
    expect(built.ok && built.list.entries).toEqual(["0.0.0.0/0"]);
    if (built.ok) expect(permits(built.list, addr("::1"))).toBe(false);
  });

  it("accepts zero-padded entries and refuses the ones the parser never took", () => {
    const built = buildAccessList(["010.000.0.0/8", "192.168.001.0/24"], ["192.168.1.7"]);
    expect(built.ok && built.list.entries).toEqual(["010.000.0.0/8"]);
    if (built.ok) expect(permits(built.list, addr("10.9.9.9"))).toBe(true);
    expect(buildAccessList(["10.0.0.0/8", "1.2.3.4::/16"], [])).toEqual({
      ok: false,
      field: "allow",
      index: 1,
      text: "1.2.3.4::/16",
    });
  });

  it("is a set: a network allowed again is one entry, as first written (issue 25)", () => {
    const built = buildAccessList(
      [
        "10.0.0.0/24",
        "10.0.0.0/24",
        "10.0.0.7/24",
        "010.0.0.0/24",
        "10.0.0.0/25",
        "2001:db8::/64",
        "2001:db8:0::/64",
      ],
      [],
    );
    expect(built.ok && built.list.entries).toEqual(["10.0.0.0/24", "10.0.0.0/25", "2001:db8::/64"]);
  });

  it("names the bad entry", () => {
    expect(buildAccessList(["10.0.0.0/8"], ["nope"])).toEqual({
      ok: false,
      field: "deny",
      index: 0,
      text: "nope",
    });
  });

  it("words a bad address or entry the same way wherever it is given: host, stored host, request, policy", () => {
    const defaults = loadCustomsPolicy(DEFAULT_POLICY_DATA).defaultsFor(0);
    const host = { name: "a", address: "10.0.0.1", load: 0, swapFreePct: 50, jobs: 0 };
    const errors = (r: { ok: boolean; error?: unknown }) =>
      (r.error as { code: string; message: string; at: string }[]).map(({ code, message, at }) => ({
        code,
        message,
        at,
      }));
    const bad = (field: string, text: string, at: string, network = true) => ({
      code: "customs_invalid_address",
      message: `invalid field ${field}: \`${text}\` is not an IPv4 or IPv6 address${network ? " or network" : ""}`,
      at,
    });
    expect(
      errors(
        normalizeHost(
          { ...host, address: "10.0.0", networks: ["lan"], allow: ["10.0.0.0/8", "x"], deny: ["y"] },
          defaults,
          "/h",
        ),
      ),
    ).toEqual([
      bad("address", "10.0.0", "/h/address", false),
      bad("networks", "lan", "/h/networks/0"),
      bad("allow", "x", "/h/allow/1"),
      bad("deny", "y", "/h/deny/0"),
    ]);
    const good = normalizeHost(host, defaults);
    if (!good.ok) throw new Error("host refused");
    // a stored host is prepared again without normalizing: its lists are read there
    expect(errors(prepareHost({ ...good.value, networks: ["10.0.0.0/24", "z"] }, "/s"))).toEqual([
      bad("networks", "z", "/s/networks/1"),
    ]);
    expect(errors(prepareHost({ ...good.value, allow: ["w"] }, "/s"))).toEqual([
      bad("allow", "w", "/s/allow/0"),
    ]);
    const request = normalizeRequest({ client: "a", fromAddress: "10.0.0.1/32", user: "u" });
    if (!request.ok) throw new Error("request refused");
    expect(errors(prepareRequest(request.value, "/r"))).toEqual([
      bad("fromAddress", "10.0.0.1/32", "/r/fromAddress", false),
    ]);
    expect(errors(compileCustomsPolicy('{"defaults": {"deny": ["10.0.0.1", "v"]}}'))).toEqual([
      bad("deny", "v", "/defaults/deny/1"),
    ]);
  });
});
