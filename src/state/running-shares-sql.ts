/**
 * The JobQueue object's running counts in its SQLite storage (a
 * `ShareStore`, see src/engines/jobfilter/running-shares.ts): one row per
 * running job with the rule it is counted under and its bucket keys, one row
 * per non-zero total, and the fingerprint of the rule set they were counted
 * for in the meta table, and an index of the running jobs by their facts
 * (`running_facts`: their opcodes' `OP_ID`s, their reason entries' sources
 * and reasons, and their opcodes' values at the field paths the rules test
 * for equality, kind `field:<path>`, the paths listed in the meta table, a
 * path new to it filled for the jobs counted before by `fillIndex`; see
 * job-reach.ts) so that a rule change reads only the jobs the rules it added
 * can reach. Written as each count changes, in the same turn as
 * the job rows, so an object that starts again reads its totals back instead
 * of counting every running job.
 */
import { parseExactJson } from "../engines/common/exact-json.js";
import type {
  EarlierSet,
  FactReach,
  Holder,
  Job,
  Reached,
  Share,
  ShareStore,
  Totals,
} from "../engines/jobfilter/index.js";
import { cheapest, factsOf, fieldKind, valuesAt } from "../engines/jobfilter/index.js";

/** The tables of the running counts. */
export const SHARES_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS running_shares (id INTEGER PRIMARY KEY, rule TEXT, buckets TEXT NOT NULL, gen INTEGER, was TEXT)",
  "CREATE INDEX IF NOT EXISTS running_shares_rule ON running_shares (rule)",
  "CREATE TABLE IF NOT EXISTS running_totals (kind TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, key))",
  "CREATE TABLE IF NOT EXISTS counted_rules (uuid TEXT PRIMARY KEY, rule TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS running_facts (kind TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, value, id)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS running_facts_id ON running_facts (id)",
  // the earlier rule sets jobs' remembered rules are for (`running_shares.gen`), each as its rules' texts where they differ from `counted_rules` (rule NULL: a rule it lacks)
  "CREATE TABLE IF NOT EXISTS earlier_sets (gen INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS earlier_rules (gen INTEGER NOT NULL, uuid TEXT NOT NULL, rule TEXT, PRIMARY KEY (gen, uuid))",
];

/** The meta key recording that `running_shares` has the columns of the jobs' remembered rules (`gen`, `was`; a table made before them gets them once). */
const EARLIER_COLUMNS = "earlier_columns";

/** The meta key recording that `running_facts` holds every counted job (counts saved before it existed are indexed once). */
const FACTS_INDEXED = "running_facts";

/** The meta key listing (JSON) the opcode field paths `running_facts` indexes the counted jobs' values at; absent: none. */
const INDEXED_PATHS = "indexed_paths";

/**
 * The meta key recording the indexed paths still filling (JSON `{paths,
 * after}`): their rows hold the jobs started since each was added and the
 * counted jobs up to id `after` (null: none yet); absent, none is filling.
 */
const FILLING_PATHS = "filling_paths";

/** The meta key holding the fingerprint of the rule set the saved counts are for. */
const COUNTED_FOR = "counts_for";

/** Above this many rules, holders are read in one pass over the shares instead of one lookup per rule. */
const RULES_PER_LOOKUP = 32;

type Raw = Record<string, SqlStorageValue>;

const SELECT_SHARES =
  "SELECT s.id AS id, s.rule AS rule, s.buckets AS buckets, s.gen AS gen, s.was AS was FROM running_shares s";
const SELECT_WITH_JOBS =
  "SELECT s.id AS id, s.rule AS rule, s.buckets AS buckets, s.gen AS gen, s.was AS was, j.job AS job FROM running_shares s JOIN jobs j ON j.id = s.id";

/** A share from its row: a job no change moved has no remembered rule. */
function shareOf(r: Raw): Share {
  const share = { rule: (r.rule as string | null) ?? null, buckets: bucketsOf(r.buckets as string) };
  return r.gen === null || r.gen === undefined
    ? share
    : { ...share, gen: r.gen as number, was: (r.was as string | null) ?? null };
}

function bucketsText(buckets: readonly string[]): string {
  return buckets.length === 0 ? "" : JSON.stringify(buckets);
}

function bucketsOf(text: string): string[] {
  return text === "" ? [] : (JSON.parse(text) as string[]);
}

/** The running counts' rows in a queue object's SQLite storage. */
export class SqlShares implements ShareStore {
  private paths: readonly string[];
  private filling: { paths: string[]; after: number | null } | undefined;

  constructor(private readonly sql: SqlStorage) {
    for (const statement of SHARES_SCHEMA) sql.exec(statement);
    const listed = this.meta(INDEXED_PATHS);
    this.paths = listed === undefined ? [] : (JSON.parse(listed) as string[]);
    const filling = this.meta(FILLING_PATHS);
    this.filling =
      filling === undefined ? undefined : (JSON.parse(filling) as { paths: string[]; after: number | null });
    // only listed paths fill (a path no longer listed is not read through whatever its rows)
    const listedFilling = this.filling?.paths.filter((p) => this.paths.includes(p)) ?? [];
    if (this.filling !== undefined && listedFilling.length < this.filling.paths.length)
      this.setFilling(
        listedFilling.length === 0 ? undefined : { paths: listedFilling, after: this.filling.after },
      );
    if (this.meta(EARLIER_COLUMNS) === undefined) {
      for (const column of ["gen INTEGER", "was TEXT"]) {
        try {
          sql.exec(`ALTER TABLE running_shares ADD COLUMN ${column}`);
        } catch {
          // made with the column already (by SHARES_SCHEMA above)
        }
      }
      this.setMeta(EARLIER_COLUMNS, "1");
    }
    if (this.meta(FACTS_INDEXED) === undefined) {
      // counts saved by a release without the index (or with the OP_ID-only `running_ops`): index their jobs once
      sql.exec("DELETE FROM running_facts");
      for (const r of sql.exec<{ id: number; job: string }>(
        "SELECT s.id AS id, j.job AS job FROM running_shares s JOIN jobs j ON j.id = s.id",
      ))
        this.putFacts(r.id, parseExactJson(r.job) as unknown as Job);
      // every path listed is indexed from every counted job now
      this.setFilling(undefined);
      sql.exec("DROP TABLE IF EXISTS running_ops");
      sql.exec("DELETE FROM meta WHERE key = 'running_ops'");
      this.setMeta(FACTS_INDEXED, "1");
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

  private putFacts(id: number, job: Job): void {
    for (const [kind, value] of factsOf(job, this.paths))
      this.sql.exec(
        "INSERT OR IGNORE INTO running_facts (kind, value, id) VALUES (?, ?, ?)",
        kind,
        value,
        id,
      );
  }

  private deleteFacts(id: number): void {
    this.sql.exec("DELETE FROM running_facts WHERE id = ?", id);
  }

  indexedPaths(): readonly string[] {
    return this.paths;
  }

  fillingPaths(): readonly string[] {
    return this.filling?.paths ?? [];
  }

  /** A path new to the index fills from the first counted job (a path filling already starts again with it); a dropped path's rows go as their jobs end (an index row only ever names a running job, so they stay true if the path comes back). */
  setIndexedPaths(paths: readonly string[]): void {
    const was = new Set(this.paths);
    const added = paths.filter((p) => !was.has(p));
    if (added.length === 0 && paths.length === was.size) return;
    this.paths = [...paths];
    this.setMeta(INDEXED_PATHS, JSON.stringify(this.paths));
    const kept = (this.filling?.paths ?? []).filter((p) => paths.includes(p));
    if (added.length > 0 && this.sql.exec("SELECT 1 FROM running_shares LIMIT 1").toArray().length > 0)
      this.setFilling({ paths: [...kept, ...added], after: null });
    else this.setFilling(kept.length === 0 ? undefined : { paths: kept, after: this.filling!.after });
  }

  private setFilling(filling: { paths: string[]; after: number | null } | undefined): void {
    this.filling = filling;
    if (filling === undefined) this.sql.exec("DELETE FROM meta WHERE key = ?", FILLING_PATHS);
    else this.setMeta(FILLING_PATHS, JSON.stringify(filling));
  }

  /** Reads the next counted jobs by id after the last one read (each job's JSON parsed once); rows already there are kept (`INSERT OR IGNORE`). */
  fillIndex(jobs: number): number {
    const filling = this.filling;
    if (filling === undefined || jobs <= 0) return 0;
    const rows = this.sql
      .exec<{ id: number; job: string }>(
        "SELECT s.id AS id, j.job AS job FROM running_shares s JOIN jobs j ON j.id = s.id WHERE s.id > ? ORDER BY s.id LIMIT ?",
        filling.after ?? Number.MIN_SAFE_INTEGER,
        jobs,
      )
      .toArray();
    for (const r of rows) {
      const job = parseExactJson(r.job) as unknown as Job;
      for (const path of filling.paths)
        for (const value of new Set(valuesAt(job, path)))
          this.sql.exec(
            "INSERT OR IGNORE INTO running_facts (kind, value, id) VALUES (?, ?, ?)",
            fieldKind(path),
            value,
            r.id,
          );
    }
    // fewer than asked: every counted job is read (a job counted since was indexed as it started)
    this.setFilling(
      rows.length < jobs ? undefined : { paths: filling.paths, after: rows[rows.length - 1].id },
    );
    return rows.length;
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
    for (const uuid of changed.keys())
      // an earlier set that had the counted rule keeps its text
      this.sql.exec(
        "INSERT OR IGNORE INTO earlier_rules (gen, uuid, rule) SELECT gen, ?, (SELECT rule FROM counted_rules WHERE uuid = ?) FROM earlier_sets",
        uuid,
        uuid,
      );
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

  remembered(rule: string): readonly { gen: number; was: string | null; n: number }[] {
    return this.sql
      .exec<{ gen: number; was: string | null; n: number }>(
        "SELECT gen, was, count(*) AS n FROM running_shares WHERE rule = ? AND gen IS NOT NULL GROUP BY gen, was",
        rule,
      )
      .toArray();
  }

  /** One statement: SQLite updates the rows, no call per job (its `rowsWritten` counts index rows too, so the rows are counted first). */
  moveRemembered(rule: string, gen: number, was: string | null, to: string | null, now: number): number {
    const n = this.sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM running_shares WHERE rule = ? AND gen = ? AND was IS ?",
        rule,
        gen,
        was,
      )
      .one().n;
    this.sql.exec(
      "UPDATE running_shares SET rule = ?, gen = ?, was = ? WHERE rule = ? AND gen = ? AND was IS ?",
      to,
      now,
      rule,
      rule,
      gen,
      was,
    );
    return n;
  }

  earlierSets(): readonly EarlierSet[] {
    return this.sql
      .exec<{ gen: number; fingerprint: string }>(
        "SELECT gen, fingerprint FROM earlier_sets ORDER BY gen DESC",
      )
      .toArray();
  }

  earlierRules(gen: number): string[] {
    return this.sql
      .exec<{ rule: string }>(
        "SELECT rule FROM counted_rules WHERE uuid NOT IN (SELECT uuid FROM earlier_rules WHERE gen = ?) UNION ALL SELECT rule FROM earlier_rules WHERE gen = ? AND rule IS NOT NULL",
        gen,
        gen,
      )
      .toArray()
      .map((r) => r.rule);
  }

  addEarlier(fingerprint: string, keep: number): number {
    const gen =
      (this.sql.exec<{ g: number | null }>("SELECT max(gen) AS g FROM earlier_sets").one().g ?? 0) + 1;
    this.sql.exec("INSERT INTO earlier_sets (gen, fingerprint) VALUES (?, ?)", gen, fingerprint);
    // the oldest dropped (jobs' entries for them are no longer read)
    this.sql.exec("DELETE FROM earlier_rules WHERE gen <= ?", gen - keep);
    this.sql.exec("DELETE FROM earlier_sets WHERE gen <= ?", gen - keep);
    return gen;
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
      .exec<Raw>("SELECT rule, buckets, gen, was FROM running_shares WHERE id = ?", id)
      .toArray();
    return rows[0] === undefined ? undefined : shareOf(rows[0]);
  }

  putShare(id: number, share: Share, job: Job): void {
    // a new job's share (`RunningCounts.start` never saves one twice): no index rows to replace
    this.putFacts(id, job);
    this.sql.exec(
      "INSERT INTO running_shares (id, rule, buckets, gen, was) VALUES (?, ?, ?, NULL, NULL) ON CONFLICT (id) DO UPDATE SET rule = excluded.rule, buckets = excluded.buckets, gen = NULL, was = NULL",
      id,
      share.rule,
      bucketsText(share.buckets),
    );
  }

  moveShares(
    moved: readonly Holder[],
    rules: readonly (string | null)[],
    gen: number,
    was: readonly (string | null)[],
  ): void {
    for (let i = 0; i < moved.length; i++)
      this.sql.exec(
        "UPDATE running_shares SET rule = ?, gen = ?, was = ? WHERE id = ?",
        rules[i],
        gen,
        was[i],
        moved[i].id,
      );
  }

  deleteShare(id: number): void {
    this.sql.exec("DELETE FROM running_shares WHERE id = ?", id);
    this.deleteFacts(id);
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
    const byValue = `${select} JOIN running_facts f ON f.id = s.id WHERE f.kind = ? AND f.value = ?`;
    const size = (f: FactReach, atMost: number) => {
      let n = 0;
      for (const v of f.values.finite!) {
        if (n > atMost) break;
        n += this.sql
          // counted no further than past the fewest so far (LIMIT -1: no limit)
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM (SELECT 1 FROM running_facts WHERE kind = ? AND value = ? LIMIT ?)",
            f.kind,
            v,
            Number.isFinite(atMost) ? atMost - n + 1 : -1,
          )
          .one().n;
      }
      return n;
    };
    for (const alts of reached.facts) {
      const { kind, values } = cheapest(alts, size);
      // a value test runs once on each distinct value held
      const wanted =
        values.finite ??
        this.sql
          .exec<{ value: string }>("SELECT DISTINCT value FROM running_facts WHERE kind = ?", kind)
          .toArray()
          .map((r) => r.value)
          .filter((v) => values.has(v));
      for (const v of wanted) each(this.sql.exec<Raw>(byValue, kind, v).toArray());
    }
  }

  /** A holder whose job is parsed only when the rule change reads it (a job under a rule before every added one is not). */
  private holder(r: Raw, withJobs: boolean): Holder {
    let job: Job | undefined;
    return {
      id: r.id as number,
      share: shareOf(r),
      get job() {
        if (job === undefined && withJobs) job = parseExactJson(r.job as string) as unknown as Job;
        return job;
      },
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
    this.sql.exec("DELETE FROM running_facts");
    this.sql.exec("DELETE FROM earlier_rules");
    this.sql.exec("DELETE FROM earlier_sets");
    this.sql.exec("DELETE FROM meta WHERE key = ?", COUNTED_FOR);
    this.setFilling(undefined);
  }
}
