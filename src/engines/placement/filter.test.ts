import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { inspectPattern } from "../common/regex/index.js";
import {
  buildFilter,
  filterAllows,
  inspectGoRegex,
  loadFilter,
  RegexMemo,
  singleEntryValid,
  translateGoRegex,
} from "./filter.js";
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

describe("expressions written alike, inspected once per shape", () => {
  /** What inspecting `expr` alone gives (no memo, no shape), in inspectGoRegex's form. */
  function alone(expr: string) {
    const r = inspectPattern(expr, "re2");
    return r.ok ? { ok: true, value: r.value } : { ok: false };
  }

  it("inspects 3,000 expressions that differ in a number once per length, with the facts of each", () => {
    const memo = new RegexMemo();
    for (let i = 0; i < 3000; i++) {
      const expr = `^.*-t${i}[a-z]+$`;
      expect(inspectGoRegex(expr, memo)).toEqual({ ok: true, value: { prefix: "", required: `-t${i}` } });
    }
    // t0..t9, t10..t99, t100..t999, t1000..t2999: one shape each
    expect(memo.inspected).toBe(4);
    expect(inspectGoRegex("^team7-[a-z]+x$", memo)).toEqual(alone("^team7-[a-z]+x$"));
  });

  it("gives every expression the facts (or the refusal) it has alone, after others of its shape", () => {
    // tokens of the quick inspection's subset and a few beyond it, so shapes are made of some and tried on all
    const token = fc.constantFrom(
      "a",
      "b",
      "z",
      "7",
      "0",
      "_",
      "-",
      "@",
      ".",
      "^",
      "$",
      "*",
      "+",
      "?",
      "*?",
      "[a-z]",
      "[^0-9]",
      "[b-a]",
      "[a-]",
      "x{2}",
      "(a)",
      "|",
      "\\d",
      "]",
      "[",
      "ab",
      "12",
    );
    const word = fc.constantFrom("a", "q", "Z", "9", "0", "_", "k");
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 10 }),
        fc.array(fc.array(word, { maxLength: 12 }), { maxLength: 6 }),
        (tokens, fills) => {
          const memo = new RegexMemo();
          const first = tokens.join("");
          expect(inspectGoRegex(first, memo).ok).toBe(alone(first).ok);
          // the same expression with its letters and digits replaced, one fill per variant
          for (const fill of fills) {
            let k = 0;
            const variant = first.replace(/[A-Za-z0-9_]/g, (c) => (k < fill.length ? fill[k++] : c));
            const got = inspectGoRegex(variant, memo);
            const want = alone(variant);
            expect(got.ok).toBe(want.ok);
            if (got.ok && want.ok) expect(got.value).toEqual(want.value);
          }
        },
      ),
      { numRuns: 400 },
    );
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
