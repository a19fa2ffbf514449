import { DurableObject } from "cloudflare:workers";
import type { TallyBatch } from "../bundle/compare/index.js";
import {
  compileBundle,
  isEmbeddedPointer,
  jsonBytesSteps,
  sourcesOf,
  type Bundle,
  type BundleError,
  type Sources,
} from "../bundle/index.js";
import { ENGINE_NAMES, type EngineName } from "../engines/common/engine.js";
import type { Env } from "../env.js";
import {
  bundleKey,
  CANDIDATE_KEY,
  compilerId,
  CURRENT_KEY,
  embeddedBundle,
  writeBundle,
} from "./policy-store.js";
import { finishInSlices, nextTurn } from "../engines/common/slices.js";
import {
  PolicyHistory,
  type EngineChange,
  type HistoryAction,
  type HistoryRecord,
} from "./policy-history.js";
import { ShadowTables, type CandidateRecord } from "./shadow-tables.js";
import { candidateDiffs } from "../bundle/compare/diff-findings.js";
import { decisionBudget } from "../engines/common/budget.js";

/** What a publish asks for: one engine's new source, optionally only if the active revision is one of `ifMatch`. */
export interface PublishRequest {
  engine: EngineName;
  source: string;
  /** `*` or the revisions the caller's change was based on (the `If-Match` header); undefined when absent. */
  ifMatch?: "*" | string[];
  createdAt: string;
  /** Who made the change (the token's role, or `open` when auth is off) and why (`X-Arbiter-Change-Note`), for the history. */
  by?: ChangeAuthor;
}

/** Who made a change and their note, as the history keeps it. */
export interface ChangeAuthor {
  role: string;
  note?: string;
}

/** What a rollback asks for: make a revision the history still keeps active again. */
export interface RollbackRequest {
  revision: string;
  ifMatch?: "*" | string[];
  createdAt: string;
  by?: ChangeAuthor;
}

/** The answer to a rollback: the new active revision, or why nothing changed (`not_found`: the revision is not kept). */
export type RollbackOutcome =
  | { ok: true; revision: string; previous: string }
  | Exclude<PublishOutcome, { ok: true }>
  | { ok: false; code: "not_found"; message: string };

/** The coordinator's answer: the new revision, or why nothing was written. */
export type PublishOutcome =
  | { ok: true; revision: string; previous: string }
  | {
      ok: false;
      code: "precondition_failed" | "policy_invalid" | "service_unavailable";
      message: string;
      current?: string;
      errors?: BundleError[];
    };

/** What staging asks for: one engine's source for the candidate, optionally only if the active revision is one of `ifMatch`. */
export type StageRequest = PublishRequest;

/** The answer to staging or reading the candidate: its record, or why nothing was written. */
export type StageOutcome =
  { ok: true; candidate: CandidateRecord; engines: EngineSummaries } | Exclude<PublishOutcome, { ok: true }>;

/** Each staged engine's format and source hash. */
export type EngineSummaries = Partial<Record<EngineName, { format: string; source_sha256: string }>>;

/** The answer to a promotion: the new active revision, or why nothing changed (`not_found`: no candidate is staged). */
export type PromoteOutcome =
  | { ok: true; revision: string; previous: string; promoted: CandidateRecord }
  | Exclude<PublishOutcome, { ok: true }>
  | { ok: false; code: "not_found"; message: string };

/** The shadow report of the staged candidate, as the coordinator's tables hold it. */
export interface StoredReport {
  candidate: CandidateRecord;
  engines: EngineSummaries;
  /** The report's tally as JSON text (a TallyBatch). */
  batch: string;
  /** The staged engines' semantic diffs against the active sources, computed when staged, as JSON text (StoredDiff[]). */
  diffs: string;
}

/** A store (KV, storage) that failed under a change: nothing more was written. */
export interface StoreFailure {
  ok: false;
  code: "service_unavailable";
  message: string;
  current?: string;
  errors?: BundleError[];
}

/** The pointer as the coordinator last wrote it (or adopted it): revision and sequence number. */
interface Pointer {
  revision: string | null;
  sequence: number;
}

/**
 * The one writer of the policy pointer. KV has no compare-and-swap, so two
 * publishes that each read the active bundle, replace one engine and write the
 * pointer can lose one of the changes; routing every publish through this one
 * object, which runs them one at a time against the pointer it owns, makes each
 * publish build on the one before. The pointer it writes carries its sequence
 * number as KV metadata, so a pointer written outside it (`arbiter publish`,
 * `wrangler kv key put`) is recognised and adopted as the new base.
 */
export class PolicyCoordinator extends DurableObject<Env> {
  private current: Bundle | undefined;
  private readonly shadow: ShadowTables;
  private readonly history: PolicyHistory;
  /** The staged candidate's bundle, kept beside its record. */
  private staged: Bundle | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS pointer (id INTEGER PRIMARY KEY CHECK (id = 1), revision TEXT, sequence INTEGER NOT NULL)",
    );
    this.shadow = new ShadowTables(ctx.storage.sql);
    this.history = new PolicyHistory(ctx.storage.sql);
  }

  /** Runs one change to the pointers with no other change running; a failing store is a 503 outcome. */
  private async serially<T>(work: () => Promise<T>): Promise<T | StoreFailure> {
    let outcome: T | StoreFailure | undefined;
    await this.ctx.blockConcurrencyWhile(async () => {
      try {
        outcome = await work();
      } catch (e) {
        const failure: StoreFailure = {
          ok: false,
          code: "service_unavailable",
          message: `the policy store failed: ${(e as Error).message}`,
        };
        outcome = failure;
      }
    });
    return outcome!;
  }

  /** Publishes one engine's source on top of the active bundle; no other publish runs until this one is written. */
  async publish(request: PublishRequest): Promise<PublishOutcome> {
    return this.serially(() => this.publishNow(request));
  }

  /**
   * Stages one engine's source as (part of) the candidate: the active bundle with
   * every staged engine's source on top, this one included. Validated as a
   * publish is; an invalid source leaves the staged candidate as it was. Each
   * staging starts the shadow report afresh.
   */
  async stage(request: StageRequest): Promise<StageOutcome> {
    return this.serially(async () => {
      const { bundle: base } = await this.base();
      const refused = this.refusedByIfMatch(base, request.ifMatch);
      if (refused) return refused;
      const old = this.shadow.candidate();
      const stagedSources = old === null ? {} : pick(sourcesOf(await this.stagedBundle(old)), old.staged);
      const compiled = await this.compileOn(
        base,
        { ...stagedSources, [request.engine]: request.source },
        request.createdAt,
      );
      if (!compiled.ok) return compiled.refusal;
      const record: CandidateRecord = {
        id: crypto.randomUUID(),
        revision: compiled.bundle.revision,
        staged: ENGINE_NAMES.filter((e) => e === request.engine || old?.staged.includes(e)),
        staged_at: request.createdAt,
        based_on: base.revision,
      };
      // Diffed here, once per staging (bounded by DIFF_WORK), so the report route only reads the result.
      const diffs = candidateDiffs(
        base,
        compiled.bundle,
        record.staged,
        this.shadow.diffs(),
        decisionBudget(this.env.DECISION_BUDGET).limit,
      );
      // written a slice at a time, as an active bundle is (policy-store.ts writeBundle)
      await this.env.POLICIES.put(
        bundleKey(record.revision),
        await finishInSlices(jsonBytesSteps(compiled.bundle)),
      );
      this.shadow.setCandidate(record);
      this.shadow.setDiffs(diffs);
      this.staged = compiled.bundle;
      await this.env.POLICIES.put(CANDIDATE_KEY, JSON.stringify(record));
      if (old !== null) await this.deleteUnkept([old.revision]);
      return { ok: true, candidate: record, engines: summaries(compiled.bundle, record.staged) };
    });
  }

  /** The staged candidate with its staged engines' entries, or null. */
  async candidate(): Promise<{ candidate: CandidateRecord; engines: EngineSummaries } | null> {
    const record = this.shadow.candidate();
    if (record === null) return null;
    return { candidate: record, engines: summaries(await this.stagedBundle(record), record.staged) };
  }

  /** Drops the staged candidate and its report; answers what was dropped (null when nothing was staged). */
  async drop(): Promise<{ ok: true; dropped: CandidateRecord | null } | StoreFailure> {
    return this.serially(async () => {
      const dropped = this.shadow.candidate();
      if (dropped !== null) {
        await this.forgetCandidate();
        await this.deleteUnkept([dropped.revision]);
      }
      return { ok: true as const, dropped };
    });
  }

  /**
   * Makes the staged engines' sources active, on top of the active bundle as it
   * is now (an engine published since staging is not rolled back), under the
   * rules of a publish: `If-Match` against the active revision, the whole bundle
   * compiled before anything is written. The candidate and its report are then dropped.
   */
  async promote(request: {
    ifMatch?: "*" | string[];
    createdAt: string;
    by?: ChangeAuthor;
  }): Promise<PromoteOutcome> {
    return this.serially(async (): Promise<PromoteOutcome> => {
      const record = this.shadow.candidate();
      if (record === null) return { ok: false, code: "not_found", message: "no candidate is staged" };
      const { bundle: base, pointer } = await this.base();
      const refused = this.refusedByIfMatch(base, request.ifMatch);
      if (refused) return refused;
      const sources = pick(sourcesOf(await this.stagedBundle(record)), record.staged);
      const compiled = await this.compileOn(base, sources, request.createdAt);
      if (!compiled.ok) return compiled.refusal;
      await this.activate(compiled.bundle, pointer, base, "promote", request);
      await this.forgetCandidate();
      await this.deleteUnkept([record.revision]);
      return { ok: true, revision: compiled.bundle.revision, previous: base.revision, promoted: record };
    });
  }

  /**
   * Adds an isolate's batch of shadow comparisons to the report, when it was
   * made against the candidate staged now (a batch of a dropped or replaced
   * candidate is ignored). Answers the pairs whose examples are complete.
   */
  async recordShadow(candidateId: string, batchJson: string): Promise<{ accepted: boolean; full: string[] }> {
    if (this.shadow.candidate()?.id !== candidateId) return { accepted: false, full: [] };
    const batch = JSON.parse(batchJson) as TallyBatch;
    let full: string[] = [];
    this.ctx.storage.transactionSync(() => {
      full = this.shadow.merge(batch);
    });
    return { accepted: true, full };
  }

  /** The staged candidate's report as stored, or null when no candidate is staged. */
  async report(): Promise<StoredReport | null> {
    const found = await this.candidate();
    if (found === null) return null;
    return { ...found, batch: JSON.stringify(this.shadow.tally().toBatch()), diffs: this.shadow.diffsJson() };
  }

  /** The staged candidate's bundle (read from KV once per staging). */
  private async stagedBundle(record: CandidateRecord): Promise<Bundle> {
    if (this.staged?.revision === record.revision) return this.staged;
    const bundle = await this.env.POLICIES.get<Bundle>(bundleKey(record.revision), "json");
    if (bundle === null || bundle.revision !== record.revision)
      throw new Error(`the candidate bundle \`${record.revision}\` cannot be read`);
    this.staged = bundle;
    return bundle;
  }

  private async forgetCandidate(): Promise<void> {
    await this.env.POLICIES.delete(CANDIDATE_KEY);
    this.shadow.setCandidate(null);
    this.staged = undefined;
  }

  private refusedByIfMatch(
    base: Bundle,
    match: "*" | string[] | undefined,
  ): Exclude<PublishOutcome, { ok: true }> | undefined {
    if (match === undefined || match === "*" || match.includes(base.revision)) return undefined;
    return {
      ok: false,
      code: "precondition_failed",
      message: `the active revision is \`${base.revision}\`, not ${match.map((m) => `\`${m}\``).join(" or ")}${match.some((m) => m.startsWith('W/"')) ? " (a weak entity tag never matches: If-Match compares strongly)" : ""}`,
      current: base.revision,
    };
  }

  /**
   * The active bundle with some engines' sources replaced; a failure is the 422
   * refusal. Only the engines whose source changed compile: the others' entries
   * are the base's own when the base names this build's compiler (the whole
   * bundle compiles otherwise), and the bundle is what a full compile would give.
   */
  private async compileOn(
    base: Bundle,
    sources: Sources,
    createdAt: string,
  ): Promise<{ ok: true; bundle: Bundle } | { ok: false; refusal: Exclude<PublishOutcome, { ok: true }> }> {
    const compiled = await compileBundle({ ...sourcesOf(base), ...sources }, createdAt, nextTurn, {
      compiler: compilerId(),
      base,
    });
    if (compiled.ok) return { ok: true, bundle: compiled.value };
    const first = compiled.error[0];
    return {
      ok: false,
      refusal: {
        ok: false,
        code: "policy_invalid",
        message: `the \`${first.engine}\` policy is invalid: ${first.message}${first.at ? ` (at ${first.at})` : ""}`,
        errors: compiled.error,
        current: base.revision,
      },
    };
  }

  /**
   * Makes a revision that the history still keeps active again, under a
   * publish's rules (`If-Match` against the active revision); the change is
   * itself a history record. The embedded bundle's revision is always kept.
   */
  async rollback(request: RollbackRequest): Promise<RollbackOutcome> {
    return this.serially(async (): Promise<RollbackOutcome> => {
      const notKept = {
        ok: false as const,
        code: "not_found" as const,
        message: `the revision \`${request.revision}\` is not in the kept history`,
      };
      const embedded = embeddedBundle();
      if (request.revision !== embedded.revision && !this.history.keeps(request.revision)) return notKept;
      const { bundle: base, pointer } = await this.base();
      const refused = this.refusedByIfMatch(base, request.ifMatch);
      if (refused) return refused;
      const target =
        request.revision === embedded.revision
          ? embedded
          : await this.env.POLICIES.get<Bundle>(bundleKey(request.revision), "json");
      if (target === null || target.revision !== request.revision) return notKept;
      await this.activate(target, pointer, base, "rollback", request);
      return { ok: true, revision: target.revision, previous: base.revision };
    });
  }

  /** The kept history, newest first. */
  async changes(limit: number): Promise<HistoryRecord[]> {
    return this.history.list(limit);
  }

  /** Writes a bundle, moves the pointer to it (recording the new sequence number) and adds the change to the history. */
  private async activate(
    bundle: Bundle,
    pointer: Pointer,
    base: Bundle,
    action: HistoryAction,
    request: { createdAt: string; by?: ChangeAuthor },
  ): Promise<void> {
    const next: Pointer = { revision: bundle.revision, sequence: pointer.sequence + 1 };
    await writeBundle(this.env, bundle, next.sequence);
    this.store(next);
    this.current = bundle;
    const dropped = this.history.add({
      revision: bundle.revision,
      previous: base.revision,
      action,
      engines: changedEngines(base, bundle),
      at: request.createdAt,
      role: request.by?.role ?? "admin",
      ...(request.by?.note !== undefined ? { note: request.by.note } : {}),
    });
    await this.deleteUnkept(dropped);
  }

  /**
   * Deletes from KV the bundles of these revisions that nothing needs any more:
   * not active, not the staged candidate, not named by a kept history record
   * (so a rollback target is never deleted while it can be asked for).
   */
  private async deleteUnkept(revisions: string[]): Promise<void> {
    const candidate = this.shadow.candidate()?.revision;
    for (const revision of new Set(revisions)) {
      if (revision === this.current?.revision || revision === candidate || this.history.keeps(revision))
        continue;
      await this.env.POLICIES.delete(bundleKey(revision));
    }
  }

  /** The active revision as the coordinator knows it, for tests and status. */
  async activeRevision(): Promise<string> {
    return (await this.base()).bundle.revision;
  }

  private stored(): Pointer {
    const row = this.ctx.storage.sql
      .exec<{ revision: string | null; sequence: number }>(
        "SELECT revision, sequence FROM pointer WHERE id = 1",
      )
      .toArray()[0];
    return row ?? { revision: null, sequence: 0 };
  }

  private store(p: Pointer): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO pointer (id, revision, sequence) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, sequence = excluded.sequence",
      p.revision,
      p.sequence,
    );
  }

  /**
   * The bundle the next publish builds on. The coordinator's own record wins,
   * unless KV holds a pointer written outside it (no sequence metadata) or a
   * later write of its own whose record was lost; those are adopted.
   */
  private async base(): Promise<{ bundle: Bundle; pointer: Pointer }> {
    let pointer = this.stored();
    const kv = await this.env.POLICIES.getWithMetadata<{ coordinator?: number }>(CURRENT_KEY);
    const written = kv.metadata?.coordinator;
    if (kv.value !== null && kv.value !== pointer.revision) {
      if (written === undefined || written > pointer.sequence)
        pointer = { revision: kv.value, sequence: Math.max(pointer.sequence, written ?? 0) };
    }
    if (isEmbeddedPointer(pointer.revision)) return { bundle: embeddedBundle(), pointer };
    if (this.current?.revision !== pointer.revision) {
      const bundle = await this.env.POLICIES.get<Bundle>(bundleKey(pointer.revision), "json");
      if (bundle === null || bundle.revision !== pointer.revision)
        throw new Error(`the active bundle \`${pointer.revision}\` cannot be read`);
      this.current = bundle;
    }
    return { bundle: this.current, pointer };
  }

  private async publishNow(request: PublishRequest): Promise<PublishOutcome> {
    const { bundle: base, pointer } = await this.base();
    const refused = this.refusedByIfMatch(base, request.ifMatch);
    if (refused) return refused;
    const compiled = await this.compileOn(base, { [request.engine]: request.source }, request.createdAt);
    if (!compiled.ok) return compiled.refusal;
    await this.activate(compiled.bundle, pointer, base, "publish", request);
    return { ok: true, revision: compiled.bundle.revision, previous: base.revision };
  }
}

/** The format and source hash of some engines of a bundle. */
function summaries(bundle: Bundle, engines: readonly EngineName[]): EngineSummaries {
  const out: EngineSummaries = {};
  for (const e of engines) {
    const entry = bundle.engines[e];
    if (entry !== undefined) out[e] = { format: entry.format, source_sha256: entry.source_sha256 };
  }
  return out;
}

/** The engines whose source differs between two bundles, with their digests after and before. */
function changedEngines(before: Bundle, after: Bundle): EngineChange[] {
  const out: EngineChange[] = [];
  for (const engine of ENGINE_NAMES) {
    const now = after.engines[engine]?.source_sha256 ?? null;
    const was = before.engines[engine]?.source_sha256 ?? null;
    if (now !== was) out.push({ engine, source_sha256: now, previous_sha256: was });
  }
  return out;
}

/** The entries of some engines only. */
function pick<T>(
  all: Partial<Record<EngineName, T>>,
  engines: readonly EngineName[],
): Partial<Record<EngineName, T>> {
  const out: Partial<Record<EngineName, T>> = {};
  for (const e of engines) if (all[e] !== undefined) out[e] = all[e];
  return out;
}
