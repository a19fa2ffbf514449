import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildAccessList, parseAddress, parseRange, permits } from "../../src/engines/customs/index.js";

const addr = (text: string) => {
  const a = parseAddress(text);
  if (a === null) throw new Error(`bad address ${text}`);
  return a;
};

describe("address parsing", () => {
  it("reads IPv4 and IPv6 forms, including :: and embedded IPv4", () => {
    expect(parseAddress("10.0.0.13")).toEqual({ v6: false, n: 0x0a00000d });
    expect(parseAddress("::1")).toEqual({ v6: true, n: 1n });
    expect(parseAddress("::")).toEqual({ v6: true, n: 0n });
    expect(parseAddress("2001:db8::1")).toEqual({ v6: true, n: (0x20010db8n << 96n) | 1n });
    expect(parseAddress("::ffff:10.0.0.1")).toEqual({ v6: true, n: (0xffffn << 32n) | 0x0a000001n });
    expect(parseAddress("1:2:3:4:5:6:7:8")).toEqual(parseAddress("1:2:3:4:5:6:0.7.0.8"));
  });

  it("refuses malformed addresses", () => {
    for (const bad of ["", "10.0.0", "10.0.0.256", "10.0.0.1.2", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "g::1", "1:2:3:4:5:6:7::8", " 10.0.0.1"]) {
      expect(parseAddress(bad), bad).toBeNull();
    }
  });

  it("turns networks into inclusive ranges, masking host bits", () => {
    expect(parseRange("10.0.0.0/8")).toMatchObject({ v6: false, lo: 0x0a000000, hi: 0x0affffff });
    expect(parseRange("10.1.2.3/16")).toMatchObject({ lo: 0x0a010000, hi: 0x0a01ffff });
    expect(parseRange("0.0.0.0/0")).toMatchObject({ lo: 0, hi: 0xffffffff });
    expect(parseRange("2001:db8::/32")).toMatchObject({ v6: true, lo: 0x20010db8n << 96n, hi: (0x20010db8n << 96n) | ((1n << 96n) - 1n) });
    expect(parseRange("10.0.0.1/33")).toBeNull();
    expect(parseRange("::/129")).toBeNull();
    expect(parseRange("10.0.0.1/")).toBeNull();
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        parseRange(s);
        parseAddress(s);
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(parseAddress(ip)).not.toBeNull();
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        expect(parseAddress(ip)).not.toBeNull();
      }),
    );
  });
});

describe("access lists", () => {
  it("removes every allowed entry a deny overlaps, in either direction", () => {
    const built = buildAccessList(["10.0.0.0/8", "10.1.2.3", "192.168.0.0/16", "2001:db8::/32"], ["10.1.0.0/16"]);
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

  it("names the bad entry", () => {
    expect(buildAccessList(["10.0.0.0/8"], ["nope"])).toEqual({ ok: false, field: "deny", index: 0, text: "nope" });
  });
});
