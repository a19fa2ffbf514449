import { describe, expect, it } from "vitest";
import { closestName, closestNames, didYouMean, editDistance, MAX_NAME_LENGTH } from "./did-you-mean.js";

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent transpositions", () => {
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("requestor", "requester", 3)).toBe(1);
    expect(editDistance("default", "defualt", 3)).toBe(1);
    expect(editDistance("", "abc", 5)).toBe(3);
    expect(editDistance("same", "same", 0)).toBe(0);
  });

  it("stops at the bound and answers max + 1", () => {
    expect(editDistance("abcdef", "uvwxyz", 2)).toBe(3);
    expect(editDistance("a", "abcdefgh", 2)).toBe(3);
  });
});

describe("closestName", () => {
  it("suggests the nearest candidate", () => {
    expect(closestName("requestor", ["requester", "server", "run"])).toBe("requester");
    expect(
      closestName("throughput-default-time", ["throughput-defualt-time", "throughput-default-parallel"]),
    ).toBe("throughput-defualt-time");
    expect(closestName("usr", ["user", "groups"])).toBe("user");
    expect(closestName("username", ["user", "groups"])).toBe("user");
  });

  it("is case-insensitive but keeps the candidate's spelling", () => {
    expect(closestName("accept", ["ACCEPT", "REJECT", "PAUSE"])).toBe("ACCEPT");
  });

  it("suggests nothing when nothing is close", () => {
    expect(closestName("zzzzzz", ["requester", "server"])).toBeUndefined();
    expect(closestName("x", ["a", "y"])).toBeUndefined();
    expect(closestName("x".repeat(MAX_NAME_LENGTH + 1), ["x"])).toBeUndefined();
  });

  it("lists every candidate at the best distance", () => {
    expect(closestNames("cat", ["bat", "hat", "cart", "dog"])).toEqual(["bat", "hat", "cart"]);
  });

  it("renders the suffix", () => {
    expect(didYouMean("fixd", ["fixed", "tag"])).toBe(" (did you mean `fixed`?)");
    expect(didYouMean("qqqq", ["fixed", "tag"])).toBe("");
  });
});
