/**
 * The stateful engines' steps for `arbiter test`: each case gets a fresh job
 * queue or host pool in memory and runs the same logic the Durable Objects
 * run (`JobQueueCore`, `HostPoolCore` over in-memory tables), with each step
 * checked and shaped as its route does, so a step answers what the API would.
 */
import {
  normalizeHost,
  normalizeRequest,
  prepareHost,
  prepareRequest,
  type CustomsPolicy,
} from "../engines/customs/index.js";
import { decisionBudget } from "../engines/common/budget.js";
import type { PolicyError } from "../engines/common/result.js";
import { JOBFILTER_TOO_DEEP, parseRuleBody, type JobfilterPolicy } from "../engines/jobfilter/index.js";
import type { TestEngine } from "../http/schemas/policy-test.js";
import {
  allocationAnswer,
  HostPoolCore,
  listingAnswer,
  reportAnswer,
  type PoolPolicy,
} from "../state/host-pool-core.js";
import { MemoryPoolTables } from "../state/host-pool-store.js";
import { JobQueueCore } from "../state/job-queue-core.js";
import { MemoryQueueTables } from "../state/job-queue-store.js";
import { isFailure, type JobSubmission } from "../state/job-queue-types.js";

/** One case's state: runs a step of a kind on a body at a time, answering the API's JSON. */
export interface StepMachine {
  run(kind: string, body: unknown, now: number): object;
}

/** The lease a job gets, as the Worker's LEASE_SECONDS default. */
export const TEST_LEASE_SECONDS = 600;

/** Ids in steps (rule uuids, lease ids) are numbered, so a test can name them: `00000000-0000-4000-a000-000000000001`, … */
function numberedIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-a000-${(++n).toString(16).padStart(12, "0")}`;
}

const errorOf = (code: string, errors: PolicyError[]) => ({
  error: {
    code,
    message: errors[0]?.message ?? code,
    details: errors.map((e) => ({ code: e.code, message: e.message, at: e.at })),
  },
});

const failureOf = (answer: { error: { code: string; message: string } }) => ({
  error: { code: answer.error.code, message: answer.error.message },
});

/** A fresh state for one stepped case of an engine, under a compiled policy. */
export function stepMachine(engine: TestEngine, policy: unknown, revision: string): StepMachine {
  if (engine === "customs") return customsMachine(policy as CustomsPolicy, revision);
  if (engine === "jobfilter") return jobfilterMachine(policy as JobfilterPolicy, revision);
  throw new Error(`bug: ${engine} has no steps`);
}

/** A host pool per network number, as the Worker keeps one Durable Object per network. */
function customsMachine(policy: CustomsPolicy, revision: string): StepMachine {
  const pools = new Map<number, HostPoolCore>();
  const poolOf = (net: number) => {
    let pool = pools.get(net);
    if (pool === undefined) pools.set(net, (pool = new HostPoolCore(new MemoryPoolTables())));
    return pool;
  };
  const pp: PoolPolicy = { revision, data: policy };
  const envelope = { decision_id: "00000000-0000-4000-8000-000000000000", revision };
  return {
    run(kind, body, now) {
      switch (kind) {
        case "report": {
          const raw = body as { net?: number };
          const host = normalizeHost(raw, policy.defaultsFor(raw.net ?? 0));
          if (!host.ok) return errorOf("invalid_host_report", host.error);
          const prepared = prepareHost(host.value);
          if (!prepared.ok) return errorOf("invalid_host_report", prepared.error);
          return reportAnswer(poolOf(host.value.net).report(pp, host.value, now));
        }
        case "allocate": {
          const request = normalizeRequest(body);
          if (!request.ok) return errorOf("invalid_request", request.error);
          const prepared = prepareRequest(request.value);
          if (!prepared.ok) return errorOf("invalid_request", prepared.error);
          return allocationAnswer(poolOf(request.value.net).allocate(pp, request.value, now), envelope);
        }
        case "finish": {
          const f = body as { host: string; permit: number; net?: number };
          if (!poolOf(f.net ?? 0).finish(f.host, f.permit))
            return {
              error: { code: "permit_not_found", message: `no permit \`${f.permit}\` on host \`${f.host}\`` },
            };
          return { released: true, host: f.host, permit: f.permit };
        }
        case "hosts":
          return listingAnswer(body as number, poolOf(body as number).list(pp, now));
        case "wait": {
          const killed: number[] = [];
          const lapsed: number[] = [];
          for (const pool of pools.values()) {
            const t = pool.tick(now);
            killed.push(...t.killed);
            lapsed.push(...t.lapsed);
          }
          return { killed: killed.sort((a, b) => a - b), lapsed: lapsed.sort((a, b) => a - b) };
        }
      }
      throw new Error(`bug: no customs step \`${kind}\``);
    },
  };
}

const QUEUE = "test";

/** One job queue seeded with the policy's rules, as a new queue's Durable Object is. */
function jobfilterMachine(policy: JobfilterPolicy, revision: string): StepMachine {
  const queue = new JobQueueCore(new MemoryQueueTables(), {
    leaseMs: () => TEST_LEASE_SECONDS * 1000,
    budget: () => decisionBudget(process.env.DECISION_BUDGET),
    newId: numberedIds(),
    log: () => {},
  });
  queue.seed(policy.rules, revision);
  const envelope = { decision_id: "00000000-0000-4000-8000-000000000000", revision, cacheable: false };
  // Submissions and checks answer a verdict (the envelope first); heartbeats and finishes the job's status alone.
  const verdict = (answer: object) => (isFailure(answer) ? failureOf(answer) : { ...envelope, ...answer });
  const status = (answer: object) => (isFailure(answer) ? failureOf(answer) : answer);
  return {
    run(kind, body, now) {
      switch (kind) {
        case "submit":
          return verdict(queue.submit(QUEUE, body as JobSubmission, false, now).result);
        case "check":
          return verdict(queue.check(body as number, false, now).result);
        case "heartbeat":
          return status(queue.heartbeat(body as number, undefined, now));
        case "finish":
          return status(queue.finish(body as number, now));
        case "schedule": {
          const pass = queue.schedule(body as number[], now).result;
          return isFailure(pass) ? failureOf(pass) : { ...envelope, ...pass };
        }
        case "add_filter": {
          const { uuid, ...rest } = body as { uuid?: string };
          const rule = parseRuleBody(rest);
          if (!rule.ok)
            return {
              error: {
                code: rule.error.startsWith(JOBFILTER_TOO_DEEP) ? JOBFILTER_TOO_DEEP : "invalid_request",
                message: rule.error,
              },
            };
          return { uuid: queue.putFilter(QUEUE, rule.value, uuid, now) };
        }
        case "delete_filter":
          return queue.deleteFilter(body as string)
            ? { deleted: true }
            : {
                error: { code: "not_found", message: `Filter rule with UUID ${String(body)} does not exist` },
              };
        case "wait":
          return { expired: queue.expireDue(now) };
      }
      throw new Error(`bug: no jobfilter step \`${kind}\``);
    },
  };
}
