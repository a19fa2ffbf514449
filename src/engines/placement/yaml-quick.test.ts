// The YAML reader's quick paths (a plain word in a flow collection read by one native search)
// must read every text exactly as the general paths do: the same tree, or the same error at
// the same offset. Random texts are made from pieces that sit on every boundary the quick
// paths decide on (words next to `:`, `#`, flow indicators, spaces, line breaks, quotes,
// anchors, tags, aliases), then read both ways.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readYamlText, MAX_YAML_DEPTH } from "./yaml-read.js";
import { readYaml } from "./yaml-tree.js";
import { DecodeError, Decoder } from "./yaml-decode.js";
import { policyError } from "../common/result.js";
import type { RawRule } from "./types.js";
import { decodeRule } from "./parse.js";
import { quickRule } from "./quick-rule.js";
import { hardRule, placementWithRules } from "../../../bench/fixtures.js";

const PIECES = [
  "a",
  "b1",
  "user",
  "name",
  "true",
  "False",
  "null",
  "~",
  "0x1f",
  "1.5",
  "-3",
  "1e3",
  ".inf",
  "x.y",
  "a/b",
  "a-b",
  "_c",
  "g7",
  ":",
  ": ",
  ":x",
  ",",
  ", ",
  "[",
  "]",
  "{",
  "}",
  "#",
  " #c",
  " ",
  "  ",
  "\n",
  "\n  ",
  "\r\n",
  "\t",
  "-",
  "- ",
  "?",
  "? ",
  "&k ",
  "*k",
  "!!str ",
  "!!int ",
  "'q'",
  '"d"',
  '"^.*-t1[a-z]+$"',
  "|\n  lit\n",
  "%",
];

const piece = fc.constantFrom(...PIECES);

/** A text of random pieces, often inside a flow collection (where the quick path is taken). */
const text = fc.oneof(
  fc.array(piece, { maxLength: 30 }).map((p) => p.join("")),
  fc.array(piece, { maxLength: 30 }).map((p) => `{${p.join("")}}`),
  fc.array(piece, { maxLength: 30 }).map((p) => `k: [${p.join("")}]\n`),
  fc.array(piece, { maxLength: 30 }).map((p) => `- {a: ${p.join("")}, b: c}\n- [x]\n`),
);

function both(source: string): void {
  const quick = readYamlText(source);
  const general = readYamlText(source, MAX_YAML_DEPTH, false);
  expect(quick).toEqual(general);
}

describe("the YAML reader's quick paths read as the general ones", () => {
  it("on random texts", () => {
    fc.assert(fc.property(text, both), { numRuns: 4000 });
  });

  it("on the hard-shape placement file, and the reader takes the quick path there", () => {
    const source = placementWithRules(50, hardRule, ["{name: users, parent: true}"]);
    both(source);
    const read = readYamlText(source);
    expect(read.ok).toBe(true);
  });

  it("on words next to every character that can end a plain scalar", () => {
    for (const next of [
      ",",
      "]",
      "}",
      ":",
      ": ",
      ":,",
      ":]",
      ":}",
      ":a",
      "#",
      " #",
      " ",
      "\n",
      "'",
      '"',
      "&",
      "*",
      "!",
      "[",
    ])
      for (const source of [`[ab${next}]`, `{ab${next}}`, `{ab${next} c}`, `[ab${next}, d]`, `[ab${next}`])
        both(source);
  });
});

// Rules of random keys and values, well and badly written: where the quick decoder takes a
// rule, the general one must decode it to the same rule without an error.
const scalarValue = fc.constantFrom(
  "user",
  "'fixed'",
  '"x y"',
  "5",
  "1.5",
  "true",
  "false",
  "~",
  "null",
  "",
  "&a v",
  "*a",
  "!!str 7",
);
const listValue = fc.oneof(
  scalarValue,
  fc
    .array(fc.oneof(scalarValue, fc.constantFrom("[a]", "{b: c}")), { maxLength: 3 })
    .map((v) => `[${v.join(", ")}]`),
);
const filterValue = fc.oneof(
  fc.constantFrom("~", "null", "x", "[a]", "{}", "*a"),
  fc
    .array(fc.tuple(fc.constantFrom("type", "users", "groups", "Users", "other", "users"), listValue), {
      maxLength: 4,
    })
    .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
);
const ruleText: fc.Memo<string> = fc.memo((n) =>
  fc
    .array(
      fc.oneof(
        fc.tuple(fc.constantFrom("name", "value", "'name'", "Name", "bogus", "1", "null"), scalarValue),
        fc.tuple(fc.constant("create"), scalarValue),
        fc.tuple(fc.constant("filter"), filterValue),
        fc.tuple(fc.constant("parent"), n > 1 ? fc.oneof(scalarValue, ruleText(n - 1)) : scalarValue),
        fc.tuple(fc.constantFrom("name", "value", "create"), fc.constantFrom("[a]", "{a: b}")),
      ),
      { maxLength: 6 },
    )
    .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
);

/** The rule both ways: the quick one (or null) and the general one with its errors. */
function decodeBoth(source: string) {
  const read = readYaml(`r: &a ${source}\n`);
  if (!read.ok) return null;
  const root = read.tree.root;
  if (root.kind !== "map") return null;
  const node = root.pairs[0].value;
  const d = new Decoder(read.tree);
  let general: RawRule | null = null;
  try {
    general = decodeRule(d, node, "/r");
  } catch (e) {
    // an alias that contains itself ends decoding
    if (!(e instanceof DecodeError)) throw e;
    d.errors.push(policyError(e.code, e.message, e.at));
  }
  return { quick: quickRule(node, "/r"), general, errors: d.errors };
}

describe("the quick rule decoder decodes as the general one", () => {
  it("on random rules", () => {
    let taken = 0;
    fc.assert(
      fc.property(ruleText(4), (source) => {
        const both = decodeBoth(source);
        if (both === null || both.quick === null) return;
        taken++;
        expect(both.errors).toEqual([]);
        expect(both.quick).toEqual(both.general);
      }),
      { numRuns: 3000 },
    );
    // the property is not vacuous: many random rules are plainly written
    expect(taken).toBeGreaterThan(100);
  });

  it("takes the hard-shape rule, and refuses one with an error", () => {
    for (let i = 0; i < 5; i++) {
      const both = decodeBoth(hardRule(i))!;
      expect(both.quick).not.toBeNull();
      expect(both.quick).toEqual(both.general);
    }
    expect(decodeBoth("{name: user, name: tag}")!.quick).toBeNull();
    expect(decodeBoth("{name: user, filter: {users: [[a]]}}")!.quick).toBeNull();
    expect(decodeBoth("{name: user, create: 1}")!.quick).toBeNull();
  });
});
