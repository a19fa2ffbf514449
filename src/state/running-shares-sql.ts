/**
 * The JobQueue object's running counts in its SQLite storage (a
 * `ShareStore`, see src/engines/jobfilter/running-shares.ts): the running
 * jobs' shares in groups (`running_groups`: a rule, the earlier rule the
 * group's jobs remember, and how many jobs it holds; `running_members`: one
 * row per running job naming its group, with its bucket keys), so that a
 * rule change moving many jobs together writes their group's row, not one
 * row per job; one row per non-zero total, and the fingerprint of the rule
 * set they were counted for in the meta table; and an index of the running
 * jobs by their facts (`running_facts`: their opcodes' `OP_ID`s, their
 * reason entries' sources and reasons, and their opcodes' values at the
 * field paths the rules test by value or with `!=`, kind `field:<path>`, with
 * the presence key `NO_KEY` where a job has no value there, the paths listed
 * in the meta table, a path new to it filled for the jobs counted before by
 * `fillIndex`, as are all the facts of counts saved before the index existed,
 * none read through until then; see job-reach.ts) so that a rule change reads only the jobs
 * the rules it added can reach, and moves the jobs outside a `!=` rule's
 * values by their groups (`moveBeside`); and, for the last few rules that were one
 * regex alone on an indexed field, the values it matched and how many of each
 * group's jobs hold one (`running_memos`, `running_matched`,
 * `running_memo_groups`), so a change to such a regex again tests no value and
 * reads no job (`moveByFact`); the first change to one hands out only the
 * values holding the regex's required literal, and records its split of each
 * group (`running_pending`: the group's jobs holding a value it matched are in
 * a new group) rather than rewriting their member rows, which `fillIndex`
 * writes in slices (or a read of those rows by group first), every count
 * being exact meanwhile (a job's group resolved through the split where its
 * row is read one by one). Written as each count changes, in
 * the same turn as the job rows, so an object that starts again reads its
 * totals back instead of counting every running job.
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
import {
  NO_KEY,
  cheapest,
  factsOf,
  fieldKind,
  requiredGlob,
  requiredLiteral,
  stringsMatchingPattern,
  valueKey,
  valuesAt,
} from "../engines/jobfilter/index.js";

/**
 * The SQL condition that value `column` may match a regex whose required
 * GLOBs (see `requiredGlob`) are parameters `globs`: it matches one, or is not
 * ASCII or holds a NUL (its length in characters, up to a NUL, differs from
 * its length in bytes), which the GLOBs do not speak for.
 */
export const globAdmits = (column: string, globs: readonly string[]): string =>
  `(${globs.map((g) => `${column} GLOB ${g}`).join(" OR ")} OR length(${column}) <> length(CAST(${column} AS BLOB)))`;

/** The tables of the running counts. */
export const SHARES_SCHEMA = [
  // a group of running jobs counted under one rule, remembering one earlier rule (`gen`, `was`; see `Share.gen`), `n` jobs
  "CREATE TABLE IF NOT EXISTS running_groups (grp INTEGER PRIMARY KEY, rule TEXT, gen INTEGER, was TEXT, n INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS running_groups_rule ON running_groups (rule)",
  "CREATE TABLE IF NOT EXISTS running_members (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, buckets TEXT NOT NULL)",
  "CREATE INDEX IF NOT EXISTS running_members_grp ON running_members (grp)",
  "CREATE TABLE IF NOT EXISTS running_totals (kind TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, key))",
  "CREATE TABLE IF NOT EXISTS counted_rules (uuid TEXT PRIMARY KEY, rule TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS running_facts (kind TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, value, id)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS running_facts_id ON running_facts (id)",
  // the earlier rule sets jobs' remembered rules are for (`running_groups.gen`), each as its rules' texts where they differ from `counted_rules` (rule NULL: a rule it lacks)
  "CREATE TABLE IF NOT EXISTS earlier_sets (gen INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS earlier_rules (gen INTEGER NOT NULL, uuid TEXT NOT NULL, rule TEXT, PRIMARY KEY (gen, uuid))",
  // a regex's matches kept (see `moveByFact`): per memo, a kind of fact (`field:<path>`) and a pattern, last used at `used`
  // (being dropped by `fillIndex` when `dropping`), and in `running_matched` each value of that kind held that it matches
  "CREATE TABLE IF NOT EXISTS running_memos (memo INTEGER PRIMARY KEY, kind TEXT NOT NULL, pattern TEXT NOT NULL, used INTEGER NOT NULL, dropping INTEGER NOT NULL DEFAULT 0)",
  "CREATE TABLE IF NOT EXISTS running_matched (memo INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (memo, value)) WITHOUT ROWID",
  // per memo and group, how many of the group's jobs hold a value it matched (no row for none)
  "CREATE TABLE IF NOT EXISTS running_memo_groups (memo INTEGER NOT NULL, grp INTEGER NOT NULL, k INTEGER NOT NULL, PRIMARY KEY (memo, grp)) WITHOUT ROWID",
  // a split not yet written to the member rows (see `moveByFact`): the jobs whose member row names group `grp` and that
  // hold a value kept memo `memo` matched are in group `dest`; `fillIndex` writes their rows, a slice of the memo's
  // values' jobs at a time in order (`after`: JSON [value, id] of the last done, null: none yet)
  "CREATE TABLE IF NOT EXISTS running_pending (grp INTEGER PRIMARY KEY, memo INTEGER NOT NULL, dest INTEGER NOT NULL, after TEXT)",
];

/** How many regexes' matches the store keeps (see `moveByFact`); the least recently used beyond them are dropped by `fillIndex`. */
export const MAX_MEMOS = 4;

/**
 * The most rows of `running_facts` (a job's value at an indexed field path)
 * the object keeps in its memory between calls, over every field (see
 * `held`), and the most characters of their distinct values: a field past
 * either is read from SQLite each time instead.
 */
export const MAX_HELD_ROWS = 200_000;
/** See {@link MAX_HELD_ROWS}. */
export const MAX_HELD_CHARS = 4_000_000;

/** How many rows of `running_facts` `fillIndex` reads into memory (see `SqlShares.held`) in place of one job. */
const HELD_ROWS_PER_JOB = 20;

/** How many distinct values one statement hands to JS as a JSON list (fewer when they do not fit in one SQLite string). */
const VALUE_CHUNK = 20_000;

/** The size of the JSON list of values one statement takes (SQLite's strings stop at 1,000,000 bytes here). */
const LIST_CHARS = 250_000;

/** The meta key recording that the older `running_shares` table (one row per job with its rule), if it had rows, had the columns of the jobs' remembered rules (`gen`, `was`; a table made before them got them once). */
const EARLIER_COLUMNS = "earlier_columns";

/** The meta key recording that the `op` rows of `running_facts` hold the presence key (`NO_KEY`) for the jobs with an opcode without `OP_ID` or none; absent, counts indexed before it get them from `fillIndex`, a slice at a time (see `OP_PRESENCE_AFTER`). */
const OP_PRESENCE = "op_presence";

/**
 * The meta key recording, while the `op` presence rows are being added to
 * counts indexed before them (see `OP_PRESENCE`), the id of the last counted
 * job read for them (JSON; null: none yet): `fillIndex` goes on after it.
 */
const OP_PRESENCE_AFTER = "op_presence_after";

/** The meta key recording that the field paths' rows in `running_facts` hold the presence key (`NO_KEY`): paths indexed before it fill again. */
const PRESENCE_KEYS = "presence_keys";

/** The meta key recording that `running_facts` holds every counted job (counts saved before it existed are indexed once). */
const FACTS_INDEXED = "running_facts";

/**
 * The meta key recording, while `running_facts` is being filled for counts
 * saved before it existed (see `FACTS_INDEXED`), the id of the last counted
 * job indexed (JSON; null: none yet): `fillIndex` goes on after it.
 */
const FACTS_AFTER = "running_facts_after";

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

/** A holder this store hands out: also the group its job is in (`moveShares` moves it from there). */
interface GroupHolder extends Holder {
  readonly grp: number;
}

/** The rows of one kind of fact held in memory (see `SqlShares.held`): per value, the job holding it, or the jobs. */
type HeldRows = Map<string, number | Set<number>>;

/** A regex's kept matches (see `running_memos`): its test compiled when a value is first tested. */
interface Memo {
  readonly kind: string;
  readonly pattern: string;
  test?: (v: string) => boolean;
}

/** The columns of a holder's row (`job` only `withJobs`), over `s` (`running_members`), `g` (`running_groups`) and `j` (`jobs`). */
const columns = (withJobs: boolean) =>
  `s.id AS id, g.rule AS rule, s.buckets AS buckets, g.gen AS gen, g.was AS was, g.grp AS grp${withJobs ? ", j.job AS job" : ""}`;
const withJob = (withJobs: boolean) => (withJobs ? " CROSS JOIN jobs j ON j.id = s.id" : "");

/**
 * The group of member row `s`'s job: the row's, unless a split not yet written (`running_pending`) takes the jobs
 * of that group holding a value its memo matched to another.
 */
const REAL_GROUP =
  "coalesce((SELECT p.dest FROM running_pending p WHERE p.grp = s.grp AND EXISTS (SELECT 1 FROM running_memos r CROSS JOIN running_facts f2 ON f2.id = s.id AND f2.kind = r.kind CROSS JOIN running_matched m2 ON m2.memo = r.memo AND m2.value = f2.value WHERE r.memo = p.memo)), s.grp)";

/** The group row joined to member row `s`: the one its job is in (`pending`: splits not yet written may take it elsewhere). */
const groupOf = (pending: boolean) => (pending ? `g.grp = ${REAL_GROUP}` : "g.grp = s.grp");

/** Holders by their jobs' ids (a `WHERE` on `s.id` follows). */
const byId = (withJobs: boolean, pending = false) =>
  `SELECT ${columns(withJobs)} FROM running_members s CROSS JOIN running_groups g ON ${groupOf(pending)}${withJob(withJobs)}`;

/** Holders by their groups' rule (a `WHERE` on `g.rule` follows): the groups first (`CROSS JOIN` keeps that order), then their members. */
const byRule = (withJobs: boolean) =>
  `SELECT ${columns(withJobs)} FROM running_groups g CROSS JOIN running_members s ON s.grp = g.grp${withJob(withJobs)}`;

/** Holders with one fact, `kind` and `value` the parameters: the fact index first, then the members. */
const byFact = (withJobs: boolean, pending = false) =>
  `SELECT ${columns(withJobs)} FROM running_facts f CROSS JOIN running_members s ON s.id = f.id CROSS JOIN running_groups g ON ${groupOf(pending)}${withJob(withJobs)} WHERE f.kind = ? AND f.value = ?`;

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
  /** While the `op` presence rows are added to counts indexed before them: the last counted job read for them (null: none yet); undefined when every counted job has them. */
  private opAfter: number | null | undefined;
  /** While `running_facts` is filled for counts saved before it: the last counted job indexed (null: none yet); undefined when it holds every counted job. */
  private factsAfter: number | null | undefined;
  /** A group of each rule's jobs that remember no earlier rule, where new jobs of the rule go (see `putShare`). */
  private readonly fresh = new Map<string | null, number>();
  /** The regexes whose matches are kept, by memo number (none being dropped). */
  private readonly memos = new Map<number, Memo>();
  /** Whether a memo is being dropped (see `fillIndex`). */
  private dropping = false;
  /** How many splits are not yet written to the member rows (`running_pending`). */
  private pending = 0;
  /**
   * The rows of `running_facts` of some field kinds, in memory between calls,
   * so that the first change to a regex new to the store tests the values
   * and counts their jobs without reading the index (see `memoOf`). A kind
   * is held from the first such change on its field, or, when the object
   * starts, from the kept memos' fields: read from SQLite by `fillIndex` in
   * slices (`warming`: the last row read), every row written or deleted
   * meanwhile kept in step (an add idempotent, so a row read again changes
   * nothing); until it is read whole, a change reads SQLite as before. At
   * most `MAX_HELD_ROWS` rows and `MAX_HELD_CHARS` characters of values in
   * all; a kind past them is let go and not read again (`unheld`) while the
   * object runs.
   */
  private readonly held = new Map<string, HeldRows>();
  /** The held kinds still being read from SQLite (see `held`): the last row read, by (value, id); null: none yet. */
  private readonly warming = new Map<string, [string, number] | null>();
  /** How many rows `held` keeps, and how many characters of distinct values. */
  private heldCount = 0;
  private heldChars = 0;
  /** Kinds too large to hold (see `held`). */
  private readonly unheld = new Set<string>();

  /** `heldBounds`: the most rows and characters `held` keeps (see `MAX_HELD_ROWS`). */
  constructor(
    private readonly sql: SqlStorage,
    private readonly heldBounds: { readonly rows: number; readonly chars: number } = {
      rows: MAX_HELD_ROWS,
      chars: MAX_HELD_CHARS,
    },
  ) {
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
    const older = sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'running_shares'")
      .toArray();
    if (older.length > 0) this.fromRowPerJob();
    if (this.meta(FACTS_INDEXED) === undefined) {
      // counts saved by a release without the index (or with the OP_ID-only `running_ops`): their jobs indexed by
      // `fillIndex` in slices (not here: no pass over the counted jobs), the index not read through until then
      const after = this.meta(FACTS_AFTER);
      if (after !== undefined) this.factsAfter = JSON.parse(after) as number | null;
      else {
        sql.exec("DELETE FROM running_facts");
        // kept regex matches are read through the index (a release without it kept none, nor any split unwritten)
        for (const table of ["running_memos", "running_matched", "running_memo_groups"])
          sql.exec(`DELETE FROM ${table}`);
        sql.exec("DROP TABLE IF EXISTS running_ops");
        sql.exec("DELETE FROM meta WHERE key = 'running_ops'");
        // every path listed is indexed from every counted job as it fills, with the presence key
        this.setFilling(undefined);
        this.setMeta(PRESENCE_KEYS, "1");
        this.setOpAfter(undefined);
        this.setFactsAfter(
          sql.exec("SELECT 1 FROM running_members LIMIT 1").toArray().length > 0 ? null : undefined,
        );
      }
    }
    if (this.meta(OP_PRESENCE) === undefined) {
      // the jobs with no opcode or an opcode without `OP_ID`, indexed under the presence key by `fillIndex` in slices (not here: no pass over the counted jobs)
      const after = this.meta(OP_PRESENCE_AFTER);
      if (after !== undefined) this.opAfter = JSON.parse(after) as number | null;
      else if (sql.exec("SELECT 1 FROM running_members LIMIT 1").toArray().length > 0) this.setOpAfter(null);
      else this.setOpAfter(undefined);
    }
    for (const m of sql.exec<{ memo: number; kind: string; pattern: string; dropping: number }>(
      "SELECT memo, kind, pattern, dropping FROM running_memos",
    ))
      if (m.dropping === 0) this.memos.set(m.memo, { kind: m.kind, pattern: m.pattern });
      else this.dropping = true;
    this.pending = sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_pending").one().n;
    // the kept memos' fields, where a regex rule was changed to before: their rows held again (read in slices)
    for (const m of this.memos.values()) this.warm(m.kind);
    if (this.meta(PRESENCE_KEYS) === undefined) {
      // paths indexed by a release without the presence key: filled again (their rows kept), not read through until then
      if (this.paths.length > 0 && sql.exec("SELECT 1 FROM running_members LIMIT 1").toArray().length > 0)
        this.setFilling({ paths: [...this.paths], after: null });
      this.setMeta(PRESENCE_KEYS, "1");
    }
  }

  /**
   * Counts saved by a release with one row per job (`running_shares`: its
   * rule, buckets and remembered rule) are put in groups, one per (rule,
   * remembered rule), in three statements, and that table dropped.
   */
  private fromRowPerJob(): void {
    if (this.meta(EARLIER_COLUMNS) === undefined) {
      // older still: no remembered rules
      for (const column of ["gen INTEGER", "was TEXT"]) {
        try {
          this.sql.exec(`ALTER TABLE running_shares ADD COLUMN ${column}`);
        } catch {
          // made with the column already
        }
      }
    }
    this.sql.exec(
      "INSERT INTO running_groups (rule, gen, was, n) SELECT rule, gen, was, count(*) FROM running_shares GROUP BY rule, gen, was",
    );
    this.sql.exec(
      "INSERT INTO running_members (id, grp, buckets) SELECT s.id, g.grp, s.buckets FROM running_shares s JOIN running_groups g ON g.rule IS s.rule AND g.gen IS s.gen AND g.was IS s.was",
    );
    this.sql.exec("DROP TABLE running_shares");
    this.sql.exec("DELETE FROM meta WHERE key = ?", EARLIER_COLUMNS);
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

  /** A job's facts indexed; `matched` gets the kept memos a value of its matches. */
  private putFacts(id: number, job: Job, matched?: Set<number>): void {
    for (const [kind, value] of factsOf(job, this.paths, true)) this.putFact(kind, value, id, matched);
  }

  /** One row of the fact index, and the value in each kept regex's matches it is one of (see `moveByFact`), those memos added to `matched`. */
  private putFact(kind: string, value: string, id: number, matched?: Set<number>): void {
    this.sql.exec("INSERT OR IGNORE INTO running_facts (kind, value, id) VALUES (?, ?, ?)", kind, value, id);
    if (this.held.size > 0) this.holdRow(kind, value, id);
    if (this.memos.size > 0)
      for (const [memo, m] of this.memos)
        if (m.kind === kind && (m.test ??= stringsMatchingPattern(m.pattern).has)(value)) {
          this.sql.exec("INSERT OR IGNORE INTO running_matched (memo, value) VALUES (?, ?)", memo, value);
          matched?.add(memo);
        }
  }

  /** A job's facts deleted; `memos`: the kept memos a value of its matches (see `memosOfJob`), whose matches lose a value no other job holds. */
  private deleteFacts(id: number, memos: readonly number[]): void {
    const kinds = new Set(memos.map((m) => this.memos.get(m)?.kind));
    const facts =
      memos.length === 0 && this.held.size === 0
        ? []
        : this.sql
            .exec<{ kind: string; value: string }>("SELECT kind, value FROM running_facts WHERE id = ?", id)
            .toArray();
    this.sql.exec("DELETE FROM running_facts WHERE id = ?", id);
    for (const { kind, value } of facts) {
      const rows = this.held.get(kind);
      if (rows !== undefined) this.dropRow(rows, value, id);
      if (!kinds.has(kind)) continue;
      // a value another job still holds stays matched
      if (rows !== undefined && rows.has(value)) continue;
      this.sql.exec(
        "DELETE FROM running_matched WHERE memo IN (SELECT memo FROM running_memos WHERE kind = ?1 AND dropping = 0) AND value = ?2 AND NOT EXISTS (SELECT 1 FROM running_facts WHERE kind = ?1 AND value = ?2)",
        kind,
        value,
      );
    }
  }

  /** Adds row (`kind`, `value`, `id`) of `running_facts` to `held` when that kind is held (letting go of them all when they grow past the bounds). */
  private holdRow(kind: string, value: string, id: number): void {
    const rows = this.held.get(kind);
    if (rows === undefined) return;
    const at = rows.get(value);
    if (at === undefined) {
      rows.set(value, id);
      this.heldChars += value.length;
    } else if (typeof at === "number") {
      if (at === id) return;
      rows.set(value, new Set([at, id]));
    } else {
      if (at.has(id)) return;
      at.add(id);
    }
    this.heldCount++;
    if (this.heldCount > this.heldBounds.rows || this.heldChars > this.heldBounds.chars) this.letGo(kind);
  }

  /** Takes row (`value`, `id`) out of a held kind's rows. */
  private dropRow(rows: HeldRows, value: string, id: number): void {
    const at = rows.get(value);
    if (at === undefined) return;
    if (typeof at === "number") {
      if (at !== id) return;
      rows.delete(value);
      this.heldChars -= value.length;
    } else {
      if (!at.delete(id)) return;
      if (at.size === 1) rows.set(value, at.values().next().value!);
    }
    this.heldCount--;
  }

  /** Stops holding a kind's rows (too many: not read again while the object runs). */
  private letGo(kind: string): void {
    if (this.forgetHeld(kind)) this.unheld.add(kind);
  }

  /** Stops holding a kind's rows; whether they were held. */
  private forgetHeld(kind: string): boolean {
    const rows = this.held.get(kind);
    if (rows === undefined) return false;
    this.held.delete(kind);
    this.warming.delete(kind);
    for (const [value, at] of rows) {
      this.heldChars -= value.length;
      this.heldCount -= typeof at === "number" ? 1 : at.size;
    }
    return true;
  }

  /** The rows of one field kind in memory, when held and read whole (see `held`). */
  private heldWhole(kind: string): HeldRows | undefined {
    return this.warming.has(kind) ? undefined : this.held.get(kind);
  }

  /** Starts holding a field kind's rows (see `held`), read by `fillIndex` in slices; nothing when held, or past the bounds before. */
  private warm(kind: string): void {
    if (this.held.has(kind) || this.unheld.has(kind) || !this.paths.some((p) => fieldKind(p) === kind))
      return;
    this.held.set(kind, new Map());
    this.warming.set(kind, null);
  }

  /**
   * Reads at most `rows` more rows of the held kinds still being read (see
   * `warming`), one statement handing them out as two JSON lists, in order
   * of value and id from the last read; returns how many.
   */
  private warmSlice(rows: number): number {
    let done = 0;
    for (const [kind, after] of this.warming) {
      if (done >= rows) break;
      const limit = Math.min(rows - done, VALUE_CHUNK);
      let values: string[];
      let ids: number[];
      try {
        const r = (
          after === null
            ? this.sql.exec<{ v: string; i: string }>(
                "SELECT json_group_array(value) AS v, json_group_array(id) AS i FROM (SELECT value, id FROM running_facts WHERE kind = ?1 ORDER BY value, id LIMIT ?2)",
                kind,
                limit,
              )
            : this.sql.exec<{ v: string; i: string }>(
                "SELECT json_group_array(value) AS v, json_group_array(id) AS i FROM (SELECT value, id FROM running_facts WHERE kind = ?1 AND (value, id) > (?3, ?4) ORDER BY value, id LIMIT ?2)",
                kind,
                limit,
                after[0],
                after[1],
              )
        ).one();
        values = JSON.parse(r.v) as string[];
        ids = JSON.parse(r.i) as number[];
      } catch (e) {
        if (!String(e).includes("SQLITE_TOOBIG")) throw e;
        // values too long for a list: read from SQLite at each change
        this.letGo(kind);
        done += limit;
        continue;
      }
      for (let k = 0; k < values.length && this.held.has(kind); k++) this.holdRow(kind, values[k], ids[k]);
      done += values.length;
      if (!this.held.has(kind)) continue;
      // fewer than asked: every row read (a row written since was held as it was written)
      if (values.length < limit) this.warming.delete(kind);
      else this.warming.set(kind, [values[values.length - 1], ids[ids.length - 1]]);
    }
    return done;
  }

  /** Marks a memo to be dropped by `fillIndex` (its matches may be many: none deleted here; its counts per group, one row a group, go now). */
  private dropMemo(memo: number): void {
    this.memos.delete(memo);
    this.sql.exec("UPDATE running_memos SET dropping = 1 WHERE memo = ?", memo);
    this.sql.exec("DELETE FROM running_memo_groups WHERE memo = ?", memo);
    this.dropping = true;
  }

  /** The kept memos whose matches hold a value of job `id` (its facts indexed). */
  private memosOfJob(id: number): number[] {
    if (this.memos.size === 0) return [];
    return this.sql
      .exec<{ memo: number }>(
        "SELECT DISTINCT r.memo AS memo FROM running_facts f CROSS JOIN running_memos r ON r.kind = f.kind AND r.dropping = 0 CROSS JOIN running_matched m ON m.memo = r.memo AND m.value = f.value WHERE f.id = ?",
        id,
      )
      .toArray()
      .map((r) => r.memo);
  }

  /** Adds `d` to how many of group `grp`'s jobs hold a value memo `memo` matched (a row come to none deleted). */
  private memoCount(memo: number, grp: number, d: number): void {
    if (d === 0) return;
    this.sql.exec(
      "INSERT INTO running_memo_groups (memo, grp, k) VALUES (?, ?, ?) ON CONFLICT (memo, grp) DO UPDATE SET k = k + excluded.k",
      memo,
      grp,
      d,
    );
    if (d < 0)
      this.sql.exec("DELETE FROM running_memo_groups WHERE memo = ? AND grp = ? AND k <= 0", memo, grp);
  }

  /** Job `id` moved from group `from` to group `to`: the memos' counts per group follow it. */
  private memberMoved(id: number, from: number, to: number): void {
    for (const memo of this.memosOfJob(id)) {
      this.memoCount(memo, from, -1);
      this.memoCount(memo, to, 1);
    }
  }

  /** Whether `fillIndex` has the rows of a dropped memo to delete, splits to write to the member rows, or a field's rows to read into memory (see `held`). */
  memosDropping(): boolean {
    return this.dropping || this.pending > 0 || this.warming.size > 0;
  }

  /** The group job `id`, whose member row names `grp`, is in: another when a split of `grp` not yet written takes it (`memos`: the kept memos its values are in, when known). */
  private realGroup(id: number, grp: number, memos?: readonly number[]): number {
    if (this.pending === 0) return grp;
    const p = this.sql
      .exec<{ memo: number; dest: number }>("SELECT memo, dest FROM running_pending WHERE grp = ?", grp)
      .toArray()[0];
    if (p === undefined) return grp;
    const holds =
      memos !== undefined
        ? memos.includes(p.memo)
        : this.sql
            .exec(
              "SELECT 1 FROM running_facts f CROSS JOIN running_matched m ON m.memo = ?2 AND m.value = f.value WHERE f.id = ?1 AND f.kind = ?3 LIMIT 1",
              id,
              p.memo,
              this.memos.get(p.memo)!.kind,
            )
            .toArray().length > 0;
    return holds ? p.dest : grp;
  }

  /**
   * Writes the member rows of the splits not yet written (see
   * `running_pending`) that `which` selects (all when undefined), going
   * through at most `limit` of their jobs (each split's matched values'
   * jobs in order of value and id, from where the last call stopped);
   * returns how many. A split whose rows are all written is forgotten, and
   * its groups with it if they hold no job.
   */
  private settle(
    which?: (p: { grp: number; memo: number; dest: number }) => boolean,
    limit = Infinity,
  ): number {
    if (this.pending === 0) return 0;
    let done = 0;
    for (const p of this.sql
      .exec<{
        grp: number;
        memo: number;
        dest: number;
        after: string | null;
      }>("SELECT grp, memo, dest, after FROM running_pending ORDER BY grp")
      .toArray()) {
      if (done >= limit) break;
      if (which !== undefined && !which(p)) continue;
      const kind = this.memos.get(p.memo)!.kind;
      const left = limit - done;
      let n = 0;
      let last: [string, number] | undefined;
      if (!Number.isFinite(left))
        // all of them (a row already written names another group)
        this.sql.exec(
          "UPDATE running_members SET grp = ?1 WHERE +grp = ?2 AND id IN (SELECT f.id FROM running_matched m CROSS JOIN running_facts f ON f.kind = ?4 AND f.value = m.value WHERE m.memo = ?3)",
          p.dest,
          p.grp,
          p.memo,
          kind,
        );
      else {
        // the next jobs by (value, id) after the cursor, their rows by id (`+grp`: not through the group's index)
        const at = p.after === null ? null : (JSON.parse(p.after) as [string, number]);
        // ordered as the join reads them (the matches by value, the facts by id): no sort, a seek past the cursor
        const pairs =
          "SELECT m.value AS value, f.id AS id FROM running_matched m CROSS JOIN running_facts f ON f.kind = ?2 AND f.value = m.value WHERE m.memo = ?1";
        const next = (
          at === null
            ? this.sql.exec<{ value: string; id: number }>(
                `${pairs} ORDER BY m.value, f.id LIMIT ?3`,
                p.memo,
                kind,
                left,
              )
            : this.sql.exec<{ value: string; id: number }>(
                `${pairs} AND (m.value, f.id) > (?3, ?4) ORDER BY m.value, f.id LIMIT ?5`,
                p.memo,
                kind,
                at[0],
                at[1],
                left,
              )
        ).toArray();
        n = next.length;
        if (n > 0) {
          last = [next[n - 1].value, next[n - 1].id];
          this.sql.exec(
            "UPDATE running_members SET grp = ?1 WHERE +grp = ?2 AND id IN (SELECT value FROM json_each(?3))",
            p.dest,
            p.grp,
            JSON.stringify(next.map((r) => r.id)),
          );
        }
      }
      done += Number.isFinite(left) ? n : 0;
      if (n < left) {
        this.sql.exec("DELETE FROM running_pending WHERE grp = ?", p.grp);
        this.pending--;
        this.forget(p.grp);
        this.forget(p.dest);
      } else this.sql.exec("UPDATE running_pending SET after = ? WHERE grp = ?", JSON.stringify(last), p.grp);
    }
    return done;
  }

  /** `settle` for the splits whose groups (`grp`, `dest`) are among `groups`. */
  private settleGroups(groups: readonly number[]): void {
    if (this.pending === 0 || groups.length === 0) return;
    const set = new Set(groups);
    this.settle((p) => set.has(p.grp) || set.has(p.dest));
  }

  /** `settle` for the splits one of whose groups counts jobs under one of `rules`. */
  private settleRules(rules: ReadonlySet<string | null>): void {
    if (this.pending === 0) return;
    const ruleOf = (grp: number) =>
      this.sql
        .exec<{ rule: string | null }>("SELECT rule FROM running_groups WHERE grp = ?", grp)
        .toArray()[0];
    this.settle((p) =>
      [ruleOf(p.grp), ruleOf(p.dest)].some((g) => g !== undefined && rules.has(g.rule ?? null)),
    );
  }

  /** Deletes at most `rows` rows of the memos being dropped, a memo's own row once it has none; returns how many. */
  private dropMemoRows(rows: number): number {
    let done = 0;
    while (this.dropping && done < rows) {
      const next = this.sql
        .exec<{ memo: number }>("SELECT memo FROM running_memos WHERE dropping = 1 LIMIT 1")
        .toArray()[0];
      if (next === undefined) {
        this.dropping = false;
        break;
      }
      const left = rows - done;
      const n = this.sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM (SELECT 1 FROM running_matched WHERE memo = ? LIMIT ?)",
          next.memo,
          left,
        )
        .one().n;
      this.sql.exec(
        "DELETE FROM running_matched WHERE memo = ?1 AND value IN (SELECT value FROM running_matched WHERE memo = ?1 LIMIT ?2)",
        next.memo,
        left,
      );
      done += n;
      // fewer than asked: none left
      if (n < left) this.sql.exec("DELETE FROM running_memos WHERE memo = ?", next.memo);
    }
    return done;
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
    // a path no longer indexed: its kept matches would miss the values of jobs started from now on (the splits
    // naming one written first)
    for (const [memo, m] of this.memos)
      if (!this.paths.some((p) => fieldKind(p) === m.kind)) {
        this.settle((p) => p.memo === memo);
        this.dropMemo(memo);
      }
    // rows of a path no longer indexed are not read through: not held either
    for (const kind of this.held.keys())
      if (!this.paths.some((p) => fieldKind(p) === kind)) this.forgetHeld(kind);
    const kept = (this.filling?.paths ?? []).filter((p) => paths.includes(p));
    if (added.length > 0 && this.sql.exec("SELECT 1 FROM running_members LIMIT 1").toArray().length > 0)
      this.setFilling({ paths: [...kept, ...added], after: null });
    else this.setFilling(kept.length === 0 ? undefined : { paths: kept, after: this.filling!.after });
  }

  /** Where the `op` presence rows' filling stands (see `opAfter`); undefined: done, recorded as such. */
  private setOpAfter(after: number | null | undefined): void {
    this.opAfter = after;
    this.saveFillCursor(OP_PRESENCE_AFTER, OP_PRESENCE, after);
  }

  /** Where the filling of `running_facts` for counts saved before it stands (see `factsAfter`); undefined: done, recorded as such. */
  private setFactsAfter(after: number | null | undefined): void {
    this.factsAfter = after;
    this.saveFillCursor(FACTS_AFTER, FACTS_INDEXED, after);
  }

  /** Stores a fill's last id read under `cursorKey`, or, when it is done (undefined), drops the cursor and sets `doneKey`. */
  private saveFillCursor(cursorKey: string, doneKey: string, after: number | null | undefined): void {
    if (after === undefined) {
      this.sql.exec("DELETE FROM meta WHERE key = ?", cursorKey);
      this.setMeta(doneKey, "1");
    } else this.setMeta(cursorKey, JSON.stringify(after));
  }

  /** Whether `running_facts` does not yet hold every counted job (counts saved before it, being filled by `fillIndex`): no fact is read through it until it does. */
  factsFilling(): boolean {
    return this.factsAfter !== undefined;
  }

  /** Whether the `op` rows do not yet hold the presence key for every counted job (a co-reach by `OP_ID` is then not read through). */
  presenceFilling(): boolean {
    return this.opAfter !== undefined;
  }

  private setFilling(filling: { paths: string[]; after: number | null } | undefined): void {
    this.filling = filling;
    if (filling === undefined) this.sql.exec("DELETE FROM meta WHERE key = ?", FILLING_PATHS);
    else this.setMeta(FILLING_PATHS, JSON.stringify(filling));
  }

  /**
   * Reads the next counted jobs by id after the last one read (each job's
   * JSON parsed once), for every fact of theirs first while `running_facts`
   * fills for counts saved before it, then for the `op` presence rows while
   * they fill, then for the filling paths, at most `jobs` in all; rows
   * already there are kept (`INSERT OR IGNORE`). The slice's rest writes
   * unwritten splits, deletes dropped memos' rows, then reads held rows into
   * memory (`HELD_ROWS_PER_JOB` for a job).
   */
  fillIndex(jobs: number): number {
    let read = 0;
    if (this.factsAfter !== undefined && jobs > 0) {
      const rows = this.countedJobsAfter(this.factsAfter, jobs);
      // the paths listed now (a path added since fills from the first job on by `fillPaths`)
      for (const r of rows) this.putFacts(r.id, parseExactJson(r.job) as unknown as Job);
      // fewer than asked: every counted job is read (a job counted since was indexed as it started)
      this.setFactsAfter(rows.length < jobs ? undefined : rows[rows.length - 1].id);
      read = rows.length;
    }
    if (this.opAfter !== undefined && jobs - read > 0) {
      const rows = this.countedJobsAfter(this.opAfter, jobs - read);
      for (const r of rows) {
        const job = parseExactJson(r.job) as unknown as Job;
        for (const [kind, value] of factsOf(job, [], true))
          if (kind === "op" && value === NO_KEY)
            this.sql.exec(
              "INSERT OR IGNORE INTO running_facts (kind, value, id) VALUES ('op', ?, ?)",
              value,
              r.id,
            );
      }
      // fewer than asked: every counted job is read (a job counted since was indexed as it started)
      this.setOpAfter(rows.length < jobs - read ? undefined : rows[rows.length - 1].id);
      read += rows.length;
    }
    read += this.fillPaths(jobs - read);
    // the slice's rest (a row for a job) writes the splits not yet written, then deletes the rows of memos dropped
    if (jobs - read > 0) read += this.settle(undefined, jobs - read);
    read += this.dropMemoRows(jobs - read);
    // then reads held rows into memory (a row handed out in a list costs far less than a job read)
    if (jobs - read > 0)
      read += Math.ceil(this.warmSlice((jobs - read) * HELD_ROWS_PER_JOB) / HELD_ROWS_PER_JOB);
    return read;
  }

  /** The next `limit` counted jobs by id after `after` (from the first when null), with their JSON. */
  private countedJobsAfter(after: number | null, limit: number): { id: number; job: string }[] {
    return this.sql
      .exec<{ id: number; job: string }>(
        "SELECT s.id AS id, j.job AS job FROM running_members s JOIN jobs j ON j.id = s.id WHERE s.id > ? ORDER BY s.id LIMIT ?",
        after ?? Number.MIN_SAFE_INTEGER,
        limit,
      )
      .toArray();
  }

  /** `fillIndex` for the filling paths. */
  private fillPaths(jobs: number): number {
    const filling = this.filling;
    if (filling === undefined || jobs <= 0) return 0;
    const rows = this.countedJobsAfter(filling.after, jobs);
    for (const r of rows) {
      const job = parseExactJson(r.job) as unknown as Job;
      for (const path of filling.paths)
        for (const value of new Set(valuesAt(job, path, true))) this.putFact(fieldKind(path), value, r.id);
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
        "SELECT gen, was, sum(n) AS n FROM running_groups WHERE rule = ? AND gen IS NOT NULL GROUP BY gen, was",
        rule,
      )
      .toArray();
  }

  /** The groups' rows: no row per job. */
  moveRemembered(rule: string, gen: number, was: string | null, to: string | null, now: number): number {
    const n = this.sql
      .exec<{ n: number }>(
        "SELECT coalesce(sum(n), 0) AS n FROM running_groups WHERE rule = ? AND gen = ? AND was IS ?",
        rule,
        gen,
        was,
      )
      .one().n;
    this.sql.exec(
      "UPDATE running_groups SET rule = ?, gen = ?, was = ? WHERE rule = ? AND gen = ? AND was IS ?",
      to,
      now,
      rule,
      rule,
      gen,
      was,
    );
    this.fresh.clear();
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
    if (this.pending > 0) {
      // a split not yet written may have taken it to another group
      const member = this.sql
        .exec<{ grp: number; buckets: string }>("SELECT grp, buckets FROM running_members WHERE id = ?", id)
        .toArray()[0];
      if (member === undefined) return undefined;
      const g = this.sql
        .exec<Raw>("SELECT rule, gen, was FROM running_groups WHERE grp = ?", this.realGroup(id, member.grp))
        .one();
      return shareOf({ ...g, buckets: member.buckets });
    }
    const rows = this.sql
      .exec<Raw>(
        "SELECT g.rule AS rule, s.buckets AS buckets, g.gen AS gen, g.was AS was FROM running_members s JOIN running_groups g ON g.grp = s.grp WHERE s.id = ?",
        id,
      )
      .toArray();
    return rows[0] === undefined ? undefined : shareOf(rows[0]);
  }

  /** A new group, `n` jobs under `rule` remembering (`gen`, `was`); its number. */
  private newGroup(rule: string | null, gen: number | null, was: string | null, n: number): number {
    return this.sql
      .exec<{ grp: number }>(
        "INSERT INTO running_groups (rule, gen, was, n) VALUES (?, ?, ?, ?) RETURNING grp",
        rule,
        gen,
        was,
        n,
      )
      .one().grp;
  }

  /** Gives group `grp` as a whole to `rule` under counting generation `gen`, having come from rule `was`. */
  private relabel(grp: number, rule: string | null, gen: number | null, was: string | null): void {
    this.sql.exec("UPDATE running_groups SET rule = ?, gen = ?, was = ? WHERE grp = ?", rule, gen, was, grp);
  }

  /** Takes `k` jobs out of group `grp`'s count, forgetting the group when none is left. */
  private leave(grp: number, k: number): void {
    this.sql.exec("UPDATE running_groups SET n = n - ? WHERE grp = ?", k, grp);
    this.forget(grp);
  }

  /** Forgets group `grp` when it holds no job, unless a split not yet written names it (its number is not to be taken again while member rows may name it). */
  private forget(grp: number): void {
    this.sql.exec(
      "DELETE FROM running_groups WHERE grp = ?1 AND n <= 0 AND NOT EXISTS (SELECT 1 FROM running_pending WHERE grp = ?1 OR dest = ?1)",
      grp,
    );
  }

  /** A new job goes in a group of its rule's jobs that remember nothing (one kept at hand per rule, made when there is none). */
  putShare(id: number, share: Share, job: Job): void {
    this.deleteShare(id);
    const matched = new Set<number>();
    this.putFacts(id, job, matched);
    let grp = this.fresh.get(share.rule);
    if (grp === undefined) {
      const rows = this.sql
        .exec<{ grp: number }>(
          "SELECT grp FROM running_groups g WHERE rule IS ? AND gen IS NULL AND NOT EXISTS (SELECT 1 FROM running_pending p WHERE p.grp = g.grp) LIMIT 1",
          share.rule,
        )
        .toArray();
      grp = rows.length > 0 ? rows[0].grp : this.newGroup(share.rule, null, null, 0);
      this.fresh.set(share.rule, grp);
    }
    this.sql.exec("UPDATE running_groups SET n = n + 1 WHERE grp = ?", grp);
    this.sql.exec(
      "INSERT INTO running_members (id, grp, buckets) VALUES (?, ?, ?)",
      id,
      grp,
      bucketsText(share.buckets),
    );
    for (const memo of matched) this.memoCount(memo, grp, 1);
  }

  /**
   * A group every job of which moves to one rule has its row changed (no
   * row per job); the other moved jobs go to a new group per (rule, earlier
   * rule), each member's row pointed at it.
   */
  moveShares(
    moved: readonly Holder[],
    rules: readonly (string | null)[],
    gen: number,
    was: readonly (string | null)[],
  ): void {
    if (moved.length === 0) return;
    this.fresh.clear();
    // per group: the moves out of it, by the rule each goes to
    const byGroup = new Map<number, Map<string | null, number[]>>();
    for (let i = 0; i < moved.length; i++) {
      const grp = (moved[i] as GroupHolder).grp;
      let tos = byGroup.get(grp);
      if (tos === undefined) byGroup.set(grp, (tos = new Map()));
      let at = tos.get(rules[i]);
      if (at === undefined) tos.set(rules[i], (at = []));
      at.push(i);
    }
    const made = new Map<string, number>();
    for (const [grp, tos] of byGroup) {
      const n = this.sql.exec<{ n: number }>("SELECT n FROM running_groups WHERE grp = ?", grp).one().n;
      if (tos.size === 1) {
        const [[to, at]] = tos;
        if (at.length === n) {
          this.relabel(grp, to, gen, was[at[0]]);
          continue;
        }
      }
      let out = 0;
      for (const [to, at] of tos) {
        const key = JSON.stringify([to, was[at[0]]]);
        let into = made.get(key);
        if (into === undefined) made.set(key, (into = this.newGroup(to, gen, was[at[0]], 0)));
        this.sql.exec("UPDATE running_groups SET n = n + ? WHERE grp = ?", at.length, into);
        for (const i of at) {
          this.sql.exec("UPDATE running_members SET grp = ? WHERE id = ?", into, moved[i].id);
          this.memberMoved(moved[i].id, grp, into);
        }
        out += at.length;
      }
      this.leave(grp, out);
    }
  }

  deleteShare(id: number): void {
    const rows = this.sql.exec<{ grp: number }>("SELECT grp FROM running_members WHERE id = ?", id).toArray();
    if (rows.length === 0) return;
    const memos = this.memosOfJob(id);
    // a split not yet written may have taken it to another group
    const grp = this.realGroup(id, rows[0].grp, memos);
    for (const memo of memos) this.memoCount(memo, grp, -1);
    this.sql.exec("DELETE FROM running_members WHERE id = ?", id);
    this.leave(grp, 1);
    if (this.fresh.size > 0) for (const [rule, g] of this.fresh) if (g === grp) this.fresh.delete(rule);
    this.deleteFacts(id, memos);
  }

  /**
   * The jobs under `rules` with a fact of `co` are found through the fact
   * index and taken out of their groups into groups of their own (the same
   * rule and earlier rule), then handed to `read`; every other group under
   * `rules` is counted, and moved to `onto` by its row when `move` is
   * called. Declines as `MemoryShares.eachBeside` does (when the jobs with a
   * fact of `co` are more than half of those under `rules`).
   */
  moveBeside(
    rules: ReadonlySet<string | null>,
    co: readonly FactReach[],
    read: (h: Holder) => void,
    onto: string,
  ): { readonly from: ReadonlyMap<string | null, number>; move(gen: number): void } | undefined {
    // member rows read and moved: every split written first
    this.settle();
    let held = 0;
    for (const rule of rules)
      held += this.sql
        .exec<{ n: number }>("SELECT coalesce(sum(n), 0) AS n FROM running_groups WHERE rule IS ?", rule)
        .one().n;
    // the jobs with a fact of `co`, counted before any is read (a job with two such facts counted twice)
    const wanted: [string, string[]][] = [];
    let bound = 0;
    for (const { kind, values } of co) {
      if (values.finite !== null) {
        for (const v of values.finite)
          if (bound * 2 <= held)
            bound += this.sql
              // counted no further than past half of the jobs under `rules`
              .exec<{ n: number }>(
                "SELECT count(*) AS n FROM (SELECT 1 FROM running_facts WHERE kind = ? AND value = ? LIMIT ?)",
                kind,
                v,
                held - bound + 1,
              )
              .one().n;
        wanted.push([kind, [...values.finite]]);
      } else {
        // a value test runs once on each distinct value held
        const vs: string[] = [];
        for (const r of this.sql.exec<{ value: string; n: number }>(
          "SELECT value, count(*) AS n FROM running_facts WHERE kind = ? GROUP BY value",
          kind,
        ))
          if (values.has(r.value)) {
            vs.push(r.value);
            bound += r.n;
          }
        wanted.push([kind, vs]);
      }
      if (bound * 2 > held) return undefined;
    }
    const inside = new Map<number, Raw>();
    const byValue = byFact(true);
    for (const [kind, vs] of wanted)
      for (const v of vs)
        for (const r of this.sql.exec<Raw>(byValue, kind, v))
          if (rules.has((r.rule as string | null) ?? null)) inside.set(r.id as number, r);
    this.fresh.clear();
    // the jobs read, out of their groups: a group all of whose jobs are read stays as it is
    const byGroup = new Map<number, Raw[]>();
    for (const r of inside.values()) {
      const grp = r.grp as number;
      const rows = byGroup.get(grp);
      if (rows === undefined) byGroup.set(grp, [r]);
      else rows.push(r);
    }
    const stays = new Set<number>();
    for (const [grp, rows] of byGroup) {
      const n = this.sql.exec<{ n: number }>("SELECT n FROM running_groups WHERE grp = ?", grp).one().n;
      if (rows.length === n) {
        stays.add(grp);
        continue;
      }
      const r0 = rows[0];
      const into = this.newGroup(
        (r0.rule as string | null) ?? null,
        (r0.gen as number | null) ?? null,
        (r0.was as string | null) ?? null,
        rows.length,
      );
      stays.add(into);
      for (const r of rows) {
        this.sql.exec("UPDATE running_members SET grp = ? WHERE id = ?", into, r.id);
        this.memberMoved(r.id as number, grp, into);
        r.grp = into;
      }
      this.leave(grp, rows.length);
    }
    const from = new Map<string | null, number>();
    const groups: { grp: number; rule: string | null }[] = [];
    for (const rule of rules)
      for (const g of this.sql
        .exec<{ grp: number; n: number }>("SELECT grp, n FROM running_groups WHERE rule IS ?", rule)
        .toArray()) {
        if (stays.has(g.grp) || g.n === 0) continue;
        groups.push({ grp: g.grp, rule });
        from.set(rule, (from.get(rule) ?? 0) + g.n);
      }
    for (const r of inside.values()) read(this.holder(r, true));
    const move = (gen: number) => {
      this.fresh.clear();
      for (const { grp, rule } of groups) this.relabel(grp, onto, gen, rule);
    };
    return { from, move };
  }

  /**
   * Counted per group in one statement through the fact index (a job with
   * two of the facts once), no job read; `move` changes the row of a group
   * all of whose jobs move, else puts the moved jobs of each earlier rule in
   * a new group by one statement (their member rows, in SQLite). A regex's
   * values (`ValueSet.regex`) are those its kept matches hold (`running_matched`,
   * kept up to date as jobs start and end): the first change to a pattern
   * tests each distinct value held once and keeps those it matches, and a
   * later one tests none.
   */
  moveByFact(
    rules: ReadonlySet<string | null>,
    by: FactReach,
    onto: string,
  ): { readonly from: ReadonlyMap<string | null, number>; move(gen: number): void } {
    let withFact: string;
    let params: SqlStorageValue[];
    let counted: string;
    let countParams: SqlStorageValue[];
    // the kept memo whose matches are the moved jobs' values, if any (every job it counts in a group moves)
    let driving: number | undefined;
    if (by.values.finite === null && by.values.regex !== undefined && by.kind.startsWith("field:")) {
      const memo = this.memoOf(by.kind, by.values.regex, by.values.has);
      driving = memo;
      withFact =
        "SELECT f.id FROM running_matched m CROSS JOIN running_facts f ON f.kind = ? AND f.value = m.value WHERE m.memo = ?";
      params = [by.kind, memo];
      // the memo's counts per group: one row a group, no job
      counted =
        "SELECT mg.grp AS grp, g.rule AS rule, mg.k AS k FROM running_memo_groups mg CROSS JOIN running_groups g ON g.grp = mg.grp WHERE mg.memo = ?";
      countParams = [memo];
    } else {
      // counted and moved by member rows: every split written first
      this.settle();
      withFact = "SELECT id FROM running_facts WHERE kind = ? AND value IN (SELECT value FROM json_each(?))";
      params = [
        by.kind,
        JSON.stringify(
          by.values.finite !== null
            ? [...by.values.finite]
            : // a few OP_IDs, one index step each; a field's many values in lists
              (by.kind === "op" ? this.distinctValues(by.kind) : this.valuesOf(by.kind)).filter((v) =>
                by.values.has(v),
              ),
        ),
      ];
      counted = `SELECT s.grp AS grp, g.rule AS rule, count(*) AS k FROM running_members s CROSS JOIN running_groups g ON g.grp = s.grp WHERE s.id IN (${withFact}) GROUP BY s.grp`;
      countParams = params;
    }
    const from = new Map<string | null, number>();
    const groups: { grp: number; rule: string | null; k: number }[] = [];
    // every job holding a fact of `by`, whatever its rule (how many ids `withFact` gives)
    let holding = 0;
    for (const g of this.sql.exec<{ grp: number; rule: string | null; k: number }>(counted, ...countParams)) {
      holding += g.k;
      const rule = g.rule ?? null;
      if (!rules.has(rule)) continue;
      groups.push({ grp: g.grp, rule, k: g.k });
      from.set(rule, (from.get(rule) ?? 0) + g.k);
    }
    const move = (gen: number) => {
      this.fresh.clear();
      // the groups' counts now (a job of one the change moved otherwise has left it): a group all of whose jobs
      // move changes its row, the others' moved jobs go apart
      const sizes = groups.map(
        ({ grp }) => this.sql.exec<{ n: number }>("SELECT n FROM running_groups WHERE grp = ?", grp).one().n,
      );
      const whole = groups.map(({ k }, i) => k === sizes[i]);
      const split = groups.filter((_, i) => !whole[i]).map((g) => g.grp);
      // a group split again: its earlier split written first (its member rows are read below)
      this.settleGroups(split);
      // the kept memos' counts of the jobs going apart, per group, in one pass over the moved jobs; only for the
      // memos counting a job in a group split (the driving memo counts every moved job: its counts move whole)
      const apart = new Map<number, { memo: number; k: number }[]>();
      const others =
        this.memos.size === 0 || split.length === 0
          ? []
          : this.sql
              .exec<{ memo: number }>(
                "SELECT DISTINCT memo FROM running_memo_groups WHERE grp IN (SELECT value FROM json_each(?)) AND memo IS NOT ?",
                JSON.stringify(split),
                driving ?? null,
              )
              .toArray()
              .map((r) => r.memo)
              .filter((m) => this.memos.has(m));
      if (others.length > 0)
        for (const c of this.sql.exec<{ memo: number; grp: number; k: number }>(
          `SELECT r.memo AS memo, s.grp AS grp, count(DISTINCT s.id) AS k FROM running_members s CROSS JOIN running_facts f ON f.id = s.id CROSS JOIN running_memos r ON r.kind = f.kind AND r.dropping = 0 AND r.memo IN (SELECT value FROM json_each(?)) CROSS JOIN running_matched m ON m.memo = r.memo AND m.value = f.value WHERE s.id IN (${withFact}) GROUP BY r.memo, s.grp`,
          JSON.stringify(others),
          ...params,
        )) {
          const at = apart.get(c.grp);
          if (at === undefined) apart.set(c.grp, [{ memo: c.memo, k: c.k }]);
          else at.push({ memo: c.memo, k: c.k });
        }
      const made = new Map<string | null, number>();
      // per group split, the group its moved jobs go to
      const into = new Map<number, number>();
      groups.forEach(({ grp, rule, k }, i) => {
        if (whole[i]) {
          this.relabel(grp, onto, gen, rule);
          return;
        }
        let to = made.get(rule);
        if (to === undefined) made.set(rule, (to = this.newGroup(onto, gen, rule, 0)));
        into.set(grp, to);
        this.sql.exec("UPDATE running_groups SET n = n + ? WHERE grp = ?", k, to);
        if (driving !== undefined) {
          this.memoCount(driving, grp, -k);
          this.memoCount(driving, to, k);
        }
        for (const c of apart.get(grp) ?? []) {
          this.memoCount(c.memo, grp, -c.k);
          this.memoCount(c.memo, to, c.k);
        }
        this.leave(grp, k);
      });
      if (into.size === 0) return;
      if (driving !== undefined) {
        // the split recorded, not written: a job whose row names the group and that holds a value the memo
        // matched is in the new group (the memo is kept while a split names it); `fillIndex` writes the rows
        for (const [grp, to] of into)
          this.sql.exec("INSERT INTO running_pending (grp, memo, dest) VALUES (?, ?, ?)", grp, driving, to);
        this.pending += into.size;
        return;
      }
      // the moved jobs' member rows in one statement: through the groups' index when their jobs are fewer than the
      // ids the facts give, else id by id (`+grp`: not by the group's index, whose every job would be tested)
      const splitJobs = groups.reduce((sum, g, i) => (whole[i] ? sum : sum + sizes[i]), 0);
      const target = JSON.stringify(Object.fromEntries([...into].map(([g, t]) => [`g${g}`, t])));
      this.sql.exec(
        `UPDATE running_members SET grp = json_extract(?1, '$.g' || grp) WHERE ${splitJobs <= holding ? "" : "+"}grp IN (SELECT value FROM json_each(?2)) AND id IN (${withFact})`,
        target,
        JSON.stringify([...into.keys()]),
        ...params,
      );
    };
    return { from, move };
  }

  /**
   * The memo of a regex's matches among the values of `kind` (see
   * `running_memos`): kept, or made by testing each distinct value held
   * once (`has`), the least recently used beyond `MAX_MEMOS` then dropped.
   */
  private memoOf(kind: string, pattern: string, has: (v: string) => boolean): number {
    const used =
      (this.sql.exec<{ u: number | null }>("SELECT max(used) AS u FROM running_memos").one().u ?? 0) + 1;
    for (const [memo, m] of this.memos)
      if (m.kind === kind && m.pattern === pattern) {
        this.sql.exec("UPDATE running_memos SET used = ? WHERE memo = ?", used, memo);
        return memo;
      }
    const memo = this.sql
      .exec<{ memo: number }>(
        "INSERT INTO running_memos (kind, pattern, used) VALUES (?, ?, ?) RETURNING memo",
        kind,
        pattern,
        used,
      )
      .one().memo;
    this.memos.set(memo, { kind, pattern, test: has });
    // a value without the text every match holds is not tested
    const literal = requiredLiteral(pattern);
    const rows = this.heldWhole(kind);
    // not held yet: read whole by the alarm for the next new regex on this field
    if (rows === undefined) this.warm(kind);
    let matched: string[];
    // the jobs holding a matched value (each once), when the kind's rows are held
    let holders: Set<number> | undefined;
    // or their count per group, when read with their rows from SQLite (see `matchedRows`)
    let per: Map<number, number> | undefined;
    if (rows !== undefined) {
      matched = [];
      holders = new Set();
      // `forEach`: no entry pair made per value
      const ids = holders;
      rows.forEach((at, value) => {
        if ((literal !== null && !value.includes(literal)) || !has(value)) return;
        matched.push(value);
        if (typeof at === "number") ids.add(at);
        else for (const id of at) ids.add(id);
      });
    } else {
      const found = this.matchedRows(kind, pattern, literal, has);
      if (found !== undefined) ({ matched, per } = found);
      else matched = this.valuesOf(kind, literal).filter(has);
    }
    // in lists that fit in one SQLite string
    for (let i = 0; i < matched.length;) {
      const list: string[] = [];
      let chars = 0;
      while (i < matched.length && (list.length === 0 || chars + matched[i].length < LIST_CHARS)) {
        chars += matched[i].length + 8;
        list.push(matched[i++]);
      }
      this.sql.exec(
        "INSERT OR IGNORE INTO running_matched (memo, value) SELECT ?, value FROM json_each(?)",
        memo,
        JSON.stringify(list),
      );
    }
    // its jobs counted per group once (a job holding two matched values once), by member rows: every split written first
    this.settle();
    if (per !== undefined) this.putMemoGroups(memo, per);
    else if (holders === undefined)
      this.sql.exec(
        "INSERT INTO running_memo_groups (memo, grp, k) SELECT ?1, s.grp, count(*) FROM running_members s WHERE s.id IN (SELECT f.id FROM running_matched m CROSS JOIN running_facts f ON f.kind = ?2 AND f.value = m.value WHERE m.memo = ?1) GROUP BY s.grp",
        memo,
        kind,
      );
    else {
      // the holders' groups read by id in order (the member rows' pages in turn), `VALUE_CHUNK` at a time, and
      // counted here (no sort in SQLite)
      const per = new Map<number, number>();
      const ids = Float64Array.from(holders).sort();
      for (let i = 0; i < ids.length; i += VALUE_CHUNK)
        for (const grp of JSON.parse(
          this.sql
            .exec<{ g: string }>(
              "SELECT json_group_array(s.grp) AS g FROM json_each(?) j CROSS JOIN running_members s ON s.id = j.value",
              JSON.stringify(Array.from(ids.subarray(i, i + VALUE_CHUNK))),
            )
            .one().g,
        ) as number[])
          per.set(grp, (per.get(grp) ?? 0) + 1);
      this.putMemoGroups(memo, per);
    }
    if (this.memos.size > MAX_MEMOS) {
      const oldest = this.sql
        .exec<{ memo: number }>(
          // not one a split not yet written names (kept beyond the 4 until it is written)
          "SELECT memo FROM running_memos r WHERE dropping = 0 AND NOT EXISTS (SELECT 1 FROM running_pending p WHERE p.memo = r.memo) ORDER BY used LIMIT ?",
          this.memos.size - MAX_MEMOS,
        )
        .toArray();
      for (const o of oldest) this.dropMemo(o.memo);
    }
    return memo;
  }

  /** A new memo's counts per group (`running_memo_groups`), in one statement. */
  private putMemoGroups(memo: number, per: ReadonlyMap<number, number>): void {
    if (per.size > 0)
      this.sql.exec(
        "INSERT INTO running_memo_groups (memo, grp, k) SELECT ?, value ->> 0, value ->> 1 FROM json_each(?)",
        memo,
        JSON.stringify([...per]),
      );
  }

  /**
   * A new memo's matched values and their jobs' count per group, read from
   * SQLite when the kind's rows are not held (see `held`): only the rows
   * whose value SQLite finds the pattern's required run of characters in
   * (one of `requiredGlob`'s, and its required literal, by `instr`) or that are not
   * ASCII, with their job's group, `VALUE_CHUNK` at a time as JSON lists in
   * order of (value, id), the regex run in JS on each distinct value of those,
   * and a job holding two matched values counted once. Every split is written
   * first (the groups are read from the member rows). Undefined when the
   * pattern has no such run, or a list does not fit in a SQLite string (the
   * caller reads the values instead).
   */
  private matchedRows(
    kind: string,
    pattern: string,
    literal: string | null,
    has: (v: string) => boolean,
  ): { matched: string[]; per: Map<number, number> } | undefined {
    const texts = requiredGlob(pattern);
    if (texts === null) return undefined;
    // a string's index key is its text after a marker (`valueKey`): an anchored GLOB holds it first
    const globs = texts.map((t) => (t.startsWith("*") ? t : `${valueKey("")}${t}`));
    this.settle();
    // ?1 the kind, ?2 how many, ?3 the literal, then the GLOBs, then the last row read
    const at = globs.map((_, k) => `?${4 + k}`);
    const where = `f.kind = ?1 AND (?3 IS NULL OR instr(f.value, ?3) > 0) AND ${globAdmits("f.value", at)}`;
    const select = (after: string) =>
      `SELECT json_group_array(value) AS v, json_group_array(id) AS i, json_group_array(grp) AS g FROM (SELECT f.value AS value, f.id AS id, s.grp AS grp FROM running_facts f CROSS JOIN running_members s ON s.id = f.id WHERE ${where}${after} ORDER BY f.value, f.id LIMIT ?2)`;
    const first = select("");
    const next = select(` AND (f.value, f.id) > (?${4 + globs.length}, ?${5 + globs.length})`);
    const matched: string[] = [];
    const per = new Map<number, number>();
    const counted = new Set<number>();
    let after: [string, number] | undefined;
    for (;;) {
      let values: string[];
      let ids: number[];
      let groups: number[];
      try {
        const r = (
          after === undefined
            ? this.sql.exec<{ v: string; i: string; g: string }>(first, kind, VALUE_CHUNK, literal, ...globs)
            : this.sql.exec<{ v: string; i: string; g: string }>(
                next,
                kind,
                VALUE_CHUNK,
                literal,
                ...globs,
                after[0],
                after[1],
              )
        ).one();
        values = JSON.parse(r.v) as string[];
        ids = JSON.parse(r.i) as number[];
        groups = JSON.parse(r.g) as number[];
      } catch (e) {
        if (!String(e).includes("SQLITE_TOOBIG")) throw e;
        return undefined;
      }
      // in order of value: the regex runs once on each distinct one
      let last: string | undefined;
      let hit = false;
      for (let k = 0; k < values.length; k++) {
        const value = values[k];
        if (value !== last) {
          last = value;
          hit = has(value);
          // a value may continue from the list before (the same value, later ids)
          if (hit && matched[matched.length - 1] !== value) matched.push(value);
        }
        if (!hit || counted.has(ids[k])) continue;
        counted.add(ids[k]);
        per.set(groups[k], (per.get(groups[k]) ?? 0) + 1);
      }
      if (values.length < VALUE_CHUNK) return { matched, per };
      after = [values[values.length - 1], ids[ids.length - 1]];
    }
  }

  /**
   * The distinct values of one kind of fact, in order, handed to JS a JSON
   * list of up to `VALUE_CHUNK` at a time (a row each costs several times
   * more); a list too long for one SQLite string is asked for again shorter.
   * With `holding`, only the values that contain it (`instr`, in SQLite: a
   * value without a regex's required literal is never handed out).
   */
  private valuesOf(kind: string, holding?: string | null): string[] {
    const rows = this.heldWhole(kind);
    if (rows !== undefined) {
      const out: string[] = [];
      for (const value of rows.keys())
        if (holding === undefined || holding === null || value.includes(holding)) out.push(value);
      return out;
    }
    const out: string[] = [];
    const within = holding === undefined || holding === null ? "" : " AND instr(value, ?3) > 0";
    const extra: SqlStorageValue[] = within === "" ? [] : [holding!];
    const first = `SELECT json_group_array(value) AS v FROM (SELECT DISTINCT value FROM running_facts WHERE kind = ?1${within} ORDER BY value LIMIT ?2)`;
    const next = `SELECT json_group_array(value) AS v FROM (SELECT DISTINCT value FROM running_facts WHERE kind = ?1 AND value > ?4${within} ORDER BY value LIMIT ?2)`;
    let chunk = VALUE_CHUNK;
    let after: string | undefined;
    for (;;) {
      let list: string[];
      const asked = chunk;
      if (asked === 1)
        // a value too long for a list of its own: its row
        list = (
          after === undefined
            ? this.sql.exec<{ value: string }>(
                `SELECT value FROM running_facts WHERE kind = ?1${within} ORDER BY value LIMIT ?2`,
                kind,
                1,
                ...extra,
              )
            : this.sql.exec<{ value: string }>(
                `SELECT value FROM running_facts WHERE kind = ?1 AND value > ?4${within} ORDER BY value LIMIT ?2`,
                kind,
                1,
                extra[0] ?? null,
                after,
              )
        )
          .toArray()
          .map((r) => r.value);
      else
        try {
          const text = (
            after === undefined
              ? this.sql.exec<{ v: string }>(first, kind, asked, ...extra)
              : this.sql.exec<{ v: string }>(next, kind, asked, extra[0] ?? null, after)
          ).one().v;
          list = JSON.parse(text) as string[];
        } catch (e) {
          if (!String(e).includes("SQLITE_TOOBIG")) throw e;
          chunk = Math.ceil(asked / 16);
          continue;
        }
      for (const v of list) out.push(v);
      if (list.length < asked) return out;
      after = list[list.length - 1];
      chunk = Math.min(VALUE_CHUNK, asked * 4);
    }
  }

  /** The distinct values of one kind of fact, one index step each (not a pass over its rows: a kind holds one row per job or more). */
  private distinctValues(kind: string): string[] {
    const step = "SELECT value FROM running_facts WHERE kind = ? AND value > ? ORDER BY value LIMIT 1";
    // the empty string, below every other value, looked up first
    const out = this.sql
      .exec<{ value: string }>("SELECT value FROM running_facts WHERE kind = ? AND value = '' LIMIT 1", kind)
      .toArray()
      .map((r) => r.value);
    for (let after = ""; ;) {
      const next = this.sql.exec<{ value: string }>(step, kind, after).toArray();
      if (next.length === 0) return out;
      out.push((after = next[0].value));
    }
  }

  eachHolder(rules: ReadonlySet<string | null>, withJobs: boolean, visit: (h: Holder) => void): void {
    // read by member rows: the splits of these rules' groups written first (all, when every member is read)
    if (rules.size > RULES_PER_LOOKUP) this.settle();
    else this.settleRules(rules);
    for (const h of this.holders(rules, withJobs)) visit(h);
  }

  eachReached(reached: Reached, withJobs: boolean, visit: (h: Holder) => void): void {
    // a split not yet written: each row read joined to the group its job is in (no row written here)
    const pending = this.pending > 0;
    const seen = new Set<number>();
    const each = (rows: Iterable<Raw>) => {
      for (const r of rows) {
        const id = r.id as number;
        if (seen.has(id)) continue;
        seen.add(id);
        visit(this.holder(r, withJobs));
      }
    };
    const select = byId(withJobs, pending);
    for (const [lo, hi] of reached.ids) {
      // the primary key's range; an open end is no bound
      if (lo === -Infinity && hi === Infinity) each(this.sql.exec<Raw>(select).toArray());
      else if (lo === -Infinity) each(this.sql.exec<Raw>(`${select} WHERE s.id <= ?`, hi).toArray());
      else if (hi === Infinity) each(this.sql.exec<Raw>(`${select} WHERE s.id >= ?`, lo).toArray());
      else each(this.sql.exec<Raw>(`${select} WHERE s.id >= ? AND s.id <= ?`, lo, hi).toArray());
    }
    const byValue = byFact(withJobs, pending);
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
      const wanted = values.finite ?? this.valuesOf(kind).filter((v) => values.has(v));
      for (const v of wanted) each(this.sql.exec<Raw>(byValue, kind, v).toArray());
    }
  }

  /** A holder whose job is parsed only when the rule change reads it (a job under a rule before every added one is not). */
  private holder(r: Raw, withJobs: boolean): GroupHolder {
    let job: Job | undefined;
    return {
      id: r.id as number,
      grp: r.grp as number,
      share: shareOf(r),
      get job() {
        if (job === undefined && withJobs) job = parseExactJson(r.job as string) as unknown as Job;
        return job;
      },
    };
  }

  private holders(rules: ReadonlySet<string | null>, withJobs: boolean): Holder[] {
    const select = byRule(withJobs);
    const holder = (r: Raw): Holder => this.holder(r, withJobs);
    const out: Holder[] = [];
    if (rules.size > RULES_PER_LOOKUP) {
      for (const r of this.sql.exec<Raw>(byId(withJobs)))
        if (rules.has((r.rule as string | null) ?? null)) out.push(holder(r));
      return out;
    }
    for (const rule of rules) {
      const rows =
        rule === null
          ? this.sql.exec<Raw>(`${select} WHERE g.rule IS NULL`)
          : this.sql.exec<Raw>(`${select} WHERE g.rule = ?`, rule);
      for (const r of rows) out.push(holder(r));
    }
    return out;
  }

  clear(): void {
    this.sql.exec("DELETE FROM running_members");
    this.sql.exec("DELETE FROM running_groups");
    this.fresh.clear();
    this.sql.exec("DELETE FROM running_totals");
    this.sql.exec("DELETE FROM counted_rules");
    this.sql.exec("DELETE FROM running_facts");
    this.sql.exec("DELETE FROM running_matched");
    this.sql.exec("DELETE FROM running_memo_groups");
    this.sql.exec("DELETE FROM running_memos");
    this.sql.exec("DELETE FROM running_pending");
    this.pending = 0;
    this.held.clear();
    this.warming.clear();
    this.unheld.clear();
    this.heldCount = 0;
    this.heldChars = 0;
    this.memos.clear();
    this.dropping = false;
    this.sql.exec("DELETE FROM earlier_rules");
    this.sql.exec("DELETE FROM earlier_sets");
    this.sql.exec("DELETE FROM meta WHERE key = ?", COUNTED_FOR);
    this.setFilling(undefined);
    // counted anew, each job indexed (with the presence key) as it is put
    if (this.opAfter !== undefined) this.setOpAfter(undefined);
    if (this.factsAfter !== undefined) this.setFactsAfter(undefined);
  }
}
