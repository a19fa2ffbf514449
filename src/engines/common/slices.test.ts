// Resumable compiles (issue 24, "/healthz answers within 100 ms"): the synchronous driver
// (the CLI, `engine.compile`) and the sliced one (the Worker's routes) run the same steps,
// so they must give the same result, errors and their order included; a large source must
// really be cut into slices; and the JSON depth check before JSON.parse keeps the answers.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMPILE_ROWS } from "../../../test/hostile/compile-rows.js";
import { ENGINES } from "../../bundle/registry.js";
import type { EngineName } from "./engine.js";
import { deepFailure, nestsPast, parseJsonText } from "./json-syntax.js";
import { finish, finishInSlices, Pace, type Steps } from "./slices.js";
import { readYamlTreeSteps } from "../placement/yaml-tree.js";
import { compilePlacementSteps } from "../placement/compile.js";
import { hardRule, placementWithRules } from "../../../bench/fixtures.js";

const head = "partitions:\n- name: default\n  queues:\n  - name: root\n    properties:\n";

/** Sources of every shape the sliced readers meet: valid, invalid late, invalid early, deep. */
const SOURCES: { name: string; engine: EngineName; source: string }[] = [
  {
    name: "the shipped placement policy",
    engine: "placement",
    source: readFileSync("policies/placement.yaml", "utf8"),
  },
  { name: "the shipped pool policy", engine: "match", source: readFileSync("policies/pool.conf", "utf8") },
  {
    name: "8,000 anchored keys",
    engine: "placement",
    source:
      head +
      Array.from({ length: 8_000 }, (_, i) => `      &${i.toString(36)} ${i.toString(36)}: v\n`).join(""),
  },
  {
    name: "a repeated key after 5,000 keys",
    engine: "placement",
    source: head + Array.from({ length: 5_000 }, (_, i) => `      k${i}: v\n`).join("") + "      k7: w\n",
  },
  {
    name: "2,000 partitions that are sequences (1,000 errors, then a count)",
    engine: "placement",
    source: "partitions:\n" + Array.from({ length: 2_000 }, () => "- ".repeat(10) + "x:\n").join(""),
  },
  { name: "20,000 lines of `? x`", engine: "placement", source: "partitions:\n" + "? x\n".repeat(20_000) },
  {
    name: "a syntax error at the end of 20,000 flow items",
    engine: "placement",
    source: "partitions: [" + "a, ".repeat(20_000) + "]]",
  },
  {
    name: "2,000 hard-shape rules (valid)",
    engine: "placement",
    source: placementWithRules(2_000, hardRule, ["{name: users, parent: true}"]),
  },
  {
    name: "400 rules failing validation (bad expressions, names, missing queues) and the build (unknown rules)",
    engine: "placement",
    source: placementWithRules(
      400,
      (i) =>
        [
          `{name: user, filter: {users: ["[bad${i}"], groups: ["(x"]}}`,
          `{name: fixed, value: root.q${i}.x}`,
          `{name: bogus${i}, create: true}`,
          `{name: fixed, value: "a b", create: true}`,
          `{name: tag, value: "", filter: {type: sometimes, users: [a, a, "b c"]}}`,
          `{name: "not a name"}`,
        ][i % 6],
    ),
  },
  {
    name: "3,000 queues with repeated names and bad ACLs under rules that miss them",
    engine: "placement",
    source: placementWithRules(
      300,
      (i) => `{name: fixed, value: root.p${i % 50}.c${i}}`,
      Array.from(
        { length: 3_000 },
        (_, i) =>
          `{name: p${i % 2_900}, parent: ${i % 3 === 0}, submitacl: "${i % 7 === 0 ? "a b c d" : "*"}"}`,
      ),
    ),
  },
  ...COMPILE_ROWS.map((row) => ({ name: row.name, engine: row.engine, source: row.source(100_000) })),
];

/** Runs resumable work in slices, counting the pauses between them. */
async function sliced<T>(steps: Steps<T>): Promise<{ value: T; pauses: number }> {
  let pauses = 0;
  const value = await finishInSlices(steps, async () => void pauses++);
  return { value, pauses };
}

describe("the synchronous and the sliced compile agree", () => {
  for (const { name, engine, source } of SOURCES) {
    it(`${engine}: ${name}`, async () => {
      const def = ENGINES[engine];
      const one = def.compile(source);
      if (def.compileSteps === undefined) return;
      const again = finish(def.compileSteps(source));
      const { value } = await sliced(def.compileSteps(source));
      expect(again).toEqual(one);
      expect(value).toEqual(one);
    });
  }

  it("cuts a large source into many slices", async () => {
    const source =
      head +
      Array.from({ length: 45_000 }, (_, i) => `      &${i.toString(36)} ${i.toString(36)}: v\n`).join("");
    const { value, pauses } = await sliced(ENGINES.placement.compileSteps!(source));
    expect(value.ok).toBe(true);
    // 807 KB read in slices of 16 KiB (49 of them), then decoded and built
    expect(pauses).toBeGreaterThan(40);
    const conf = COMPILE_ROWS.find((r) => r.name.includes("macro defaults nested to the end"))!.source(
      1_000_000,
    );
    const macro = await sliced(ENGINES.match.compileSteps!(conf));
    expect(macro.value).toEqual(ENGINES.match.compile(conf));
    expect(macro.pauses).toBeGreaterThan(10);
  });
});

describe("the placement compile yields after reading too", () => {
  it("cuts decoding, validation and the rule build of 5,000 rules into slices", async () => {
    const source = placementWithRules(5_000, hardRule, ["{name: users, parent: true}"]);
    const read = await sliced(readYamlTreeSteps(source));
    const all = await sliced(ENGINES.placement.compileSteps!(source));
    expect(all.value.ok).toBe(true);
    // before, the stages after reading ran in one piece: one checkpoint between reading and the rest
    expect(all.pauses - read.pauses).toBeGreaterThan(20);
  });

  it("builds the stored columns of 5,000 rules in slices too (publish, validate and a diff's sides)", async () => {
    const source = placementWithRules(5_000, hardRule, ["{name: users, parent: true}"]);
    const built = await sliced(compilePlacementSteps(source));
    const stored = await sliced(ENGINES.placement.compileSteps!(source));
    expect(stored.value).toEqual(ENGINES.placement.compile(source));
    // before, storing was one piece after the build: one checkpoint more than the build's
    expect(stored.pauses - built.pauses).toBeGreaterThan(10);
  }, 60_000);

  it("keeps two compiles apart when their slices interleave (nothing of a compile is a module's variable)", async () => {
    const good = placementWithRules(1_500, hardRule, ["{name: users, parent: true}"]);
    const bad = placementWithRules(1_500, (i) => `{name: user, filter: {users: ["^(x${i % 3}"]}}`);
    const a = ENGINES.placement.compileSteps!(good);
    const b = ENGINES.placement.compileSteps!(bad);
    let ra: IteratorResult<void, unknown> | undefined;
    let rb: IteratorResult<void, unknown> | undefined;
    while (!ra?.done || !rb?.done) {
      if (!ra?.done) ra = a.next();
      if (!rb?.done) rb = b.next();
    }
    expect(ra.value).toEqual(ENGINES.placement.compile(good));
    expect(rb.value).toEqual(ENGINES.placement.compile(bad));
    expect(rb.value).toMatchObject({ ok: false });
  });
});

describe("Pace", () => {
  it("is due once per slice of units", () => {
    const pace = new Pace(10);
    const due = Array.from({ length: 25 }, () => pace.spend(1));
    expect(due.flatMap((d, i) => (d ? [i] : []))).toEqual([9, 19]);
    expect(pace.spend(100)).toBe(true);
  });
});

describe("JSON policies nested past the limit are refused before JSON.parse", () => {
  it("counts brackets outside strings only", () => {
    expect(nestsPast(`{"a": "${"[".repeat(500)}"}`, 100)).toBe(false);
    expect(nestsPast(`{"a": "\\"${"[".repeat(500)}"}`, 100)).toBe(false);
    expect(nestsPast(`${"[".repeat(101)}${"]".repeat(101)}`, 100)).toBe(true);
    expect(nestsPast(`${"[".repeat(100)}${"]".repeat(100)}`, 100)).toBe(false);
    expect(deepFailure(`[${"[]".repeat(10_000)}]`)).toBeNull();
  });

  it("answers as the parser's path does: a syntax error before the deep container, else the container", () => {
    const deepValid = `{"a": [1, {"b": ${"[".repeat(5_000)}1${"]".repeat(5_000)}}]}`;
    const deepBroken = `{"a": [1, {"b": ${"[".repeat(5_000)}1,]`;
    const parsed = parseJsonText(deepValid);
    const broken = parseJsonText(deepBroken);
    expect(parsed).toMatchObject({ ok: false, shape: { kind: "depth", limit: 100 } });
    expect(broken).toEqual(parsed);
    expect(parseJsonText(`[1 2, ${"[".repeat(5_000)}]`)).toMatchObject({
      ok: false,
      error: { line: 1, column: 4 },
    });
  });

  it("refuses a deep value even where a repeated key would replace it (the limit holds for the text)", () => {
    const text = `{"a": ${"[".repeat(200)}${"]".repeat(200)}, "a": 1}`;
    expect(JSON.parse(text)).toEqual({ a: 1 });
    expect(parseJsonText(text)).toMatchObject({ ok: false, shape: { kind: "depth", limit: 100 } });
  });
});
