/**
 * The lint codes' case files, test/cases/<engine>/lint/<code>.yaml: each case
 * lints its policy and must find exactly the findings of that code it lists
 * (`want: []`: none). Every code the analyses can report has a file with a
 * case that triggers it and one that does not, and docs/policies/analysis.md
 * explains it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { LINT_CODES, lintSource } from "../../src/bundle/lint.js";
import { ENGINE_NAMES } from "../../src/engines/common/engine.js";
import { REPO_ROOT } from "../support/cases.js";

const Want = z.strictObject({
  at: z.string(),
  // the whole message when given
  message: z.string().optional(),
  severity: z.enum(["warning", "info"]).optional(),
});

const LintCase = z.strictObject({
  note: z.string().min(1),
  policy: z.string(),
  ads: z.string().optional(),
  work: z.number().int().positive().optional(),
  want: z.array(Want),
});

const docs = readFileSync(join(REPO_ROOT, "docs/policies/analysis.md"), "utf8");

for (const engine of ENGINE_NAMES) {
  const dir = join(REPO_ROOT, "test/cases", engine, "lint");
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith(".yaml"))
        .sort()
    : [];
  describe(`${engine} lint`, () => {
    it("has a case file for every code, and no file for a code it cannot report", () => {
      expect(files.map((f) => f.replace(/\.yaml$/, ""))).toEqual([...LINT_CODES[engine]].sort());
    });
    for (const file of files) {
      const code = file.replace(/\.yaml$/, "");
      const cases = z.array(LintCase).parse(parse(readFileSync(join(dir, file), "utf8")));
      it(`${code}: has a case that reports it and one that does not, and is documented`, () => {
        expect(cases.some((c) => c.want.length > 0)).toBe(true);
        expect(cases.some((c) => c.want.length === 0)).toBe(true);
        expect(docs).toContain(`\`${code}\``);
      });
      cases.forEach((c, i) => {
        it(`${code} #${i}: ${c.note}`, () => {
          const r = lintSource(engine, c.policy, {
            ...(c.ads === undefined ? {} : { ads: c.ads }),
            ...(c.work === undefined ? {} : { work: c.work }),
          });
          if (!r.ok) throw new Error(`the policy does not compile: ${JSON.stringify(r.error)}`);
          for (const f of r.value) expect([...LINT_CODES[engine], "lint_incomplete"]).toContain(f.code);
          const got = r.value.filter((f) => f.code === code);
          expect(got.map((f) => f.at)).toEqual(c.want.map((w) => w.at));
          c.want.forEach((w, j) => {
            if (w.message !== undefined) expect(got[j].message).toBe(w.message);
            if (w.severity !== undefined) expect(got[j].severity).toBe(w.severity);
          });
        });
      });
    }
  });
}
