import {
  boundedExample,
  MAX_EXAMPLES,
  pairSlot,
  Tally,
  type Example,
  type TallyBatch,
} from "../bundle/compare/index.js";
import type { EngineName } from "../engines/common/engine.js";
import type { StoredDiff } from "../bundle/compare/diff-findings.js";

/** The staged candidate as the coordinator records it; `id` changes with every staging, so reports never mix candidates. */
export interface CandidateRecord {
  id: string;
  revision: string;
  staged: EngineName[];
  staged_at: string;
  /** The active revision when it was staged. */
  based_on: string;
}

/**
 * The coordinator's SQLite tables for the candidate and its shadow report:
 * one candidate row, counts per engine, counts per engine and outcome pair,
 * and the kept examples. Merging a batch is one synchronous transaction, so
 * concurrent batches from isolates add up exactly.
 */
export class ShadowTables {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS candidate (id INTEGER PRIMARY KEY CHECK (id = 1), stage_id TEXT NOT NULL, revision TEXT NOT NULL, staged TEXT NOT NULL, staged_at TEXT NOT NULL, based_on TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS shadow_totals (engine TEXT PRIMARY KEY, compared INTEGER NOT NULL, agreed INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS shadow_pairs (engine TEXT NOT NULL, pair TEXT NOT NULL, count INTEGER NOT NULL, examples INTEGER NOT NULL, PRIMARY KEY (engine, pair));
       CREATE TABLE IF NOT EXISTS shadow_examples (engine TEXT NOT NULL, pair TEXT NOT NULL, seq INTEGER NOT NULL, example TEXT NOT NULL, PRIMARY KEY (engine, pair, seq));
       CREATE TABLE IF NOT EXISTS candidate_diffs (engine TEXT PRIMARY KEY, diff TEXT NOT NULL);`,
    );
  }

  /** The staged candidate, or null. */
  candidate(): CandidateRecord | null {
    const row = this.sql
      .exec<{ stage_id: string; revision: string; staged: string; staged_at: string; based_on: string }>(
        "SELECT stage_id, revision, staged, staged_at, based_on FROM candidate WHERE id = 1",
      )
      .toArray()[0];
    if (row === undefined) return null;
    return {
      id: row.stage_id,
      revision: row.revision,
      staged: JSON.parse(row.staged) as EngineName[],
      staged_at: row.staged_at,
      based_on: row.based_on,
    };
  }

  /** Records a newly staged candidate (or none) and starts its report afresh. */
  setCandidate(record: CandidateRecord | null): void {
    this.clearReport();
    if (record === null) {
      this.sql.exec("DELETE FROM candidate");
      this.setDiffs([]);
      return;
    }
    this.sql.exec(
      "INSERT INTO candidate (id, stage_id, revision, staged, staged_at, based_on) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET stage_id = excluded.stage_id, revision = excluded.revision, staged = excluded.staged, staged_at = excluded.staged_at, based_on = excluded.based_on",
      record.id,
      record.revision,
      JSON.stringify(record.staged),
      record.staged_at,
      record.based_on,
    );
  }

  /** The staged engines' semantic diffs against the active sources, stored when the candidate was staged. */
  diffs(): StoredDiff[] {
    return JSON.parse(this.diffsJson()) as StoredDiff[];
  }

  /** The stored diffs as one JSON array, read without parsing them. */
  diffsJson(): string {
    const rows = this.sql
      .exec<{ diff: string }>("SELECT diff FROM candidate_diffs ORDER BY engine")
      .toArray();
    return `[${rows.map((r) => r.diff).join(",")}]`;
  }

  /** Replaces the stored diffs with those of the candidate staged now. */
  setDiffs(diffs: readonly StoredDiff[]): void {
    this.sql.exec("DELETE FROM candidate_diffs");
    for (const d of diffs)
      this.sql.exec("INSERT INTO candidate_diffs (engine, diff) VALUES (?, ?)", d.engine, JSON.stringify(d));
  }

  private clearReport(): void {
    this.sql.exec("DELETE FROM shadow_totals");
    this.sql.exec("DELETE FROM shadow_pairs");
    this.sql.exec("DELETE FROM shadow_examples");
  }

  /**
   * Adds an isolate's batch to the report, applying the report's caps against
   * what is stored (the pairs an engine already has, the examples a pair already
   * keeps) without reading the stored examples back. Returns the pairs whose
   * examples are now complete, so isolates stop building examples nobody keeps.
   */
  merge(batch: TallyBatch): string[] {
    for (const [engine, e] of Object.entries(batch.engines)) {
      if (e === undefined) continue;
      this.sql.exec(
        "INSERT INTO shadow_totals (engine, compared, agreed) VALUES (?, ?, ?) ON CONFLICT (engine) DO UPDATE SET compared = compared + excluded.compared, agreed = agreed + excluded.agreed",
        engine,
        e.compared,
        e.agreed,
      );
      const kept = new Map<string, number>();
      for (const r of this.sql.exec<{ pair: string; examples: number }>(
        "SELECT pair, examples FROM shadow_pairs WHERE engine = ?",
        engine,
      ))
        kept.set(r.pair, r.examples);
      for (const [pair, p] of Object.entries(e.pairs)) {
        const slot = pairSlot(kept, pair);
        const had = kept.get(slot) ?? 0;
        const add = p.examples.slice(0, Math.max(0, MAX_EXAMPLES - had)).map(boundedExample);
        add.forEach((x, i) =>
          this.sql.exec(
            "INSERT INTO shadow_examples (engine, pair, seq, example) VALUES (?, ?, ?, ?)",
            engine,
            slot,
            had + i,
            JSON.stringify(x),
          ),
        );
        kept.set(slot, had + add.length);
        this.sql.exec(
          "INSERT INTO shadow_pairs (engine, pair, count, examples) VALUES (?, ?, ?, ?) ON CONFLICT (engine, pair) DO UPDATE SET count = count + excluded.count, examples = excluded.examples",
          engine,
          slot,
          p.count,
          had + add.length,
        );
      }
    }
    return this.sql
      .exec<{ engine: string; pair: string }>(
        "SELECT engine, pair FROM shadow_pairs WHERE examples >= ?",
        MAX_EXAMPLES,
      )
      .toArray()
      .map((r) => `${r.engine}\u0000${r.pair}`);
  }

  /** One engine's stored counts as a tally (examples included). */
  private engineTally(engine: EngineName): Tally {
    const total = this.sql
      .exec<{ compared: number; agreed: number }>(
        "SELECT compared, agreed FROM shadow_totals WHERE engine = ?",
        engine,
      )
      .toArray()[0];
    if (total === undefined) return new Tally();
    const pairs: Record<string, { count: number; examples: Example[] }> = {};
    for (const p of this.sql.exec<{ pair: string; count: number }>(
      "SELECT pair, count FROM shadow_pairs WHERE engine = ?",
      engine,
    )) {
      pairs[p.pair] = { count: p.count, examples: [] };
    }
    for (const x of this.sql.exec<{ pair: string; example: string }>(
      "SELECT pair, example FROM shadow_examples WHERE engine = ? ORDER BY pair, seq",
      engine,
    )) {
      pairs[x.pair]?.examples.push(JSON.parse(x.example) as Example);
    }
    return new Tally().merge({
      engines: { [engine]: { compared: total.compared, agreed: total.agreed, pairs } },
    });
  }

  /** The whole report as a tally. */
  tally(): Tally {
    const out = new Tally();
    for (const { engine } of this.sql.exec<{ engine: string }>("SELECT engine FROM shadow_totals")) {
      out.merge(this.engineTally(engine as EngineName).toBatch());
    }
    return out;
  }
}
