import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { policyTestSchemas, TEST_ENGINES, type TestEngine } from "../http/schemas/policy-test.js";
import { didYouMean } from "../engines/common/did-you-mean.js";
import { knownKeysAt } from "../http/known-keys.js";
import { lookedFor, readPolicyDir } from "./policy-files.js";
import { readPlacedYaml, type PlacedYaml } from "./yaml-places.js";

/** The clock a case runs at when it names none: fixed, so verdicts never depend on the day. */
export const DEFAULT_TEST_CLOCK = Date.parse("2025-01-01T00:00:00Z");

/** One step of a stateful case: its kind (the key naming it), its body, and what its answer must hold. */
export interface TestStep {
  kind: string;
  body: unknown;
  expect?: Record<string, unknown>;
  at: string;
}

/** One case of a test file, with where it starts. */
export interface TestCase {
  name: string;
  at: string;
  skip?: string;
  now: number;
  request?: unknown;
  expect?: Record<string, unknown>;
  steps?: TestStep[];
}

/** A checked test file: its engine, the policy file its cases run against, and the cases. */
export interface TestFile {
  path: string;
  engine: TestEngine;
  policyPath: string;
  localAddresses: string[];
  cases: TestCase[];
}

/** A problem that makes a test file unusable, at `line:column`. */
export interface TestFileError {
  file: string;
  at: string;
  message: string;
}

type Path = readonly PropertyKey[];

/** `cases[2].request.user`, for messages. */
function fieldPath(path: Path): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

/** Checks a value with a zod schema, turning its issues into placed errors under `prefix`. */
function check<T>(
  schema: z.ZodType<T>,
  value: unknown,
  prefix: Path,
  yaml: PlacedYaml,
  file: string,
  errors: TestFileError[],
): T | undefined {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      // the fields the object there accepts are the candidates: `reqest` → `request`
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys)
        errors.push({
          file,
          at: yaml.place([...path, key]),
          message: `${fieldPath([...path, key])}: unknown field${didYouMean(key, known)}`,
        });
    } else {
      // zod says `expected string, received undefined` for a field that is not there
      const message =
        issue.code === "invalid_type" && / received undefined$/.test(issue.message)
          ? "is required"
          : issue.message;
      errors.push({
        file,
        at: yaml.place(path),
        message: `${path.length > 0 ? fieldPath(path) + ": " : ""}${message}`,
      });
    }
  }
  return undefined;
}

function clockOf(now: unknown): number {
  if (typeof now === "number") return now;
  if (typeof now === "string") return Date.parse(now);
  return DEFAULT_TEST_CLOCK;
}

/** Checks one step against the schema of its kind; the kind is the one key besides `expect`. */
function readStep(
  engine: TestEngine,
  raw: unknown,
  path: Path,
  yaml: PlacedYaml,
  file: string,
  errors: TestFileError[],
): TestStep | undefined {
  const kinds = policyTestSchemas().STEP_KINDS[engine] ?? {};
  const names = Object.keys(kinds);
  const keys =
    typeof raw === "object" && raw !== null && !Array.isArray(raw)
      ? Object.keys(raw).filter((k) => k !== "expect")
      : [];
  const chosen = keys.filter((k) => names.includes(k));
  if (chosen.length !== 1) {
    const what =
      chosen.length > 1
        ? `names ${chosen.length} steps (${chosen.join(", ")})`
        : keys.length > 0
          ? `\`${keys[0]}\` is no step of ${engine}${didYouMean(keys[0], names)}`
          : "is not a step";
    errors.push({
      file,
      at: yaml.place(path),
      message: `${fieldPath(path)}: ${what}; a step is one of ${names.join(", ")}, with an optional expect`,
    });
    return undefined;
  }
  const step = check(kinds[chosen[0]] as z.ZodType<Record<string, unknown>>, raw, path, yaml, file, errors);
  if (step === undefined) return undefined;
  return {
    kind: chosen[0],
    body: step[chosen[0]],
    expect: step.expect as Record<string, unknown> | undefined,
    at: yaml.place(path),
  };
}

function readCase(
  engine: TestEngine,
  raw: unknown,
  path: Path,
  yaml: PlacedYaml,
  file: string,
  errors: TestFileError[],
): TestCase | undefined {
  const stepped =
    policyTestSchemas().STEP_KINDS[engine] !== undefined &&
    typeof raw === "object" &&
    raw !== null &&
    "steps" in raw;
  if (!stepped) {
    const c = check(
      policyTestSchemas().REQUEST_CASES[engine] as z.ZodType<Record<string, unknown>>,
      raw,
      path,
      yaml,
      file,
      errors,
    );
    if (c === undefined) return undefined;
    return {
      name: c.name as string,
      at: yaml.place(path),
      skip: c.skip as string | undefined,
      now: clockOf(c.now),
      request: c.request,
      expect: c.expect as Record<string, unknown>,
    };
  }
  const c = check(policyTestSchemas().SteppedCaseHeader, raw, path, yaml, file, errors);
  if (c === undefined) return undefined;
  const before = errors.length;
  const steps = c.steps.map((s, i) => readStep(engine, s, [...path, "steps", i], yaml, file, errors));
  if (errors.length > before) return undefined;
  return {
    name: c.name,
    at: yaml.place(path),
    skip: c.skip,
    now: clockOf(c.now),
    steps: steps as TestStep[],
  };
}

/**
 * Reads and checks a `*.test.yaml` file: YAML syntax, the engine, the file's
 * fields, every case and step against its schema, unique case names, and the
 * policy file it runs against. Every error is placed at `line:column`.
 */
export function loadTestFile(
  file: string,
): { ok: true; value: TestFile } | { ok: false; error: TestFileError[] } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { ok: false, error: [{ file, at: "", message: `cannot read the file: ${(e as Error).message}` }] };
  }
  const read = readPlacedYaml(text);
  if (!read.ok) return { ok: false, error: read.error.map((e) => ({ file, at: e.at, message: e.message })) };
  const yaml = read.value;
  const top = yaml.value;
  if (typeof top !== "object" || top === null || Array.isArray(top)) {
    return {
      ok: false,
      error: [{ file, at: "1:1", message: "a test file is a mapping with `engine` and `cases`" }],
    };
  }
  const engine = (top as Record<string, unknown>).engine;
  if (typeof engine !== "string" || !(TEST_ENGINES as readonly string[]).includes(engine)) {
    const given =
      engine === undefined
        ? "is missing"
        : `\`${String(engine)}\` is no engine${didYouMean(String(engine), TEST_ENGINES)}`;
    return {
      ok: false,
      error: [
        {
          file,
          at: yaml.place(["engine"]),
          message: `engine: ${given}; it is one of ${TEST_ENGINES.join(", ")}`,
        },
      ],
    };
  }
  const errors: TestFileError[] = [];
  const header = check(
    policyTestSchemas().testFileHeaderOf(engine as TestEngine),
    top,
    [],
    yaml,
    file,
    errors,
  ) as { policy?: string; context?: { local_addresses?: string[] }; cases: unknown[] } | undefined;
  if (header === undefined) return { ok: false, error: errors };
  const cases: TestCase[] = [];
  const names = new Map<string, number>();
  header.cases.forEach((raw, i) => {
    const c = readCase(engine as TestEngine, raw, ["cases", i], yaml, file, errors);
    if (c === undefined) return;
    const seen = names.get(c.name);
    if (seen !== undefined)
      errors.push({
        file,
        at: yaml.place(["cases", i, "name"]),
        message: `cases[${i}].name: \`${c.name}\` is also the name of cases[${seen}]`,
      });
    names.set(c.name, i);
    cases.push(c);
  });
  const policyPath = policyOf(file, engine as TestEngine, header.policy, yaml, errors);
  if (errors.length > 0 || policyPath === undefined) return { ok: false, error: errors };
  return {
    ok: true,
    value: {
      path: file,
      engine: engine as TestEngine,
      policyPath,
      localAddresses: header.context?.local_addresses ?? [],
      cases,
    },
  };
}

/** The policy file a test file runs against: its own `policy`, else its engine's file in its folder. */
function policyOf(
  file: string,
  engine: TestEngine,
  given: string | undefined,
  yaml: PlacedYaml,
  errors: TestFileError[],
): string | undefined {
  const dir = dirname(file);
  if (given !== undefined) {
    const path = resolve(dir, given);
    if (existsSync(path)) return path;
    errors.push({
      file,
      at: yaml.place(["policy"]),
      message: `policy: there is no file \`${given}\` beside this test file`,
    });
    return undefined;
  }
  const found = readPolicyDir(dir).files[engine];
  if (found !== undefined) return found;
  errors.push({
    file,
    at: yaml.place(["engine"]),
    message: `no ${engine} policy in this test file's folder (no ${lookedFor(engine)}): name one with \`policy:\``,
  });
  return undefined;
}
