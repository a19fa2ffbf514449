import type { FilterRule, JobAction, RuleBody } from "../engines/jobfilter/index.js";
import type { IdempotencyRequest } from "./idempotency.js";

/** Where a job stands in the queue. `expired` means its lease ran out and its slot was freed. */
export type JobState = "queued" | "running" | "cancelled" | "finished" | "expired";

/** A lease: the holder's proof of a running slot, renewed by heartbeats. */
export interface Lease {
  id: string;
  expires_at: string;
}

/** A job's status as the API reports it after a submission, a re-evaluation or a lease operation. */
export interface JobStatus {
  job_id: number;
  action: JobAction;
  rule: string | null;
  run: boolean;
  state: JobState;
  lease?: Lease;
  /** Only with `?explain=true`: the rules in order with their matches, and the job's buckets. */
  trace?: unknown;
}

/**
 * What one scheduling pass did, every id sorted into exactly one list: a job
 * it moved from held to running (`started`) or to cancelled by a REJECT rule
 * (`rejected`), one it left held (`held`), one that was not held when the
 * pass began (`not_held`, by its state; not decided again), or an id the queue
 * does not know (`unknown`). `jobs` is the status of every known job named, in
 * the order named.
 */
export interface SchedulePass {
  jobs: JobStatus[];
  started: number[];
  rejected: number[];
  held: number[];
  not_held: Record<Exclude<JobState, "queued">, number[]>;
  unknown: number[];
}

/** A failure the route turns into an HTTP error: Ganeti-style for filters, the API envelope for jobs. */
export interface QueueFailure {
  error: {
    status: 400 | 404 | 409 | 422;
    code: "invalid_request" | "not_found" | "conflict" | "lease_expired" | "budget_exceeded";
    message: string;
  };
}

/** The body of a job submission once validated. */
export interface JobSubmission {
  id?: number;
  opcodes: Record<string, unknown>[];
  priority?: number;
}

/** A filter rule as the RAPI resource lists it. */
export type StoredRule = FilterRule;

/** Whether an RPC answer is a failure. */
export function isFailure(v: unknown): v is QueueFailure {
  return typeof v === "object" && v !== null && "error" in v;
}

/** The part of a verdict the route decides before calling the queue: its id and the revision it is made under. */
export interface Envelope {
  decision_id: string;
  revision: string;
}

/** An idempotent call's result: the key was used with another request, or the answer (stored or just made). */
export type Once<T> = { mismatch: true } | { replayed: boolean; status: number; answer: T };

/** One job as a queue listing shows it. */
export interface JobListItem {
  id: number;
  state: JobState;
  action: JobAction;
  rule: string | null;
  priority: number;
  /** When it was submitted; null for a job stored before submission times were recorded. */
  submitted_at: string | null;
  /** When it first took a slot; null if it never ran (or was stored before start times were recorded). */
  started_at: string | null;
  /** When it finished, was cancelled or its lease expired; null while it has not ended. */
  ended_at: string | null;
  lease_expires_at: string | null;
}

/** A page of a queue's jobs, newest first; `cursor` is the last id shown when another page may follow. */
export interface JobListing {
  jobs: JobListItem[];
  cursor: string | null;
}

/** A queue's job counts (`finished` counts finished, cancelled and expired jobs) and its watermark. */
export interface QueueSummary {
  running: number;
  queued: number;
  finished: number;
  watermark: number;
}

/** The JobQueue object's methods as a route calls them through its stub. */
export interface JobQueueApi {
  listFilters(): Promise<StoredRule[]>;
  getFilter(uuid: string): Promise<StoredRule | null>;
  putFilter(queue: string, body: RuleBody, uuid?: string): Promise<string>;
  putFilterOnce(queue: string, body: RuleBody, idem: IdempotencyRequest): Promise<Once<string>>;
  deleteFilter(uuid: string): Promise<boolean>;
  highestJobId(): Promise<number>;
  submit(queue: string, submission: JobSubmission, explain?: boolean): Promise<JobStatus | QueueFailure>;
  submitOnce(
    queue: string,
    submission: JobSubmission,
    explain: boolean,
    idem: IdempotencyRequest,
    envelope: Envelope,
  ): Promise<Once<unknown>>;
  check(id: number, explain?: boolean): Promise<JobStatus | QueueFailure>;
  schedule(ids: number[]): Promise<SchedulePass | QueueFailure>;
  heartbeat(id: number, leaseId?: string): Promise<JobStatus | QueueFailure>;
  finish(id: number): Promise<JobStatus | QueueFailure>;
  cancel(id: number): Promise<JobStatus | QueueFailure>;
  listJobs(states: JobState[], before: number | null, limit: number): Promise<JobListing>;
  summary(): Promise<QueueSummary>;
  gauges(): Promise<{ running: number; queued: number; leaseExpiries: number }>;
}
