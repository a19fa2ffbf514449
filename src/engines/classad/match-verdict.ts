/**
 * The /v1/match verdict, kept in columns while the decision runs: per machine
 * only its name (a string the ad already holds), its flag bits and its rank, and
 * the matching machines in rank order. The per-machine lines and the log are
 * built from the columns when the answer is written (the verdict's `machines`
 * and `log` are read), once; a decision over 100,000 machines thus allocates
 * no object and no string per machine while it decides.
 */
import { VERDICT_JSON } from "../common/decision.js";
import { orderByRank } from "./rank-order.js";
import { keepShape } from "../common/shapes.js";

/** One machine's line of the verdict. */
export interface MachineVerdict {
  name: string | number;
  discarded: boolean;
  match: boolean;
  rank: number;
}

/** The /v1/match verdict body. */
export interface MatchVerdict {
  job: { discarded: boolean };
  schedd?: { discarded: boolean };
  machines: MachineVerdict[];
  best: string | number | null;
  /** Only in the best-N form (`"best": N`): what became of every machine, counted. */
  counts?: MatchCounts;
  log: string[];
}

/** What became of the machines of a best-N match: the lines of the full answer, counted. */
export interface MatchCounts {
  /** Every machine of the request. */
  machines: number;
  /** Matched (the full answer's `match: true` lines); the best of them are listed. */
  matched: number;
  /** Discarded by NEGOTIATOR_PE_STARTD_ONLY_EXPR (`discarded: true`). */
  discarded: number;
  /** Matched on both Requirements but refused by NEGOTIATOR_PE_RESOURCE_EXPR (`Rejected … reason=NEGOTIATOR_PE_RESOURCE_EXPR`). */
  rejected_by_resource_expr: number;
  /** Likewise refused by NEGOTIATOR_PE_JOB_EXPR. */
  rejected_by_job_expr: number;
  /** The rest: a side's Requirements not TRUE, or not evaluated because the job or its schedd was discarded. */
  unmatched: number;
}

/** Flag bits of one machine. */
export const DISCARDED = 1;
export const MATCHED = 2;
/** The pair matched on Requirements alone, but NEGOTIATOR_PE_RESOURCE_EXPR (or _JOB_EXPR) rejected it. */
export const REJECTED_RESOURCE = 4;
export const REJECTED_JOB = 8;

/** What a decision found, in columns. */
export interface MatchColumns {
  /** The decision's timestamp as the log prints it, and the job's id. */
  readonly ts: string;
  readonly jid: string;
  readonly job: { discarded: boolean };
  readonly schedd: { discarded: boolean } | undefined;
  /** Per machine: the Name attribute when it is a string, else null (the line shows the index). */
  readonly names: readonly (string | null)[];
  /** Per machine: its flag bits and the job's Rank of it (a large pool's are chunked: {@link ChunkedColumns}). */
  readonly flags: ArrayLike<number>;
  readonly ranks: ArrayLike<number>;
  /** The best match's index (the highest rank, the first in the request among equal ones, NaN last), or -1. */
  readonly best: number;
  /** Log lines before the machines' (schedd and job discards), and the closing line (a spent budget) or null. */
  readonly head: readonly string[];
  readonly tail: string | null;
}

/**
 * A large pool's columns (match.ts `decideLarge`): the same fields, the per-machine ones in chunks of
 * `chunk` entries (machine i at `[i / chunk][i % chunk]`), so that no column is one object above V8's
 * large-object size; made into {@link MatchColumns} when the verdict's lines or log are first read.
 */
export interface ChunkedColumns extends Omit<MatchColumns, "names" | "flags" | "ranks"> {
  /** How many machines. */
  readonly n: number;
  readonly chunk: number;
  readonly names: readonly (readonly (string | null)[])[];
  readonly flags: readonly (readonly number[])[];
  readonly ranks: readonly (readonly number[])[];
}

/** One column of its chunks, in order. */
function joined<T>(chunks: readonly (readonly T[])[], n: number): T[] {
  const out = new Array<T>(n);
  let i = 0;
  for (const chunk of chunks) for (let k = 0; k < chunk.length; k++) out[i++] = chunk[k];
  return out;
}

/** The columns of chunked ones, each one array (built when a large verdict is read, never while deciding). */
function joinedColumns(c: ChunkedColumns): MatchColumns {
  return {
    ts: c.ts,
    jid: c.jid,
    job: c.job,
    schedd: c.schedd,
    names: joined(c.names, c.n),
    flags: joined(c.flags, c.n),
    ranks: joined(c.ranks, c.n),
    best: c.best,
    head: c.head,
    tail: c.tail,
  };
}

/** The shortest decimal that round-trips a double. */
function rankText(r: number): string {
  return String(r);
}

/**
 * The matching machines' indices, best first (rank descending, ties in request
 * order, NaN last): sorted only when the log is written, never while deciding.
 */
function matchOrder(c: MatchColumns): number[] {
  const order: number[] = [];
  const { flags } = c;
  for (let i = 0; i < flags.length; i++) if (flags[i] & MATCHED) order.push(i);
  orderByRank(order, c.ranks);
  return order;
}

/** The machine lines, in input order. */
function machineLines(c: MatchColumns): MachineVerdict[] {
  const n = c.names.length;
  const out = new Array<MachineVerdict>(n);
  for (let i = 0; i < n; i++) {
    const f = c.flags[i];
    out[i] = {
      name: c.names[i] ?? i,
      discarded: (f & DISCARDED) !== 0,
      match: (f & MATCHED) !== 0,
      rank: c.ranks[i],
    };
  }
  return out;
}

/** The log: discards, policy rejections in input order, one line per match best first, the budget line. */
function logLines(c: MatchColumns, order: readonly number[]): string[] {
  const log = [...c.head];
  const { ts, jid, names, flags } = c;
  for (let i = 0; i < names.length; i++) {
    const f = flags[i];
    if ((f & (DISCARDED | REJECTED_RESOURCE | REJECTED_JOB)) === 0) continue;
    const name = names[i] ?? `#${i}`;
    if (f & DISCARDED) log.push(`${ts} Rejected machine=${name} reason=NEGOTIATOR_PE_STARTD_ONLY_EXPR`);
    else
      log.push(
        `${ts} Rejected job=${jid} machine=${name} reason=${f & REJECTED_RESOURCE ? "NEGOTIATOR_PE_RESOURCE_EXPR" : "NEGOTIATOR_PE_JOB_EXPR"}`,
      );
  }
  const matched = `${ts} Matched job=${jid} machine=`;
  let lastRank = NaN;
  let lastRankText = "NaN";
  for (const i of order) {
    const r = c.ranks[i];
    // equal ranks sit together once ordered: print each distinct rank once
    if (!Object.is(r, lastRank)) {
      lastRank = r;
      lastRankText = rankText(r);
    }
    log.push(`${matched}${names[i] ?? `#${i}`} rank=${lastRankText}`);
  }
  if (c.tail !== null) log.push(c.tail);
  return log;
}

/** The most machines a verdict writes its own JSON for (see columnVerdict). */
export const OWN_JSON_MACHINES = 32;

/** A double as JSON.stringify writes it (NaN and the infinities as null). */
function numberJson(r: number): string {
  return Number.isFinite(r) ? String(r) : "null";
}

/**
 * Whether JSON.stringify writes a string as it is between its quotes: no
 * control character, quote, backslash or surrogate (a lone one is escaped).
 * A loop over a name's few code units costs far less than a stringify call.
 */
function plainJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** A string's JSON text without its quotes (the string itself when nothing needs escaping). */
function innerJson(s: string): string {
  return plainJson(s) ? s : JSON.stringify(s).slice(1, -1);
}

/**
 * `s`, flattened (V8 copies a string made by `+` into one run of characters the first time a
 * character of it is read): a piece that many others repeat is then copied as one run, not
 * walked through its parts each time the answer is flattened.
 */
function flat(s: string): string {
  // kept, so that no compiler drops the read as unused
  _firstUnit = s.charCodeAt(0);
  return s;
}
let _firstUnit = 0;

/** A machine line's JSON after its name, by the flags' two low bits (DISCARDED, MATCHED). */
const LINE_FLAGS = [
  ',"discarded":false,"match":false,"rank":',
  ',"discarded":true,"match":false,"rank":',
  ',"discarded":false,"match":true,"rank":',
  ',"discarded":true,"match":true,"rank":',
];
/** {@link LINE_FLAGS} after a quoted name: its closing quote first. */
const QUOTED_LINE_FLAGS = LINE_FLAGS.map((f) => `"${f}`);

/**
 * The verdict's JSON text written straight from the columns: exactly what
 * JSON.stringify gives for the object columnVerdict returns (`job`,
 * `machines`, `best`, `log`, then `schedd`), without building a line object
 * or a log string per machine on the way. Each name is escaped once (most
 * need nothing: then the name itself), for its line and its log line.
 * (Pushing the pieces on an array and joining them once took twice the
 * instructions of adding them: wt/matchroute, session 44; in workerd too,
 * even counting the flatten the join saves: wt/matchfloor, session 50.) What
 * the answer's flatten costs is its parts, about 100 workerd instructions
 * each: a piece repeated on every line is flattened once ({@link flat}), and
 * a short sum (a rank and its brace) is one part, V8 copying it flat.
 */
export function columnVerdictJson(
  c: MatchColumns,
  best: string | number | null,
  order: readonly number[],
  /** Without the outer braces: the members, for an answer that puts them after its envelope. */
  members = false,
): string {
  const { names, flags, ranks, ts } = c;
  const n = names.length;
  const shown = new Array<string>(n);
  let out = c.job.discarded
    ? '"job":{"discarded":true},"machines":['
    : '"job":{"discarded":false},"machines":[';
  if (!members) out = "{" + out;
  for (let i = 0; i < n; i++) {
    const name = names[i];
    if (name === null) {
      shown[i] = `#${i}`;
      out += `${i === 0 ? '{"name":' : ',{"name":'}${i}${LINE_FLAGS[flags[i] & 3]}${numberJson(ranks[i]) + "}"}`;
    } else {
      const inner = innerJson(name);
      shown[i] = inner;
      out += `${i === 0 ? '{"name":"' : ',{"name":"'}${inner}${QUOTED_LINE_FLAGS[flags[i] & 3]}${numberJson(ranks[i]) + "}"}`;
    }
  }
  out += `],"best":${JSON.stringify(best)},"log":[`;
  let sep = "";
  for (const line of c.head) {
    out += sep + JSON.stringify(line);
    sep = ",";
  }
  const jid = innerJson(c.jid);
  for (let i = 0; i < n; i++) {
    const f = flags[i];
    if ((f & (DISCARDED | REJECTED_RESOURCE | REJECTED_JOB)) === 0) continue;
    if (f & DISCARDED)
      out += `${sep}"${ts} Rejected machine=${shown[i]} reason=NEGOTIATOR_PE_STARTD_ONLY_EXPR"`;
    else
      out += `${sep}"${ts} Rejected job=${jid} machine=${shown[i]} reason=${f & REJECTED_RESOURCE ? "NEGOTIATOR_PE_RESOURCE_EXPR" : "NEGOTIATOR_PE_JOB_EXPR"}"`;
    sep = ",";
  }
  const matched = flat(`"${ts} Matched job=${jid} machine=`);
  const matchedNext = flat(`,${matched}`);
  let lastRank = NaN;
  let lastRankText = ' rank=NaN"';
  for (const i of order) {
    const r = ranks[i];
    if (!Object.is(r, lastRank)) {
      lastRank = r;
      lastRankText = ` rank=${rankText(r)}"`;
    }
    out += `${sep === "" ? matched : matchedNext}${shown[i]}${lastRankText}`;
    sep = ",";
  }
  if (c.tail !== null) out += sep + JSON.stringify(c.tail);
  out +=
    c.schedd === undefined
      ? "]"
      : c.schedd.discarded
        ? '],"schedd":{"discarded":true}'
        : '],"schedd":{"discarded":false}';
  return members ? out : out + "}";
}

/**
 * The verdict over the columns: `job`, `best` and `schedd` plain fields,
 * `machines` and `log` own, enumerable accessor properties defined with
 * `Object.defineProperty` from one getter/setter pair shared by every verdict
 * (LazyVerdict.MACHINES, .LOG), built from the columns on first read and kept in
 * private fields. JSON.stringify and spreading see plain arrays; a decision over
 * 100,000 machines builds no line and no log string until its answer is written,
 * and the route's answer, written from the columns ({@link OwnJsonVerdict}),
 * builds neither.
 *
 * Not an object literal with `get machines() { … }`: each such literal made new
 * closures, and V8 gave each verdict a map of its own, held in the old space and
 * pointing at the young closures and their columns: every scavenge kept the
 * verdicts made since the last one alive and promoted them (in a loop of
 * 100-machine decides, about 2.5 MB per scavenge; docs/performance.md, wt/decide6).
 * Nor plain fields built at once (the small verdict's until wt/matchroute in session 44): the
 * route's 8-machine request built 8 line objects and 7 log strings no answer read,
 * about 5,200 instructions where the two shared accessors cost about 2,400.
 */
class LazyVerdict {
  declare job: { discarded: boolean };
  declare machines: MachineVerdict[];
  declare best: string | number | null;
  declare log: string[];
  declare schedd?: { discarded: boolean };
  /** The columns; a large pool's chunks until the lines or log are first read ({@link LazyVerdict.columns}). */
  #c: MatchColumns | ChunkedColumns;
  readonly #best: string | number | null;
  #machines: MachineVerdict[] | null = null;
  #log: string[] | null = null;
  /** Whether `machines` or `log` was assigned (the columns then no longer say what the verdict holds). */
  #replaced = false;

  constructor(c: MatchColumns | ChunkedColumns, best: string | number | null) {
    this.#c = c;
    this.#best = best;
    // the keys in the documented order: job, machines, best, log, then schedd
    this.job = c.job;
    Object.defineProperty(this, "machines", LazyVerdict.MACHINES);
    this.best = best;
    Object.defineProperty(this, "log", LazyVerdict.LOG);
    if (c.schedd !== undefined) this.schedd = c.schedd;
  }

  /** The verdict's columns, a large pool's chunks joined (once) on the first read. */
  static columns(v: LazyVerdict): MatchColumns {
    const c = v.#c;
    if (!("chunk" in c)) return c;
    const joined = joinedColumns(c);
    v.#c = joined;
    return joined;
  }

  /** `machines`: the lines, built on first read. */
  static readonly MACHINES: PropertyDescriptor = {
    get(this: LazyVerdict): MachineVerdict[] {
      return (this.#machines ??= machineLines(LazyVerdict.columns(this)));
    },
    set(this: LazyVerdict, v: MachineVerdict[]) {
      this.#machines = v;
      this.#replaced = true;
    },
    enumerable: true,
    configurable: true,
  };

  /** `log`: the log lines, built (the matches put in rank order) on first read. */
  static readonly LOG: PropertyDescriptor = {
    get(this: LazyVerdict): string[] {
      const c = LazyVerdict.columns(this);
      return (this.#log ??= logLines(c, matchOrder(c)));
    },
    set(this: LazyVerdict, v: string[]) {
      this.#log = v;
      this.#replaced = true;
    },
    enumerable: true,
    configurable: true,
  };

  /**
   * A verdict's JSON (with `members`, without its outer braces): from the columns, unless a
   * field was replaced (then JSON.stringify's; edits inside lists already read are not followed).
   */
  static ownJson(v: LazyVerdict, members: boolean): string {
    const c = LazyVerdict.columns(v);
    if (!v.#replaced && v.job === c.job && v.best === v.#best && v.schedd === c.schedd)
      return columnVerdictJson(c, v.#best, matchOrder(c), members);
    const json = JSON.stringify(v);
    return members ? json.slice(1, -1) : json;
  }
}

/**
 * A verdict of up to OWN_JSON_MACHINES machines: a {@link LazyVerdict} that
 * writes its own JSON from the columns (a method on the prototype under
 * VERDICT_JSON, so neither JSON.stringify nor spreading sees it).
 */
class OwnJsonVerdict extends LazyVerdict {
  [VERDICT_JSON](members = false): string {
    return LazyVerdict.ownJson(this, members);
  }
}

/**
 * The verdict over the columns: `job`, `machines`, `best`, `log` and (with a
 * schedd ad) `schedd`, in that order, `machines` and `log` built on first read
 * (see LazyVerdict); up to OWN_JSON_MACHINES machines it writes its own JSON.
 */
export function columnVerdict(c: MatchColumns): MatchVerdict {
  const best = c.best >= 0 ? (c.names[c.best] ?? c.best) : null;
  if (c.names.length <= OWN_JSON_MACHINES) return new OwnJsonVerdict(c, best);
  return new LazyVerdict(c, best);
}

/** The verdict over a large pool's chunked columns (a {@link LazyVerdict}: it never writes its own JSON). */
export function chunkedColumnVerdict(c: ChunkedColumns): MatchVerdict {
  const best = c.best >= 0 ? (c.names[Math.floor(c.best / c.chunk)][c.best % c.chunk] ?? c.best) : null;
  return new LazyVerdict(c, best);
}

/**
 * Verdicts kept alive so that their maps, and the optimized code that checks them, outlive each decision
 * (common/shapes.ts): one of each class, over columns of the route's kinds (a named best match, no schedd).
 */
const keptColumns: MatchColumns = {
  ts: "",
  jid: "",
  job: { discarded: false },
  schedd: undefined,
  names: ["slot"],
  flags: [0],
  ranks: [0],
  best: 0,
  head: [],
  tail: null,
};
keepShape(new OwnJsonVerdict(keptColumns, "slot"));
keepShape(new LazyVerdict(keptColumns, "slot"));
