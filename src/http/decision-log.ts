import { oneLine, writeLineText } from "../log-line.js";
import { isoTime } from "../engines/common/iso-time.js";
/** One decision log line's fields. */
export interface DecisionLog {
  decision_id: string;
  engine: string;
  revision: string;
  outcome: string;
  /**
   * Whole milliseconds from the request's start to the decision, as the runtime's
   * clock tells them. Under workerd the clock advances only across I/O (KV, Durable
   * Object calls, fetches), never during computation, so a decision made without
   * I/O logs 0: the figure is time spent waiting, not CPU. CPU per request is what
   * Cloudflare's own metrics count (`npm run bench:cpu` measures it locally).
   */
  ms: number;
  /** `hit`: answered from a cache level; `miss`: decided and cacheable; `bypass`: decided, caching not allowed (explain, or the cache is off). */
  cache?: "hit" | "miss" | "bypass";
}

/** The last decision id {@link newDecisionId} made, and its JSON text. */
let madeId = "";
let madeIdJson = '""';

/**
 * A fresh, unique decision id (a version 4 UUID). Its JSON text is kept: a UUID holds only
 * hex digits and `-`, so it is the id in quotes, and the log line and the answer that both
 * write it take that instead of JSON.stringify's (about 1,400 workerd instructions each).
 */
export function newDecisionId(): string {
  madeId = crypto.randomUUID();
  madeIdJson = `"${madeId}"`;
  return madeId;
}

/** A decision id's JSON text (on one line): the kept text for the last id made here, else JSON.stringify's. */
export function decisionIdJson(id: string): string {
  return id === madeId ? madeIdJson : oneLine(JSON.stringify(id));
}

/**
 * Whole milliseconds since `started` (a `Date.now()` reading), for the decision log. The Worker's
 * clock is read with `Date.now()`, not `performance.now()`: in workerd both advance only across
 * I/O and in whole milliseconds, and `performance.now()` is a call into the runtime (about 1,330
 * instructions against Date.now's 310; docs/performance.md, wt/floor7).
 */
export function elapsedMs(started: number): number {
  return Math.round(Date.now() - started);
}

/** Writes the one JSON log line every decision leaves; it never holds request bodies or secrets. */
export function logDecision(entry: DecisionLog): void {
  writeLineText(decisionLogText(entry, Date.now()));
}

/** A string's JSON text kept on one line, remembering the last value given (a field that repeats: engine, revision, outcome). */
class Quoted {
  #value: string | undefined;
  #text = "";

  of(value: string): string {
    if (value !== this.#value) {
      this.#text = oneLine(JSON.stringify(value));
      this.#value = value;
    }
    return this.#text;
  }
}

const engineText = new Quoted();
const revisionText = new Quoted();
const outcomeText = new Quoted();
const cacheText = new Quoted();

/**
 * A decision line's text at `now`: the text `logLine({ ts, ...entry })` gives (the same members
 * in the same order, each string's JSON kept on one line), written member by member instead of
 * spreading an object for JSON.stringify and scanning the whole line for line breaks; the
 * engine, revision and outcome, which repeat from one decision to the next, are quoted once.
 */
export function decisionLogText(entry: DecisionLog, now: number): string {
  // Date's ISO text holds only digits, `-`, `+`, `:`, `.`, `T` and `Z`: its JSON is itself in quotes
  const head = `{"ts":"${isoTime(now)}","decision_id":${decisionIdJson(entry.decision_id)}`;
  const ms = Number.isFinite(entry.ms) ? String(entry.ms) : "null";
  const cache = entry.cache === undefined ? "" : `,"cache":${cacheText.of(entry.cache)}`;
  return `${head},"engine":${engineText.of(entry.engine)},"revision":${revisionText.of(entry.revision)},"outcome":${outcomeText.of(entry.outcome)},"ms":${ms}${cache}}`;
}
