/**
 * Which cases of gojq's cli/test.yaml a real jq binary passes, judged as test/jq/gojq-cli.test.ts judges
 * ours: `JQ=/path/to/jq-1.7.1 GOJQ_CLI_TEST=/path/to/gojq/cli/test.yaml npx tsx scripts/gojq-cases-vs-jq.ts`
 * prints the failing cases' keys with why, then the counts; with `--yaml` it prints them as
 * test/jq/gojq-not-jq.yaml lists them (the cases the suite leaves out, each with a reason). The cases run as gojq's harness runs them:
 * in test.yaml's folder, NO_COLOR and GOJQ_COLORS empty, local time UTC-7, HOME an empty folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GOJQ_TEST, judge, readGojqCases } from "../test/jq/gojq-cli-cases.js";

const jq = process.env.JQ ?? "jq";
const home = mkdtempSync(path.join(tmpdir(), "gojq-home-"));
const yaml = process.argv.includes("--yaml");
let passed = 0;
const cases = readGojqCases();

/** Why jq fails a case, in a few words. */
function why(err: string, problem: string, sortedOnly: boolean): string {
  const opt = /Unknown option (\S+)/.exec(err);
  if (opt) return `jq has no option ${opt[1]} (gojq's own)`;
  const undef = /error: (\S+\/\d+) is not defined/.exec(err);
  if (undef) return `jq has no ${undef[1]} (gojq's own builtin)`;
  if (sortedOnly) return "gojq prints object keys sorted, jq in insertion order";
  const parts = problem
    .split("; ")
    .map((p) =>
      p.startsWith("exit ")
        ? p.replace(", want", " where gojq's case wants")
        : p.startsWith("stdout")
          ? "other stdout"
          : p.startsWith("stderr")
            ? "an error where gojq has none"
            : "no error where gojq has one",
    );
  return `jq 1.7.1 gives ${[...new Set(parts)].join(", ")}`;
}
for (const c of cases) {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TZ: "UTC+7",
    NO_COLOR: "",
    GOJQ_COLORS: "",
    ...c.env,
  };
  const r = spawnSync(jq, c.args, {
    cwd: path.dirname(GOJQ_TEST),
    input: c.input,
    env,
    encoding: "utf8",
    timeout: 10_000,
  });
  const problem = judge(c, { code: r.status ?? -1, out: r.stdout ?? "", err: r.stderr ?? "" });
  if (problem === null) passed++;
  else if (!yaml) console.log(`${JSON.stringify(c.key)}\t${problem.slice(0, 200)}`);
  else {
    const sortedOnly =
      r.status === c.exitCode && r.stdout !== c.expected && sortKeys(r.stdout) === sortKeys(c.expected);
    console.log(
      `- case: ${JSON.stringify(c.key)}\n  reason: ${JSON.stringify(why(r.stderr ?? "", problem, sortedOnly))}`,
    );
  }
}
/** Output text with every JSON object's keys sorted, to tell a key-order difference from others. */
function sortKeys(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      try {
        return JSON.stringify(
          JSON.parse(line, (_k, v: unknown) =>
            v !== null && typeof v === "object" && !Array.isArray(v)
              ? Object.fromEntries(Object.entries(v).sort())
              : v,
          ),
        );
      } catch {
        return line;
      }
    })
    .join("\n");
}

console.log(
  `${yaml ? "# " : ""}${yaml ? "jq 1.7.1" : `jq (${jq})`} passes ${passed} of ${cases.length} cases of ${yaml ? "gojq's cli/test.yaml" : GOJQ_TEST}`,
);
