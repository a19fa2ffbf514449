/**
 * The `*.test.yaml` policy test files `arbiter test` runs. One file names an
 * engine and holds cases; a case sends one request (the body its decision
 * route or `arbiter eval` takes) and names the verdict fields it expects, or,
 * for the stateful engines, runs steps against a fresh in-memory queue or
 * host pool. Requests and step bodies are the API's own zod schemas, so a
 * test file is checked as strictly as a request, and the JSON Schema served
 * at `/v1/schemas/policy-test.json` is generated from these definitions.
 *
 * The schemas are built on first use ({@link policyTestSchemas}), not when the module
 * loads: the Worker needs them only to serve `/v1/schemas/policy-test.json`, and built
 * at load they were 528 of the 2,284 zod schemas an isolate held whatever it served
 * (docs/performance.md, wt/lazyschema).
 */
import * as z from "zod";
import { hostSchemas } from "./hosts.js";
import { jobSchemas } from "./jobs.js";
import { LimitsRequest, limitsVerdictSchema } from "./limits.js";
import { MatchRequest } from "./match.js";
import { matchVerdictSchemas } from "./match-verdicts.js";
import { PlaceRequest, placeVerdictSchema } from "./placement.js";
import { lazily } from "../../engines/common/lazy.js";

/** The engines a test file can name. */
export const TEST_ENGINES = ["limits", "placement", "match", "customs", "jobfilter"] as const;
/** An engine a test file names. */
export type TestEngine = (typeof TEST_ENGINES)[number];

/** Builds every schema of test files (once: see {@link policyTestSchemas}). */
function buildPolicyTestSchemas() {
  const { AllocateRequest, AllocateResponse, FinishResponse, HostReport, HostReportResponse } = hostSchemas();
  const { FilterBody, JobfilterDecisionRequest, JobSubmission, JobVerdict, ScheduleVerdict } = jobSchemas();
  /** One expected value: equal for scalars and lists, key by key for objects, or a matcher. */
  const Expected = z.unknown().meta({
    description:
      "the expected value: scalars and lists must be equal (list items that are objects are matched key by key), objects are matched key by key; " +
      "for text and lists, `{contains: X}` (a substring of the text or of an item, or an item matching X), `{line: X}` (one of the lines, outer spaces aside) or `{matches: REGEX}`; `line` and `matches` take a list of values, each of which must hold",
  });

  /** A verdict error as `arbiter eval` and the routes answer it. */
  const ErrorAnswer = z.strictObject({
    code: z.string(),
    message: z.string().optional(),
    details: z.unknown().optional(),
  });

  /**
   * A partial answer: any of the answer's fields, each an expected value; a field
   * the answer never has is a typo and the file is refused. At least one field.
   */
  function expectOf(fields: readonly string[]) {
    const shape: Record<string, z.ZodOptional<z.ZodType>> = {};
    for (const f of fields) shape[f] = Expected.optional();
    shape.error = ErrorAnswer.partial().optional();
    return z
      .strictObject(shape)
      .refine((v) => Object.keys(v).length > 0, {
        message: "names no field: say what the answer must hold",
        when: (p) => p.issues.length === 0,
      })
      .meta({
        description: "the fields of the answer that must match (the others are not checked)",
        minProperties: 1,
      });
  }

  const fieldsOf = (schema: { shape: Record<string, unknown> }, leave: readonly string[] = []) =>
    Object.keys(schema.shape).filter((k) => !leave.includes(k));

  /** A case's clock: an ISO 8601 time or epoch milliseconds (default 2025-01-01T00:00:00Z). */
  const TestClock = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)]).meta({
    description:
      "the clock the case runs at: an ISO 8601 time or epoch milliseconds (default 2025-01-01T00:00:00Z)",
  });

  const caseBase = {
    name: z.string().min(1).max(500).describe("the case's name, shown on failure and matched by --run"),
    skip: z.string().min(1).optional().describe("a reason: the case is reported skipped instead of run"),
    now: TestClock.optional(),
  };

  const ENVELOPE = ["decision_id", "revision"];

  /** The pure customs decision `arbiter eval customs` takes: a pool of hosts in scan order and one request. */
  const CustomsDecisionRequest = z.strictObject({
    hosts: z.array(HostReport.extend({ name: z.string().min(1).max(256) })).max(10_000),
    request: AllocateRequest,
    now: z.number().optional().describe("epoch milliseconds, for down detection (default: the case's clock)"),
    last: z.string().nullable().optional().describe("the host allocated last (round robin starts after it)"),
  });

  const secondsWait = z
    .number()
    .positive()
    .max(10 * 365 * 86400)
    .describe("seconds the clock moves on; deadlines due by then are run as the alarm would");

  /** The steps of a host pool case: agent reports, allocations, permit releases, time passing. */
  const CustomsSteps = {
    report: z.strictObject({
      report: HostReport.extend({ name: z.string().min(1).max(256) }).describe(
        "a host agent's report, as PUT /v1/hosts/{name} takes it (with its name)",
      ),
      expect: expectOf(fieldsOf(HostReportResponse)).optional(),
    }),
    allocate: z.strictObject({
      allocate: AllocateRequest.describe("an allocation, as POST /v1/hosts/allocate takes it"),
      expect: expectOf(fieldsOf(AllocateResponse, ENVELOPE)).optional(),
    }),
    finish: z.strictObject({
      finish: z
        .strictObject({
          host: z.string().min(1),
          permit: z.number().int().positive(),
          net: z.number().int().min(0).optional(),
        })
        .describe("a permit's release, as POST /v1/hosts/{host}/permits/{permit}/finish?net= takes it"),
      expect: expectOf(fieldsOf(FinishResponse)).optional(),
    }),
    hosts: z.strictObject({
      hosts: z
        .number()
        .int()
        .min(0)
        .describe("a network number: its pool's listing, as GET /v1/hosts?net= answers it"),
      expect: expectOf(["net", "hosts"]).optional(),
    }),
    wait: z.strictObject({ wait: secondsWait, expect: expectOf(["killed", "lapsed"]).optional() }),
  } as const;

  /** The steps of a job queue case: submissions, re-checks, scheduling passes, finishes, rule changes, time passing. */
  const JobfilterSteps = {
    submit: z.strictObject({
      submit: JobSubmission.describe("a job, as POST /v1/queues/{queue}/jobs takes it"),
      expect: expectOf(fieldsOf(JobVerdict, ENVELOPE)).optional(),
    }),
    check: z.strictObject({
      check: z.number().int().positive().describe("a job id: the held job is decided again"),
      expect: expectOf(fieldsOf(JobVerdict, ENVELOPE)).optional(),
    }),
    schedule: z.strictObject({
      schedule: z
        .array(z.number().int().positive())
        .min(1)
        .describe("held job ids in priority order: one scheduling pass"),
      expect: expectOf(fieldsOf(ScheduleVerdict, ENVELOPE)).optional(),
    }),
    heartbeat: z.strictObject({
      heartbeat: z.number().int().positive().describe("a running job id: its lease is renewed"),
      expect: expectOf(fieldsOf(JobVerdict, [...ENVELOPE, "cacheable"])).optional(),
    }),
    finish: z.strictObject({
      finish: z.number().int().positive().describe("a job id: its slot is released"),
      expect: expectOf(fieldsOf(JobVerdict, [...ENVELOPE, "cacheable"])).optional(),
    }),
    add_filter: z.strictObject({
      add_filter: FilterBody.extend({
        uuid: z.uuid().optional().describe("the rule's uuid (replaced if it exists); a new one when absent"),
      }).describe(
        "a filter rule, as POST /2/filters takes it; its watermark is the highest job id seen so far",
      ),
      expect: expectOf(["uuid"]).optional(),
    }),
    delete_filter: z.strictObject({
      delete_filter: z.uuid().describe("the uuid of the rule to delete"),
      expect: expectOf(["deleted"]).optional(),
    }),
    wait: z.strictObject({ wait: secondsWait, expect: expectOf(["expired"]).optional() }),
  } as const;

  /** The step kinds of each stateful engine, by the key that names the step. */
  const STEP_KINDS: Partial<Record<TestEngine, Readonly<Record<string, z.ZodType>>>> = {
    customs: CustomsSteps,
    jobfilter: JobfilterSteps,
  };

  const unionOf = (steps: Readonly<Record<string, z.ZodType>>) => {
    const all = Object.values(steps);
    return z.union(all as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  };

  /** A case with steps: each step one call against the case's own fresh state, with what its answer must hold. */
  function steppedCase(steps: Readonly<Record<string, z.ZodType>>) {
    return z.strictObject({ ...caseBase, steps: z.array(unionOf(steps)).min(1).max(10_000) });
  }

  /** A stepped case with its steps unchecked: `arbiter test` checks each step against its own kind for precise errors. */
  const SteppedCaseHeader = z.strictObject({ ...caseBase, steps: z.array(z.unknown()).min(1).max(10_000) });

  /** A case with one request and the verdict fields it expects. */
  function requestCase(request: z.ZodType, fields: readonly string[]) {
    return z.strictObject({ ...caseBase, request, expect: expectOf(fields) });
  }

  /** Settings of the decision context that a file fixes, so its verdicts never depend on the machine. */
  const LimitsContextSettings = z.strictObject({
    local_addresses: z
      .array(z.string().min(1))
      .max(1000)
      .optional()
      .describe("what LOCAL_ADDRESSES holds (localif and local-subnet identifiers); default none"),
  });

  const fileBase = {
    $schema: z.string().optional().describe("the JSON Schema of this file, for editors"),
    description: z.string().optional(),
    policy: z
      .string()
      .min(1)
      .optional()
      .describe(
        "the policy file the cases run against, relative to this file (default: the engine's policy file in this file's folder)",
      ),
  };

  /** The request cases of each engine, by engine. */
  const REQUEST_CASES = {
    limits: requestCase(LimitsRequest, fieldsOf(limitsVerdictSchema(), ENVELOPE)),
    placement: requestCase(PlaceRequest, fieldsOf(placeVerdictSchema(), ENVELOPE)),
    match: requestCase(MatchRequest, fieldsOf(matchVerdictSchemas().MatchVerdict, ENVELOPE)),
    customs: requestCase(CustomsDecisionRequest, ["host", "ratings", "accessDenied"]),
    jobfilter: requestCase(JobfilterDecisionRequest, ["cacheable", "action", "rule", "trace"]),
  } as const;

  function caseOf(engine: TestEngine): z.ZodType {
    const steps = STEP_KINDS[engine];
    return steps === undefined ? REQUEST_CASES[engine] : z.union([REQUEST_CASES[engine], steppedCase(steps)]);
  }

  function fileShape(engine: TestEngine, cases: z.ZodType) {
    return {
      ...fileBase,
      engine: z.literal(engine),
      ...(engine === "limits" ? { context: LimitsContextSettings.optional() } : {}),
      cases: z.array(cases).min(1).max(100_000),
    };
  }

  /** A test file of one engine with its cases unchecked: `arbiter test` checks each case on its own for precise errors. */
  function testFileHeaderOf(engine: TestEngine) {
    return z.strictObject(fileShape(engine, z.unknown()));
  }

  /** A test file of one engine, whole. */
  function testFileOf(engine: TestEngine) {
    return z.strictObject(fileShape(engine, caseOf(engine)));
  }

  /** Any test file: the JSON Schema of `*.test.yaml` files. */
  const PolicyTestFile = z
    .discriminatedUnion("engine", [
      testFileOf("limits"),
      testFileOf("placement"),
      testFileOf("match"),
      testFileOf("customs"),
      testFileOf("jobfilter"),
    ])
    .meta({
      title: "Arbiter policy test file (*.test.yaml)",
      description: "cases `arbiter test` runs against a policy",
    });

  return {
    Expected,
    TestClock,
    CustomsDecisionRequest,
    CustomsSteps,
    JobfilterSteps,
    STEP_KINDS,
    SteppedCaseHeader,
    LimitsContextSettings,
    REQUEST_CASES,
    testFileHeaderOf,
    testFileOf,
    PolicyTestFile,
  };
}

/** The schemas of test files and of their cases and steps. */
export type PolicyTestSchemas = ReturnType<typeof buildPolicyTestSchemas>;

/** The schemas of test files, built on the first call (per isolate or process) and kept. */
export const policyTestSchemas = lazily(buildPolicyTestSchemas);
