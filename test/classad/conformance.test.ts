/**
 * HTCondor's own ClassAd vectors: src/classad/functional_tests.txt (run the
 * way classad_functional_tester runs it) and the string vectors of
 * test_classad_funcs.cpp. Known-stale lines are skipped with their reason.
 */
import { expect, it } from "vitest";
import { ClassAd, emptyAd } from "../../src/engines/classad/classad.js";
import { parseOldAd } from "../../src/engines/classad/ad-input.js";
import { compile } from "../../src/engines/classad/compile.js";
import { evalCompiled } from "../../src/engines/classad/evaluate.js";
import { T } from "../../src/engines/classad/lexer.js";
import { Parser, ParseFailure } from "../../src/engines/classad/parser.js";
import { EvalState } from "../../src/engines/classad/state.js";
import { unparseValue } from "../../src/engines/classad/unparse.js";
import { AbsTime, ListValue, Real, RelTime, typeName, type Value } from "../../src/engines/classad/values.js";
import { readSharedData } from "../support/shared-data.js";
import { describeShared } from "../support/shared-suite.js";

const CTX = { now: Date.UTC(2024, 0, 2, 3, 4, 5), random: () => 0.25 };

/** Known-stale lines (SOURCES.md) and lines the spec rules differently, with the reason. */
const SKIP: Record<string, string> = {
  'same $x["c"], error': "stale (SOURCES.md): a missing subscript name gives UNDEFINED",
  "same sum($list0), undefined": "stale (SOURCES.md): sum({}) is integer 0",
  "same avg($list0), undefined": "stale (SOURCES.md): avg({}) is integer 0",
  "same isreltime($x.rtime), true":
    'stale at this commit: a relTime("...") literal evaluates to a Real (spec §8, ReltimeLiteral::_Evaluate)',
  "same splitTime($t).days, 1":
    "stale at this commit: $t holds the Real a relTime literal evaluates to, split as an absolute time",
  "same splittime($t).seconds, 4.5":
    "stale at this commit: $t is a Real (relTime literal), split as an absolute time",
};

/** Value::SameAs: same type and value; lists and ads compare by their printed form. */
function sameAs(a: Value, b: Value): boolean {
  const ta = typeName(a);
  if (ta !== typeName(b)) return false;
  if (a instanceof Real && b instanceof Real) return a.v === b.v;
  if (a instanceof AbsTime && b instanceof AbsTime) return a.secs === b.secs && a.offset === b.offset;
  if (a instanceof RelTime && b instanceof RelTime) return a.secs === b.secs;
  if (a instanceof ListValue || a instanceof ClassAd) return unparseValue(a) === unparseValue(b);
  if (ta === "undefined" || ta === "error") return true;
  return a == b;
}

/** Logical lines: a line starting with whitespace continues the previous one; `//` lines are comments. */
function logicalLines(text: string): { line: number; text: string }[] {
  const raw = text.split("\n");
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i].startsWith("//")) continue;
    const start = i + 1;
    let line = raw[i];
    while (i + 1 < raw.length && (raw[i + 1].startsWith("//") || /^\s/.test(raw[i + 1]))) {
      i++;
      if (!raw[i].startsWith("//")) line += raw[i];
    }
    out.push({ line: start, text: line });
  }
  return out;
}

function evalText(src: string): Value {
  const p = new Parser(src);
  const node = p.parseExpression();
  return evalCompiled(compile(node), emptyAd(), null, new EvalState(CTX));
}

interface Check {
  line: number;
  text: string;
  run: () => boolean;
}

/** Runs functional_tests.txt like classad_functional_tester: variables, eval, same/diff, writexml/readxml. */
function functionalChecks(): { checks: Check[]; evalFailures: string[] } {
  const text = readSharedData("classad", "functional_tests.txt") ?? "";
  const vars = new Map<string, string>();
  const files = new Map<string, string>();
  const checks: Check[] = [];
  const evalFailures: string[] = [];
  const subst = (s: string) =>
    s.replace(/\$([A-Za-z][A-Za-z0-9_]*)/g, (m, name: string) => {
      const v = vars.get(name);
      if (v === undefined) throw new Error(`unknown variable ${m}`);
      return v;
    });
  for (const { line, text: raw } of logicalLines(text)) {
    const cmd = /^\s*([A-Za-z]*)/.exec(raw)?.[1] ?? "";
    let rest = raw.slice(raw.indexOf(cmd) + cmd.length);
    if (cmd === "" || cmd === "echo") continue;
    if (cmd === "eval") {
      try {
        rest = subst(rest);
        const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*=/.exec(rest);
        if (m === null) throw new Error("missing name");
        vars.set(m[1], unparseValue(evalText(rest.slice(m[0].length))));
      } catch (e) {
        evalFailures.push(
          `line ${line}: ${raw.trim()} (${e instanceof ParseFailure ? e.message : String(e)})`,
        );
      }
      continue;
    }
    if (cmd === "writexml") {
      const m = /^\s*(\S+)\s+(.*)$/.exec(rest);
      if (m) files.set(m[1], subst(m[2]));
      continue;
    }
    if (cmd === "readxml") {
      const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s+(\S+)/.exec(rest);
      // the XML round trip keeps the ads as written: keep their text in memory
      if (m) vars.set(m[1], unparseValue(evalText(files.get(m[2]) ?? "{}")));
      continue;
    }
    if (cmd === "same" || cmd === "diff") {
      const want = cmd === "same";
      const src = subst(rest);
      checks.push({
        line,
        text: raw.trim(),
        run: () => {
          const p = new Parser(src);
          const a = p.parseExpression();
          if (p.t() !== T.Comma) throw new Error("missing comma");
          p.advance();
          const b = p.parseExpression();
          const st = new EvalState(CTX);
          const va = evalCompiled(compile(a), emptyAd(), null, st);
          const vb = evalCompiled(compile(b), emptyAd(), null, st);
          return sameAs(va, vb) === want;
        },
      });
    }
  }
  return { checks, evalFailures };
}

/** Reads test_classad_funcs_vectors.txt into (MY ad, expected, expression) triples. */
function funcVectors(): { section: string; my: string; want: string; expr: string }[] {
  const text = readSharedData("classad", "test_classad_funcs_vectors.txt") ?? "";
  const out: { section: string; my: string; want: string; expr: string }[] = [];
  let section = "";
  let my: string[] = [];
  let inMy = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("###")) {
      section = line.slice(3).trim();
      my = [];
      inMy = false;
    } else if (line.startsWith("MY:")) {
      inMy = true;
      my = [];
    } else if (line.startsWith("EXPECT:")) {
      inMy = false;
      const m = /^EXPECT:(.*?)FROM (.*)$/.exec(line);
      if (m) out.push({ section, my: my.join("\n"), want: m[1].trim(), expr: m[2].trim() });
    } else if (inMy && line.trim() !== "") my.push(line.trim());
  }
  return out;
}

describeShared("HTCondor functional_tests.txt", () => {
  const { checks, evalFailures } = functionalChecks();
  let passed = 0;
  let skipped = 0;
  for (const c of checks) {
    const reason = SKIP[c.text];
    if (reason !== undefined) {
      skipped++;
      it.skip(`line ${c.line}: ${c.text} — ${reason}`, () => {});
      continue;
    }
    it(`line ${c.line}: ${c.text}`, () => {
      const ok = c.run();
      if (ok) passed++;
      expect(ok).toBe(true);
    });
  }
  it("every eval line parses and evaluates", () => {
    expect(evalFailures).toEqual([]);
  });
  it("reports its counts", () => {
    console.log(
      `functional_tests.txt: ${passed}/${checks.length - skipped} same/diff checks passed, ${skipped} skipped (stale)`,
    );
    expect(checks.length).toBeGreaterThan(150);
  });
});

describeShared("test_classad_funcs vectors", () => {
  const vectors = funcVectors();
  let passed = 0;
  for (const v of vectors) {
    it(`${v.section}: ${v.expr} -> ${v.want || '""'}`, () => {
      const ad = parseOldAd(v.my);
      if (!ad.ok) throw new Error(ad.error.message);
      const p = new Parser(v.expr);
      const got = evalCompiled(compile(p.parseExpression()), ad.ad, null, new EvalState(CTX));
      const kw = ["true", "false", "error", "undefined"];
      if (kw.includes(v.want)) expect(unparseValue(got)).toBe(v.want);
      else {
        expect(typeof got).toBe("string");
        expect((got as string).toLowerCase()).toBe(v.want.toLowerCase());
      }
      passed++;
    });
  }
  it("reports its counts", () => {
    console.log(`test_classad_funcs vectors: ${passed}/${vectors.length} passed`);
    expect(vectors.length).toBeGreaterThan(60);
  });
});
