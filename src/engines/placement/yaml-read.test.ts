// Issue 24 item 5: YAML that was quadratic, or overflowed the stack, in the `yaml` package's
// parser and composer. Each gets a clean answer from our own reader (yaml-read.ts); the CPU
// each takes is measured by `npm run bench:hostile` (bench/hostile-policies.ts), not here.
import { describe, expect, it } from "vitest";
import { compilePlacement } from "./index.js";
import { readYamlSteps, readYamlText } from "./yaml-read.js";

const head = "partitions:\n- name: default\n  queues:\n  - name: root\n    properties:\n";

/** The first error of compiling the source (its code and place), or "ok". */
function firstError(source: string): { code: string; at: string } | "ok" {
  const c = compilePlacement(source);
  return c.ok ? "ok" : { code: c.error[0].code, at: c.error[0].at };
}

describe("hostile YAML gets a clean answer", () => {
  it("87,000 `[` are too deep, at the 101st collection", () => {
    expect(firstError("partitions: " + "[".repeat(87_000))).toEqual({
      code: "placement_yaml_too_deep",
      at: "1:112",
    });
  });

  it("a quoted scalar of 80,000 folded lines is read, each line's trailing blanks dropped", () => {
    for (const q of ['"', "'"]) {
      const read = readYamlText(`k: ${q}a` + " \n  a".repeat(80_000) + `${q}\n`);
      if (!read.ok || read.root.kind !== "map") throw new Error("not read");
      const value = read.root.pairs[0].value;
      expect(value?.kind === "scalar" ? value.value : null).toBe("a" + " a".repeat(80_000));
    }
  }, 60_000);

  it("5,000 lines of `- - - … x:` are read (a sequence is no configuration)", () => {
    const source = "partitions:\n" + Array.from({ length: 5_000 }, () => "- ".repeat(40) + "x:\n").join("");
    const read = readYamlText(source);
    expect(read.ok).toBe(true);
    expect(firstError(source)).toEqual({ code: "placement_invalid_type", at: "2:3" });
  }, 60_000);

  it("5,000 lines of `- - - … x:` 120 deep are too deep", () => {
    const source = Array.from({ length: 5_000 }, () => "- ".repeat(120) + "x:\n").join("");
    expect(firstError(source)).toEqual({ code: "placement_yaml_too_deep", at: "1:201" });
  });

  it("a long run of `? ` (explicit keys, 400,000) is too deep", () => {
    expect(firstError("partitions:\n" + "? ".repeat(400_000) + "x")).toEqual({
      code: "placement_yaml_too_deep",
      at: "2:201",
    });
  });

  it("200,000 lines of `? x` are repeated keys, as yaml.v3 says", () => {
    const c = compilePlacement("partitions:\n" + "? x\n".repeat(200_000));
    expect(c.ok).toBe(false);
    if (!c.ok)
      expect(c.error[0]).toMatchObject({
        code: "placement_duplicate_key",
        message: 'mapping key "x" already defined at line 2',
        at: "3:3",
      });
  });

  it("lines of 20 nested explicit keys read as 20 nested key mappings, the same when read in slices", () => {
    // the fuzzer's family (test/fuzz/cases/yunikorn-yaml-63b5f30d0b.json): each level is a frame of the reader's own
    const source = "partitions:\n" + ("? ".repeat(20) + "xpartitions:\n").repeat(3_000);
    const whole = readYamlText(source);
    if (!whole.ok || whole.root.kind !== "map") throw new Error("not read");
    expect(whole.root.pairs).toHaveLength(3_001);
    let key = whole.root.pairs[3_000].key;
    let depth = 0;
    while (key.kind === "map") {
      expect(key.pairs).toHaveLength(1);
      depth++;
      if (depth === 20) expect(key.pairs[0].key).toMatchObject({ kind: "scalar", value: "xpartitions" });
      key = key.pairs[0].key;
    }
    expect(depth).toBe(20);
    const steps = readYamlSteps(source);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    expect(yields).toBeGreaterThanOrEqual(Math.floor(source.length / 16_384));
    expect(JSON.stringify(r.value.ok && r.value.root)).toBe(JSON.stringify(whole.root));
    expect(firstError(source)).toMatchObject({ code: "placement_duplicate_key" });
  });

  it("45,000 anchored keys (807 KB; the issue's file spelled them at 934 KB) are valid", () => {
    const source =
      head +
      Array.from({ length: 45_000 }, (_, i) => `      &${i.toString(36)} ${i.toString(36)}: v\n`).join("");
    expect(source.length).toBeGreaterThan(800_000);
    expect(firstError(source)).toBe("ok");
  });

  it("16,000 keys in one mapping are valid, and a repeated one is named", () => {
    const keys = Array.from({ length: 16_000 }, (_, i) => `      k${i}: v\n`);
    expect(firstError(head + keys.join(""))).toBe("ok");
    const c = compilePlacement(head + keys.join("") + "      k7: w\n");
    expect(c.ok ? [] : c.error.map((e) => e.code)).toEqual(["placement_duplicate_key"]);
  });

  it("a second document is refused, naming where it starts", () => {
    const c = compilePlacement("partitions: []\n---\npartitions: []\n");
    expect(c.ok ? null : c.error[0]).toMatchObject({ code: "placement_yaml_syntax", at: "2:1" });
  });
});

describe("the reader reads YAML as the yaml package did", () => {
  it("scalars by the core schema, quoting, folding and block scalars", () => {
    const read = readYamlText(
      "a: 0x1f\nb: '1'\nc: ~\nd: .inf\ne: \"x\\ty\"\nf: |\n  one\n  two\ng: >-\n  folded\n  line\n\n  next\nh: plain\n  continued\ni: [1, {j: k}, 'l']\n",
    );
    if (!read.ok) throw new Error(JSON.stringify(read));
    const root = read.root;
    expect(root.kind).toBe("map");
    if (root.kind !== "map") return;
    const values = Object.fromEntries(
      root.pairs.map((p) => [
        p.key.kind === "scalar" ? p.key.source : "?",
        p.value.kind === "scalar" ? p.value.value : p.value.kind,
      ]),
    );
    expect(values).toEqual({
      a: 31,
      b: "1",
      c: null,
      d: Infinity,
      e: "x\ty",
      f: "one\ntwo\n",
      g: "folded line\nnext",
      h: "plain continued",
      i: "seq",
    });
  });

  it("an alias is the node last anchored with its name, and one inside its anchor is cyclic", () => {
    const read = readYamlText("a: &x 1\nb: &x [*x]\nc: *x\n");
    if (!read.ok || read.root.kind !== "map") throw new Error("unread");
    const [, b, c] = read.root.pairs;
    expect(b.value.kind === "seq" && b.value.items[0]).toMatchObject({ kind: "alias", cyclic: true });
    expect(c.value).toMatchObject({ kind: "alias", cyclic: false, target: b.value });
  });
});
