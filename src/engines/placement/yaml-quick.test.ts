// The YAML reader's quick paths (a plain word in a flow collection read by one native search)
// must read every text exactly as the general paths do: the same tree, or the same error at
// the same offset. Random texts are made from pieces that sit on every boundary the quick
// paths decide on (words next to `:`, `#`, flow indicators, spaces, line breaks, quotes,
// anchors, tags, aliases), then read both ways.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readYamlText, MAX_YAML_DEPTH } from "./yaml-read.js";
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
