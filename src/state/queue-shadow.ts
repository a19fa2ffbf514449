import { errorView, viewOf, type View } from "../bundle/compare/index.js";
import { BudgetExceeded, decisionBudget } from "../engines/common/budget.js";
import {
  decideCounted,
  RunningCounts,
  type FilterSet,
  type Job,
  type JobDecision,
  type JobfilterPolicy,
} from "../engines/jobfilter/index.js";
import type { Env } from "../env.js";
import type { QueueObserver } from "./job-queue-core.js";
import type { LiveCandidate } from "./policy-store.js";
import { recordComparison } from "./shadow-batch.js";

/** Events kept for the candidate before they are replayed; past this the candidate's counts start over. */
export const MAX_SHADOW_EVENTS = 10_000;

type Event =
  | { k: "baseline"; running: Job[] }
  | { k: "start"; job: Job }
  | { k: "end"; id: number }
  | { k: "decide"; job: Job; active: JobDecision; request: unknown };

/**
 * A job queue's shadow of the candidate's filter rules. The queue records, in
 * order and at O(1) each, the jobs it decides and the jobs that start and end;
 * after the answer, the recorded events are replayed against the candidate
 * rules' own running counts, so each job is decided by the candidate against
 * exactly the running jobs the real decision saw, and the queue's own state is
 * never touched. The first decision after a candidate appears also records the
 * running jobs once, as the counts' starting point.
 */
export class QueueShadow implements QueueObserver {
  private readonly set: FilterSet;
  private counts: RunningCounts | undefined;
  private events: Event[] = [];
  private baselined = false;

  constructor(readonly candidate: LiveCandidate) {
    this.set = (candidate.loaded.policy<JobfilterPolicy>("jobfilter") as JobfilterPolicy).set;
  }

  /** A job was decided (before it starts, if it does); `running` gives the running jobs when no starting point is recorded yet. */
  decided(job: Job, active: JobDecision, request: unknown, running: () => Job[]): void {
    if (!this.baselined) {
      this.push({ k: "baseline", running: running() });
      this.baselined = true;
    }
    this.push({ k: "decide", job, active, request });
  }

  /** A job took a slot. */
  started(job: Job): void {
    if (this.baselined) this.push({ k: "start", job });
  }

  /** A job gave its slot back. */
  ended(id: number): void {
    if (this.baselined) this.push({ k: "end", id });
  }

  /** Whether events wait to be replayed. */
  get pending(): boolean {
    return this.events.length > 0;
  }

  private push(e: Event): void {
    if (this.events.length >= MAX_SHADOW_EVENTS) {
      // the queue moved faster than the replays: start over from the next decision's running jobs
      this.events = [];
      this.counts = undefined;
      this.baselined = false;
      return;
    }
    this.events.push(e);
  }

  /** Replays the recorded events against the candidate's counts and reports each decision's comparison. */
  async drain(env: Env): Promise<void> {
    const events = this.events;
    this.events = [];
    const compared: { request: unknown; active: View; shadow: View }[] = [];
    for (const e of events) {
      if (e.k === "baseline") this.counts = RunningCounts.of(this.set, e.running);
      else if (this.counts === undefined) continue;
      else if (e.k === "start") this.counts.start(e.job);
      else if (e.k === "end") this.counts.end(e.id);
      else
        compared.push({
          request: e.request,
          active: viewOf("jobfilter", e.active),
          shadow: this.decide(env, this.counts, e.job),
        });
    }
    await Promise.all(
      compared.map((c) => recordComparison(env, this.candidate, "jobfilter", c.request, c.active, c.shadow)),
    );
  }

  private decide(env: Env, counts: RunningCounts, job: Job): View {
    try {
      return viewOf(
        "jobfilter",
        decisionBudget(env.DECISION_BUDGET).run(() => decideCounted(counts, job)),
      );
    } catch (e) {
      if (e instanceof BudgetExceeded) return errorView("budget_exceeded");
      throw e;
    }
  }
}
