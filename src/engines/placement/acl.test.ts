import { describe, expect, it } from "vitest";
import { aclAllows, checkAclFields, loadAcl, parseAcl } from "./acl.js";

function parsed(text: string) {
  const r = parseAcl(text);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("ACL parsing", () => {
  it("reads users then groups, split on single spaces", () => {
    expect(parsed("alice,bob dev,ops")).toEqual({
      all: false,
      users: ["alice", "bob"],
      groups: ["dev", "ops"],
    });
    expect(parsed(" admins")).toEqual({ all: false, users: [], groups: ["admins"] });
    expect(parsed("alice ")).toEqual({ all: false, users: ["alice"], groups: [] });
    expect(parsed(" ")).toEqual({ all: false, users: [], groups: [] });
    expect(parsed("")).toEqual({ all: false, users: [], groups: [] });
  });

  it("knows the wildcard forms", () => {
    expect(parsed("*").all).toBe(true);
    expect(parsed(" *").all).toBe(true);
    expect(parsed("alice *").all).toBe(true);
    expect(parsed("*,bob").all).toBe(false);
  });

  it("drops names outside the ACL patterns", () => {
    expect(parsed("#user1,user2 team.a,team_b")).toEqual({
      all: false,
      users: ["user2"],
      groups: ["team_b"],
    });
  });

  it("fails on two spaces where the validator's whitespace split does not", () => {
    expect(checkAclFields("a  b")).toBeNull();
    expect(parseAcl("a  b")).toEqual({ ok: false, error: "multiple spaces found in ACL: 'a  b'" });
    expect(checkAclFields("a b c")).toBe("multiple spaces found in ACL: 'a b c'");
  });

  it("checks users and groups case-sensitively", () => {
    const acl = loadAcl(parsed("alice dev"));
    expect(aclAllows(acl, "alice", [])).toBe(true);
    expect(aclAllows(acl, "Alice", [])).toBe(false);
    expect(aclAllows(acl, "bob", ["x", "dev"])).toBe(true);
    expect(aclAllows(acl, "bob", ["DEV"])).toBe(false);
  });
});
