/**
 * The JobQueue object's running counts in its SQLite storage (a
 * `ShareStore`, see src/engines/jobfilter/running-shares.ts): one row per
 * running job with the rule it is counted under and its bucket keys, one row
 * per non-zero total, and the fingerprint of the rule set they were counted
 * for in the meta table, and an index of the running jobs by their opcodes'
 * `OP_ID`s (`running_ops`) so that a rule change reads only the jobs the
 * rules it added can reach. Written as each count changes, in the same turn as
 * the job rows, so an object that starts again reads its totals back instead
 * of counting every running job.
 */
import { parseExactJson } from "../engines/common/exact-json.js";
import type { Holder, Job, Reached, Share, ShareStore, Totals } from "../engines/jobfilter/index.js";
import { opIdsOf } from "../engines/jobfilter/index.js";

/** The tables of the running counts. */
export const SHARES_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS running_shares (id INTEGER PRIMARY KEY, rule TEXT, buckets TEXT NOT NULL)",
  "CREATE INDEX IF NOT EXISTS running_shares_rule ON running_shares (rule)",
  "CREATE TABLE IF NOT EXISTS running_totals (kind TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, key))",
  "CREATE TABLE IF NOT EXISTS counted_rules (uuid TEXT PRIMARY KEY, rule TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS running_ops (op TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (op, id)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS running_ops_id ON running_ops (id)",
];

/** The meta key recording that `running_ops` holds every counted job (counts saved before it existed are indexed once). */
const OPS_INDEXED = "running_ops";

/** The meta key holding the fingerprint of the rule set the saved counts are for. */
const COUNTED_FOR = "counts_for";

/** Above this many rules, holders are read in one pass over the shares instead of one lookup per rule. */
const RULES_PER_LOOKUP = 32;

type Raw = Record<string, SqlStorageValue>;

const SELECT_SHARES = "SELECT s.id AS id, s.rule AS rule, s.buckets AS buckets FROM running_shares s";
const SELECT_WITH_JOBS =
  "SELECT s.id AS id, s.rule AS rule, s.buckets AS buckets, j.job AS job FROM running_shares s JOIN jobs j ON j.id = s.id";

function bucketsText(buckets: readonly string[]): string {
  return buckets.length === 0 ? "" : JSON.stringify(buckets);
}

function bucketsOf(text: string): string[] {
  return text === "" ? [] : (JSON.parse(text) as string[]);
}

/** The running counts' rows in a queue object's SQLite storage. */
export class SqlShares implements ShareStore {
  constructor(private readonly sql: SqlStorage) {
    for (const statement of SHARES_SCHEMA) sql.exec(statement);
    if (this.meta(OPS_INDEXED) === undefined) {
      // counts saved by a release without the index: index their jobs once
      sql.exec("DELETE FROM running_ops");
      for (const r of sql.exec<{ id: number; job: string }>("SELECT s.id AS id, j.job AS job FROM running_shares s JOIN jobs j ON j.id = s.id"))
        this.putOps(r.id, parseExactJson(r.job) as unknown as Job);
      this.setMeta(OPS_INDEXED, "1");
    }
  }

  private meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value;
  }

  private setMeta(key: string, value: string): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  private putOps(id: number, job: Job): void {
    for (const op of opIdsOf(job)) this.sql.exec("INSERT OR IGNORE INTO running_ops (op, id) VALUES (?, ?)", op, id);
  }

  private deleteOps(id: number): void {
    this.sql.exec("DELETE FROM running_ops WHERE id = ?", id);
  }

  countedFor(): string | undefined {
    return this.meta(COUNTED_FOR);
  }

  countedRules(): string[] {
    return this.sql
      .exec<{ rule: string }>("SELECT rule FROM counted_rules")
      .toArray()
      .map((r) => r.rule);
  }

  setCountedFor(fingerprint: string, changed: ReadonlyMap<string, string | null>): void {
    for (const [uuid, text] of changed) {
      if (text === null) this.sql.exec("DELETE FROM counted_rules WHERE uuid = ?", uuid);
      else
        this.sql.exec(
          "INSERT INTO counted_rules (uuid, rule) VALUES (?, ?) ON CONFLICT (uuid) DO UPDATE SET rule = excluded.rule",
          uuid,
          text,
        );
    }
    this.setMeta(COUNTED_FOR, fingerprint);
  }

  totals(): Totals {
    const out: Totals = { rules: new Map(), buckets: new Map() };
    for (const r of this.sql.exec<{ kind: string; key: string; n: number }>(
      "SELECT kind, key, n FROM running_totals",
    )) {
      (r.kind === "rule" ? out.rules : out.buckets).set(r.key, r.n);
    }
    return out;
  }

  setTotal(kind: "rule" | "bucket", key: string, n: number): void {
    if (n === 0) this.sql.exec("DELETE FROM running_totals WHERE kind = ? AND key = ?", kind, key);
    else
      this.sql.exec(
        "INSERT INTO running_totals (kind, key, n) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET n = excluded.n",
        kind,
        key,
        n,
      );
  }

  share(id: number): Share | undefined {
    const rows = this.sql
      .exec<{ rule: string | null; buckets: string }>(
        "SELECT rule, buckets FROM running_shares WHERE id = ?",
        id,
      )
      .toArray();
    return rows[0] === undefined ? undefined : { rule: rows[0].rule, buckets: bucketsOf(rows[0].buckets) };
  }

  putShare(id: number, share: Share, job: Job): void {
    // a new job's share (`RunningCounts.start` never saves one twice): no index rows to replace
    this.putOps(id, job);
    this.sql.exec(
      "INSERT INTO running_shares (id, rule, buckets) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rule = excluded.rule, buckets = excluded.buckets",
      id,
      share.rule,
      bucketsText(share.buckets),
    );
  }

  moveShare(id: number, rule: string | null): void {
    this.sql.exec("UPDATE running_shares SET rule = ? WHERE id = ?", rule, id);
  }

  deleteShare(id: number): void {
    this.sql.exec("DELETE FROM running_shares WHERE id = ?", id);
    this.deleteOps(id);
  }

  eachHolder(rules: ReadonlySet<string | null>, withJobs: boolean, visit: (h: Holder) => void): void {
    for (const h of this.holders(rules, withJobs)) visit(h);
  }

  eachReached(reached: Reached, withJobs: boolean, visit: (h: Holder) => void): void {
    const seen = new Set<number>();
    const each = (rows: Iterable<Raw>) => {
      for (const r of rows) {
        const id = r.id as number;
        if (seen.has(id)) continue;
        seen.add(id);
        visit(this.holder(r, withJobs));
      }
    };
    const select = withJobs ? SELECT_WITH_JOBS : SELECT_SHARES;
    for (const [lo, hi] of reached.ids) {
      // the primary key's range; an open end is no bound
      if (lo === -Infinity && hi === Infinity) each(this.sql.exec<Raw>(select).toArray());
      else if (lo === -Infinity) each(this.sql.exec<Raw>(`${select} WHERE s.id <= ?`, hi).toArray());
      else if (hi === Infinity) each(this.sql.exec<Raw>(`${select} WHERE s.id >= ?`, lo).toArray());
      else each(this.sql.exec<Raw>(`${select} WHERE s.id >= ? AND s.id <= ?`, lo, hi).toArray());
    }
    for (const op of reached.ops)
      each(this.sql.exec<Raw>(`${select} JOIN running_ops o ON o.id = s.id WHERE o.op = ?`, op).toArray());
  }

  private holder(r: Raw, withJobs: boolean): Holder {
    return {
      id: r.id as number,
      share: { rule: (r.rule as string | null) ?? null, buckets: bucketsOf(r.buckets as string) },
      job: withJobs ? (parseExactJson(r.job as string) as unknown as Job) : undefined,
    };
  }

  private holders(rules: ReadonlySet<string | null>, withJobs: boolean): Holder[] {
    const select = withJobs ? SELECT_WITH_JOBS : SELECT_SHARES;
    const holder = (r: Raw): Holder => this.holder(r, withJobs);
    const out: Holder[] = [];
    if (rules.size > RULES_PER_LOOKUP) {
      for (const r of this.sql.exec<Raw>(select))
        if (rules.has((r.rule as string | null) ?? null)) out.push(holder(r));
      return out;
    }
    for (const rule of rules) {
      const rows =
        rule === null
          ? this.sql.exec<Raw>(`${select} WHERE s.rule IS NULL`)
          : this.sql.exec<Raw>(`${select} WHERE s.rule = ?`, rule);
      for (const r of rows) out.push(holder(r));
    }
    return out;
  }

  clear(): void {
    this.sql.exec("DELETE FROM running_shares");
    this.sql.exec("DELETE FROM running_totals");
    this.sql.exec("DELETE FROM counted_rules");
    this.sql.exec("DELETE FROM running_ops");
    this.sql.exec("DELETE FROM meta WHERE key = ?", COUNTED_FOR);
  }
}
