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
import { decodeRule, parseConfig } from "./parse.js";
import { quickRule } from "./quick-rule.js";
import { LazyMap, type YamlMap, type YamlNode, type YamlSeq } from "./yaml-node.js";
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
    fc.assert(fc.property(text, both), { numRuns: 4000, seed: 4101 });
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
      { numRuns: 3000, seed: 4102 },
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

// Lazy reading (yaml-read-lazy.ts): a one-line flow mapping of the plain form is left unread and
// a rule of that form decoded from its text. Whole policies of random rules (well and badly
// written, with spaces, trailing commas, quotes, escapes, comments and anchors around the plain
// form's edges) must parse exactly as when every mapping is read in place: the same
// configuration, or the same errors at the same `line:column`; and every key of every rule is
// located at the same place.
const lazyWord = fc.constantFrom(
  "user",
  "fixed",
  "null",
  "Null",
  "NULL",
  "nulls",
  "true",
  "False",
  "TRUE",
  "no",
  "5",
  "1.5",
  "0x1f",
  "a.b/c-d",
  "_x",
  '"x y"',
  '"null"',
  '""',
  "'true'",
  "'a#b'",
  '"^.*-t1[a-z]+$"',
);
/** Quoted text with characters on the edges of the lazy form's quoted scalars. */
const quoted = fc
  .tuple(
    fc.constantFrom('"', "'"),
    fc.array(fc.constantFrom("a", " ", "#", "\\", "\t", "'", '"', ":", "é", "n"), { maxLength: 4 }),
  )
  .map(([q, cs]) => q + cs.join("") + q);
const lazyScalar = fc.oneof(lazyWord, quoted);
const comma = fc.constantFrom(", ", ",", " , ", ",  ");
/** A collection's entries joined by random commas, sometimes with a trailing one. */
const joined = (items: string[]) =>
  fc
    .tuple(comma, fc.constantFrom("", "", ",", ", "))
    .map(([c, trail]) => items.join(c) + (items.length > 0 ? trail : ""));
const lazyList = fc
  .array(lazyScalar, { maxLength: 3 })
  .chain(joined)
  .map((e) => `[${e}]`);
const lazyKey = fc.constantFrom(
  "name",
  "create",
  "filter",
  "parent",
  "value",
  "type",
  "users",
  "groups",
  "Name",
  "bogus",
);
const lazyMapping: fc.Memo<string> = fc.memo((n) =>
  fc
    .array(
      fc.tuple(
        lazyKey,
        n > 1 ? fc.oneof(lazyScalar, lazyList, lazyMapping(n - 1)) : fc.oneof(lazyScalar, lazyList),
      ),
      { maxLength: 5 },
    )
    .chain((pairs) => joined(pairs.map(([k, v]) => `${k}: ${v}`)))
    .map((e) => `{${e}}`),
);
/** A well-formed rule mostly of known keys and values of their types, which the quick decoder takes. */
const goodRule: fc.Memo<string> = fc.memo((n) =>
  fc
    .tuple(
      fc.constantFrom("user", "fixed", "tag", "null", '"provided"'),
      fc.constantFrom(
        "",
        ", create: true",
        ", create: FALSE",
        ", create: null",
        ", create: no",
        ", create: 'true'",
      ),
      fc.oneof(
        fc.constant(""),
        fc
          .tuple(fc.constantFrom("allow", "deny", "Null", "'x'"), lazyList, lazyList)
          .map(([t, u, g]) => `, filter: {type: ${t}, users: ${u}, groups: ${g}}`),
        fc.constantFrom(
          ", filter: null",
          ", filter: {}",
          ", filter: {type: allow, type: deny}",
          ", filter: {users: [a], users: null}",
          ", filter: {groups: NULL}",
          ", filter: x",
        ),
      ),
      n > 1
        ? fc.oneof(
            fc.constant(""),
            fc.constant(", parent: NULL"),
            goodRule(n - 1).map((p) => `, parent: ${p}`),
          )
        : fc.constant(""),
      fc.constantFrom(
        "",
        ", value: root.a",
        ", value: 'x.y'",
        ", value: 7",
        ", value: a, value: b",
        ", value: [a]",
      ),
    )
    .map(([name, create, filter, parent, value]) => `{name: ${name}${create}${filter}${parent}${value}}`),
);
/** A character or two put somewhere in a lazily readable rule, on the edges of the lazy form. */
const NOISE = [
  "#",
  " #c",
  "\t",
  "&a ",
  "*a",
  ":",
  ": ",
  "\\",
  "'",
  '"',
  ",",
  "{",
  "]",
  " ",
  "\n",
  "?",
  "!!str ",
  "-",
];
const noisy = fc
  .tuple(fc.oneof(goodRule(3), lazyMapping(4)), fc.constantFrom(...NOISE), fc.nat())
  .map(([r, noise, at]) => r.slice(0, at % (r.length + 1)) + noise + r.slice(at % (r.length + 1)));
const edgeRule = fc.oneof(
  ruleText(4),
  goodRule(3),
  lazyMapping(4),
  noisy,
  fc.constantFrom(
    "{name: user , create: true,}",
    "{name: user,create: true}",
    '{name: "a\\"b", value: x}',
    "{name: 'a''b'}",
    "{name: user, value: x #c}",
    "{name: user, value: a b}",
    "{name: user, value: a:b}",
    "{name:user}",
    "{name: user, filter: {users: [a ,b,], groups: []}}",
    "{name: user, filter: {users: ['^a.*$', \"b\"]}, parent: {name: fixed, value: x, parent: {name: user}}}",
    "{name: user, parent: {parent: {parent: {name: user, filter: {users: [a]}}}}}",
    "{}",
    "{name: user}: x",
    "{name: user} #c",
    "{name: user}  ",
    "{name: user} x",
    "{name: user\t}",
    '{name: user, value: "x\ty"}',
    '{name: user, value: "é"}',
  ),
);

function policyOf(rules: string[], queue: string): string {
  return [
    "partitions:",
    "  - name: default",
    "    placementrules:",
    ...rules.map((r) => `      - ${r}`),
    "    queues:",
    "      - name: root",
    "        queues:",
    `          - ${queue}`,
    "",
  ].join("\n");
}

function parsedAlike(source: string): void {
  const lazy = parseConfig(source);
  const general = parseConfig(source, false);
  if (!general.ok || !lazy.ok) {
    expect(lazy).toEqual(general);
    return;
  }
  expect(lazy.value.config).toEqual(general.value.config);
  for (const p of general.value.config.partitions ?? [])
    for (const r of p.placementrules)
      for (let q: RawRule | null = r; q !== null; q = q.parent)
        for (const key of [
          "",
          "/name",
          "/create",
          "/value",
          "/filter",
          "/filter/users",
          "/filter/users/0",
          "/filter/groups/1",
          "/parent",
          "/bogus",
        ])
          expect(lazy.value.locate(q.at + key)).toBe(general.value.locate(q.at + key));
}

/** A tree as plain data, every lazy mapping read (its pairs asked for). */
function nodes(v: YamlNode): unknown {
  if (v.kind === "map")
    return {
      ...v,
      text: undefined,
      read: undefined,
      pairs: v.pairs.map((p) => ({ key: nodes(p.key), value: nodes(p.value) })),
    };
  if (v.kind === "seq") return { ...v, items: v.items.map(nodes) };
  return v;
}

/** The rule nodes of a policy of one partition (see placementWithRules), read lazily or not. */
function ruleNodes(source: string, lazy: boolean): YamlNode[] {
  const read = readYaml(source, lazy);
  if (!read.ok || read.tree.root.kind !== "map") throw new Error("not a policy");
  const partition = (read.tree.root.pairs[0].value as YamlSeq).items[0] as YamlMap;
  return (partition.pairs[1].value as YamlSeq).items;
}

describe("lazy reading parses as reading every mapping in place", () => {
  it("on random one-line rules: the same nodes, and the quick decoder takes a rule only as the general one decodes it", () => {
    let taken = 0;
    fc.assert(
      fc.property(edgeRule, (rule) => {
        const source = `- ${rule}\n- {name: q}\n`;
        const lazy = readYaml(source);
        const general = readYaml(source, false);
        expect(lazy.ok).toBe(general.ok);
        if (!lazy.ok || !general.ok) {
          expect(lazy).toEqual(general);
          return;
        }
        expect(nodes(lazy.tree.root)).toEqual(nodes(general.tree.root));
        if (lazy.tree.root.kind !== "seq" || general.tree.root.kind !== "seq") return;
        const quick = quickRule(lazy.tree.root.items[0], "/r");
        if (quick === null) return;
        taken++;
        const d = new Decoder(general.tree);
        expect(decodeRule(d, general.tree.root.items[0], "/r")).toEqual(quick);
        expect(d.errors).toEqual([]);
      }),
      { numRuns: 1500, seed: 4103 },
    );
    expect(taken).toBeGreaterThan(150);
  });

  it("on policies of random rules", () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.array(edgeRule, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(
          "{name: users, parent: true}",
          '{name: default, submitacl: "*"}',
          "{name: q, bogus: 1}",
        ),
        (rules, queue) => {
          const source = policyOf(rules, queue);
          parsedAlike(source);
          const read = readYaml(source);
          if (read.ok)
            taken += ruleNodes(source, true).filter(
              (r) => r instanceof LazyMap && quickRule(r, "") !== null,
            ).length;
        },
      ),
      { numRuns: 400, seed: 4104 },
    );
    // the property is not vacuous: many rules are left unread and decoded from their text
    expect(taken).toBeGreaterThan(100);
  });

  it("on policies of rules written alike (decoded by their shape's pattern), with other rules between them", () => {
    // a few shapes, each filled with random scalars: words, null words, quoted text on the form's edges
    const shapes = [
      (a: string, b: string, c: string) =>
        `{name: ${a}, create: true, filter: {type: ${c}, users: [${b}], groups: [${c}, h]}, parent: {name: fixed, value: ${a}}}`,
      (a: string, b: string, c: string) => `{name: fixed,value: ${b} , filter: {users: [${a},${c}]}}`,
      (a: string, b: string, c: string) =>
        `{name: ${c}, parent: {name: ${b}, parent: {name: ${a}, value: ${b}}}, create: null}`,
    ];
    // words and plainly quoted text, so that most rules of one shape are read by its pattern
    const alike = fc
      .tuple(fc.nat(shapes.length - 1), lazyWord, lazyWord, lazyWord)
      .map(([k, a, b, c]) => shapes[k](a, b, c));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(alike, alike, alike, alike, goodRule(3), noisy), { minLength: 2, maxLength: 12 }),
        (rules) => parsedAlike(policyOf(rules, "{name: users}")),
      ),
      { numRuns: 200, seed: 4105 },
    );
  });

  it("leaves the hard-shape rules unread and decodes them from their text", () => {
    const source = placementWithRules(20, hardRule, ["{name: users, parent: true}"]);
    parsedAlike(source);
    const lazy = ruleNodes(source, true);
    const general = ruleNodes(source, false);
    expect(lazy.every((r) => r instanceof LazyMap)).toBe(true);
    expect(general.some((r) => r instanceof LazyMap)).toBe(false);
    for (let i = 0; i < lazy.length; i++) {
      expect(quickRule(lazy[i], "/r")).not.toBeNull();
      expect(quickRule(lazy[i], "/r")).toEqual(quickRule(general[i], "/r"));
    }
  });

  it("reads in place a line too long or a mapping nested too deep for the lazy form", () => {
    const long = `{name: user, filter: {users: [${Array.from({ length: 400 }, (_, i) => `u${i}`).join(", ")}]}}`;
    const deep = "{a: {b: {c: {d: {e: x}}}}}";
    for (const r of [long, deep]) {
      parsedAlike(policyOf([r], "{name: users}"));
      const read = readYaml(`- ${r}\n`);
      if (!read.ok || read.tree.root.kind !== "seq") throw new Error("unread");
      expect(read.tree.root.items[0] instanceof LazyMap).toBe(false);
    }
    expect((readYaml(`- ${hardRule(1)}\n`) as { tree: { root: YamlSeq } }).tree.root.items[0]).toBeInstanceOf(
      LazyMap,
    );
  });
});
