import { readFileSync } from "node:fs";
import { DEFAULT_FETCH_BUDGET } from "../engines/limits/context.js";
import type { CustomsPolicy } from "../engines/customs/index.js";
import type { TestEngine } from "../http/schemas/policy-test.js";
import { answerRequest, preparePolicy, type PolicyOutcome } from "./eval-answer.js";
import { customsAnswer } from "./eval-customs.js";
import { jobfilterEvaluator } from "./eval-jobfilter.js";
import { limitsEvaluatorWith } from "./eval-limits.js";
import { matchEvaluator } from "./eval-match.js";
import { placementEvaluator } from "./eval-placement.js";
import type { PolicyEvaluator } from "./evaluator.js";
import { errorLine } from "./policy-files.js";
import { describeDifference, differences } from "./test-expect.js";
import type { TestCase, TestFile, TestStep } from "./test-file.js";
import { stepMachine } from "./test-steps.js";

/** The outcome of one case. */
export interface CaseResult {
  file: string;
  at: string;
  name: string;
  engine: TestEngine;
  status: "passed" | "failed" | "skipped";
  /** Why it failed, one entry per differing field (or per policy error); the skip reason when skipped. */
  messages: string[];
  ms: number;
}

/** Policies compiled so far, by engine and path: files sharing a policy compile it once. */
export class PolicyCache {
  private readonly seen = new Map<string, Promise<PolicyOutcome>>();

  /** The compiled policy of a file for an engine. */
  get(engine: TestEngine, path: string): Promise<PolicyOutcome> {
    const key = `${engine}\0${path}`;
    let p = this.seen.get(key);
    if (p === undefined) {
      p = preparePolicy(engine, readFileSync(path, "utf8"));
      this.seen.set(key, p);
    }
    return p;
  }
}

/** The evaluator `arbiter eval <engine>` uses, with the context the test file fixes. */
function evaluatorOf(file: TestFile): PolicyEvaluator | undefined {
  switch (file.engine) {
    case "limits":
      return limitsEvaluatorWith(() => ({
        localAddresses: file.localAddresses,
        fetchBudget: DEFAULT_FETCH_BUDGET,
      })) as PolicyEvaluator;
    case "placement":
      return placementEvaluator as PolicyEvaluator;
    case "match":
      return matchEvaluator as PolicyEvaluator;
    case "jobfilter":
      return jobfilterEvaluator as PolicyEvaluator;
    case "customs":
      return undefined;
  }
}

async function answerOf(file: TestFile, policy: unknown, revision: string, c: TestCase): Promise<object> {
  const evaluator = evaluatorOf(file);
  if (evaluator === undefined) return customsAnswer(policy as CustomsPolicy, c.request, c.now);
  return answerRequest(evaluator, { policy, revision }, c.request, c.now);
}

/** What went wrong in a stepped case: the first step whose answer differs (later steps depend on it), or none. */
async function runSteps(file: TestFile, policy: unknown, revision: string, c: TestCase): Promise<string[]> {
  const machine = stepMachine(file.engine, policy, revision);
  let clock = c.now;
  const steps = c.steps as TestStep[];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (step.kind === "wait") clock += Math.round((step.body as number) * 1000);
    const answer = await machine.run(step.kind, step.body, clock);
    const where = `steps[${i}] (${step.kind}, ${step.at})`;
    if (step.expect === undefined) {
      const error = (answer as { error?: { code?: string; message?: string } }).error;
      if (error !== undefined) return [`${where}: failed with ${error.code}: ${error.message}`];
      continue;
    }
    const diffs = differences(step.expect, answer);
    if (diffs.length > 0) return diffs.map((d) => `${where}: ${describeDifference(d)}`);
  }
  return [];
}

/** Runs one case against its file's compiled policy. */
async function runCase(file: TestFile, compiled: PolicyOutcome, c: TestCase): Promise<CaseResult> {
  const started = performance.now();
  const base = { file: file.path, at: c.at, name: c.name, engine: file.engine };
  if (c.skip !== undefined) return { ...base, status: "skipped", messages: [c.skip], ms: 0 };
  let messages: string[];
  if (!compiled.ok) {
    messages = compiled.error.error.details.map(
      (e) => `the policy does not compile: ${errorLine(file.policyPath, e)}`,
    );
  } else if (c.steps !== undefined) {
    messages = await runSteps(file, compiled.ready.policy, compiled.ready.revision, c);
  } else {
    const answer = await answerOf(file, compiled.ready.policy, compiled.ready.revision, c);
    messages = differences(c.expect, answer).map(describeDifference);
  }
  return {
    ...base,
    status: messages.length === 0 ? "passed" : "failed",
    messages,
    ms: performance.now() - started,
  };
}

/** Runs a file's cases (those whose name `only` matches, when given), reporting each as it ends. */
export async function runTestFile(
  file: TestFile,
  policies: PolicyCache,
  only: RegExp | undefined,
  done: (r: CaseResult) => void,
): Promise<CaseResult[]> {
  const compiled = await policies.get(file.engine, file.policyPath);
  const results: CaseResult[] = [];
  for (const c of file.cases) {
    if (only !== undefined && !only.test(c.name)) continue;
    const r = await runCase(file, compiled, c);
    results.push(r);
    done(r);
  }
  return results;
}
