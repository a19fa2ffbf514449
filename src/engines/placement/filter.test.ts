import { describe, expect, it } from "vitest";
import { buildFilter, filterAllows, loadFilter, singleEntryValid, translateGoRegex } from "./filter.js";
import { FILTER_USER_RE } from "./names.js";

function filter(type: string, users: string[], groups: string[] = []) {
  return loadFilter(JSON.parse(JSON.stringify(buildFilter({ type, users, groups }))));
}

describe("rule filters", () => {
  it("treats one entry with regexp characters as an unanchored regexp", () => {
    const f = filter("allow", ["adm.*"]);
    expect(filterAllows(f, "sysadmin", [])).toBe(true);
    expect(filterAllows(f, "alice", [])).toBe(false);
  });

  it("keeps literal entries literal, dots included", () => {
    const f = filter("", ["john.doe"]);
    expect(filterAllows(f, "john.doe", [])).toBe(true);
    expect(filterAllows(f, "johnxdoe", [])).toBe(false);
  });

  it("answers the opposite of the type when nothing matches", () => {
    const f = filter("deny", ["alice", "bob"]);
    expect(filterAllows(f, "alice", [])).toBe(false);
    expect(filterAllows(f, "carol", [])).toBe(true);
  });

  it("lets an empty filter's type decide", () => {
    expect(filterAllows(filter("", []), "x", [])).toBe(true);
    expect(filterAllows(filter("Deny", []), "x", [])).toBe(false);
  });

  it("translates (?i) and named groups from Go", () => {
    expect(translateGoRegex("(?i)^ab$")).toEqual({ source: "(?i)^ab$", prefix: "", required: "" });
    expect(translateGoRegex("(?P<x>a)")).toEqual({ source: "(?P<x>a)", prefix: "", required: "a" });
    expect(translateGoRegex("^.*-t9[a-z]+$")).toEqual({
      source: "^.*-t9[a-z]+$",
      prefix: "",
      required: "-t9",
    });
    expect(translateGoRegex("a(b")).toBeNull();
    expect(translateGoRegex("(a)\\1")).toBeNull();
    expect(translateGoRegex("(?=a)")).toBeNull();
  });

  it("validates single entries as the YuniKorn validator does", () => {
    expect(singleEntryValid("alice", FILTER_USER_RE)).toBe(true);
    expect(singleEntryValid("^a.*", FILTER_USER_RE)).toBe(true);
    expect(singleEntryValid("user name", FILTER_USER_RE)).toBe(false);
    expect(singleEntryValid("[bad", FILTER_USER_RE)).toBe(false);
  });
});

describe("filters stored by earlier bundles", () => {
  it("keep a case-insensitive flag stored apart from the source, and never match what does not compile", () => {
    const data = {
      allow: true,
      empty: false,
      users: [],
      groups: [],
      userExp: { source: "^ab$", flags: "iu" },
      groupExp: { source: "(?=x)", flags: "u" },
    };
    const f = loadFilter(data as unknown as Parameters<typeof loadFilter>[0]);
    expect(filterAllows(f, "AB", [])).toBe(true);
    expect(filterAllows(f, "zz", ["x"])).toBe(false);
  });
});
