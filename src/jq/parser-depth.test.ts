import { describe, expect, it } from "vitest";
import { compileJq } from "./index.js";
import { MAX_PARSE_DEPTH } from "./parser.js";

function refusal(src: string) {
  const c = compileJq(src);
  return c.ok ? null : c.error[0];
}

describe("the jq parser bounds nesting instead of overflowing the stack", () => {
  it("refuses 50,000-deep parentheses, arrays, objects, negations and patterns with line:column", () => {
    for (const src of [
      "(".repeat(50_000) + "." + ")".repeat(50_000),
      "[".repeat(50_000) + "]".repeat(50_000),
      "{a:".repeat(50_000) + "1" + "}".repeat(50_000),
      "-".repeat(50_000) + "1",
      ". as " + "[".repeat(50_000) + "$a" + "]".repeat(50_000) + " | $a",
      Array.from({ length: 5_000 }, () => ".").join(" | "),
      // operator chains and suffix chains build trees as deep as they are long
      Array.from({ length: 50_000 }, () => "1").join(" + "),
      Array.from({ length: 20_000 }, () => "1").join(", "),
      Array.from({ length: 20_000 }, () => "1").join(" // "),
      Array.from({ length: 20_000 }, () => "true").join(" and "),
      ".a".repeat(20_000),
      ".[0]".repeat(20_000),
    ]) {
      const e = refusal(src);
      expect(e?.code).toBe("jq_syntax_error");
      expect(e?.message).toBe(`program nested too deeply (more than ${MAX_PARSE_DEPTH} levels)`);
      expect(e?.at).toMatch(/^1:\d+$/);
    }
  });

  it("refuses string interpolations nested past 64 levels", () => {
    const e = refusal('"\\('.repeat(5_000) + "1" + ')"'.repeat(5_000));
    expect(e?.message).toBe("string interpolation nested too deeply (more than 64 levels)");
  });

  it("still compiles and runs programs nested 250 levels deep", () => {
    const c = compileJq("(".repeat(250) + ". + 1" + ")".repeat(250));
    expect(c.ok && c.value.run(1).outputs).toEqual([2]);
    const sum = compileJq(Array.from({ length: 300 }, () => "1").join(" + "));
    expect(sum.ok && sum.value.run(null).outputs).toEqual([300]);
    const s = compileJq('"\\('.repeat(60) + "1" + ')"'.repeat(60));
    expect(s.ok && s.value.run(null).outputs).toEqual(["1"]);
  });
});
