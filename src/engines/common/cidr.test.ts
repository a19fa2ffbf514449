import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCidrSet, formatAddress, parseCidrListText, parseNetwork, parseNetworkPadded } from "./cidr.js";

describe("parseNetwork", () => {
  it("parses IPv4 addresses and CIDRs, reporting host bits", () => {
    expect(parseNetwork("192.0.2.1")).toMatchObject({ family: 4, prefix: 32, hostBits: false });
    expect(parseNetwork("192.0.2.1/24")).toMatchObject({
      family: 4,
      start: 0xc0000200,
      end: 0xc00002ff,
      hostBits: true,
    });
    expect(parseNetwork("0.0.0.0/0")).toMatchObject({ start: 0, end: 0xffffffff });
  });
  it("parses IPv6 with :: and an embedded dotted quad", () => {
    expect(parseNetwork("2001:db8::/32")).toMatchObject({ family: 6, prefix: 32, hostBits: false });
    expect(parseNetwork("::ffff:198.51.100.7")?.start).toBe(0xffffc6336407n);
    expect(parseNetwork("::")?.start).toBe(0n);
  });
  it("rejects malformed text", () => {
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3.4/33",
      "2001:db8::1::2",
      "2001:db8::/129",
      "fe80::1%eth0",
      "x",
      "1.2.3.4/",
    ]) {
      expect(parseNetwork(bad), bad).toBeNull();
    }
  });
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseNetwork(s);
      }),
    );
  });
});

describe("parseNetworkPadded", () => {
  it("reads zero-padded octets as decimal, alone or embedded in IPv6", () => {
    expect(parseNetworkPadded("010.001.0.0/016")).toEqual(parseNetwork("10.1.0.0/16"));
    expect(parseNetworkPadded("000.00.0.7")).toEqual(parseNetwork("0.0.0.7"));
    expect(parseNetworkPadded("::ffff:010.0.0.1/104")).toEqual(parseNetwork("::ffff:10.0.0.1/104"));
    expect(parseNetwork("010.0.0.1")).toBeNull();
  });
  it("takes a dotted quad in IPv6 text only as the last 32 bits", () => {
    expect(parseNetworkPadded("1:2:3:4:5:6:1.2.3.4")).toEqual(parseNetwork("1:2:3:4:5:6:102:304"));
    for (const text of ["1.2.3.4::", "1:1.2.3.4::5", "1.2.3.4::/16"]) {
      expect(parseNetwork(text), text).toBeNull();
      expect(parseNetworkPadded(text), text).toBeNull();
    }
  });
  it("rejects what parseNetwork rejects for other reasons", () => {
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "0256.1.1.1",
      "1.2.3.4/33",
      "2001:db8::1::2",
      "::/129",
      "fe80::1%eth0",
      "::ffff:1.2.3.4%0",
      "1.2.3.4/",
      " 1.2.3.4",
    ]) {
      expect(parseNetworkPadded(bad), bad).toBeNull();
    }
  });
  it("agrees with parseNetwork on text without padded octets or an early quad", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()),
        fc.option(fc.integer({ min: 0, max: 130 })),
        (ip, p) => {
          const text = p === null ? ip : `${ip}/${p}`;
          if (/(^|[.:])0\d/.test(text) || /\..*:/.test(text.split("/")[0])) return;
          expect(parseNetworkPadded(text)).toEqual(parseNetwork(text));
        },
      ),
    );
  });
});

describe("formatAddress", () => {
  it("writes IPv6 in RFC 5952 form", () => {
    expect(formatAddress(6, parseNetwork("2001:0db8:0:0:1:0:0:1")?.start as bigint)).toBe(
      "2001:db8::1:0:0:1",
    );
    expect(formatAddress(6, 1n)).toBe("::1");
  });
});

describe("CidrSet", () => {
  const set = buildCidrSet(["10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24", "2001:db8::/32", "junk"]);
  it("counts valid entries", () => {
    expect(set.size).toBe(4);
  });
  it("tests membership per family", () => {
    expect(set.contains(parseNetwork("10.200.1.1")!)).toBe(true);
    expect(set.contains(parseNetwork("11.0.0.1")!)).toBe(false);
    expect(set.contains(parseNetwork("2001:db8:1::1")!)).toBe(true);
    expect(set.contains(parseNetwork("::ffff:10.0.0.1")!)).toBe(false);
  });
  it("finds the longest matching prefix", () => {
    expect(set.longestMatch(parseNetwork("10.1.2.3")!)).toBe("10.1.0.0/16");
    expect(set.longestMatch(parseNetwork("10.2.2.3")!)).toBe("10.0.0.0/8");
    expect(set.longestMatch(parseNetwork("172.16.0.1")!)).toBeNull();
  });
  it("tests overlap of networks", () => {
    expect(set.overlaps(parseNetwork("192.0.0.0/16")!)).toBe(true);
    expect(set.contains(parseNetwork("192.0.0.0/16")!)).toBe(false);
    expect(set.overlaps(parseNetwork("193.0.0.0/16")!)).toBe(false);
  });
  it("agrees with a linear scan on random IPv4 sets", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 })), {
          maxLength: 20,
        }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (entries, probe) => {
          const texts = entries.map(([a, p]) => `${formatAddress(4, a)}/${p}`);
          const s = buildCidrSet(texts);
          const addr = parseNetwork(formatAddress(4, probe))!;
          const linear = texts.some((t) => {
            const n = parseNetwork(t)!;
            return (n.start as number) <= probe && probe <= (n.end as number);
          });
          expect(s.contains(addr)).toBe(linear);
        },
      ),
    );
  });
});

describe("parseCidrListText", () => {
  it("follows the list-text rules", () => {
    const text =
      "# header\n192.0.2.1/24  # masked\n\n  198.51.100.7 \nnot-an-address\n2001:DB8::/32\n192.0.2.0/24\r\n";
    expect(parseCidrListText(text)).toEqual(["192.0.2.0/24", "198.51.100.7/32", "2001:db8::/32"]);
  });
});

describe("dotted quads in IPv6", () => {
  it("are only accepted as the last 32 bits", async () => {
    const { parseIpv6 } = await import("./cidr.js");
    expect(parseIpv6("::ffff:1.2.3.4")).toBe(0xffff01020304n);
    expect(parseIpv6("1:2:3:4:5:6:1.2.3.4")).not.toBeNull();
    expect(parseIpv6("1.2.3.4::")).toBeNull();
    expect(parseIpv6("1:1.2.3.4::5")).toBeNull();
  });
});
