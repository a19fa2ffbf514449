/**
 * The report of a comparison between two policies over the same decisions, as
 * `GET /v1/candidate/report` answers it and `arbiter replay` prints it: how many
 * decisions were compared, how many agreed, and per engine and outcome pair a
 * count with at most MAX_EXAMPLES examples. A Tally accumulates comparisons; its
 * batch form is what isolates send the policy coordinator and what the
 * coordinator's tables read back as, so both sides count alike.
 */
import type { EngineName } from "../../engines/common/engine.js";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import type { View } from "./views.js";

/** Examples kept per engine and outcome pair. */
export const MAX_EXAMPLES = 20;
/** Distinct outcome pairs kept per engine; further pairs are counted under OTHER_PAIR. */
export const MAX_PAIRS = 50;
/** Where the pairs past MAX_PAIRS are counted. */
export const OTHER_PAIR = "(other pairs)";
/** An example's request or view longer than this (as JSON) is replaced by a note of its size. */
export const MAX_EXAMPLE_PART_BYTES = 8192;

/** One request decided differently: the (masked) request and both views. */
export interface Example {
  at: string;
  request: unknown;
  active: View;
  candidate: View;
}

/** One outcome pair of an engine: how often, and the first examples. */
export interface PairReport {
  pair: string;
  count: number;
  examples: Example[];
}

/** One engine's part of the report. */
export interface EngineReport {
  compared: number;
  agreed: number;
  differing: number;
  pairs: PairReport[];
}

/** The whole report: totals, then per engine, since the first comparison counted. */
export interface ComparisonReport {
  since: string | null;
  compared: number;
  agreed: number;
  differing: number;
  engines: Partial<Record<EngineName, EngineReport>>;
}

/** A tally as JSON, sent from an isolate to the coordinator or read back from its tables. */
export interface TallyBatch {
  engines: Partial<
    Record<
      EngineName,
      { compared: number; agreed: number; pairs: Record<string, { count: number; examples: Example[] }> }
    >
  >;
}

/** The name a pair is counted under, given the pairs an engine has: itself, or OTHER_PAIR once it has MAX_PAIRS others. */
export function pairSlot(pairs: { has(pair: string): boolean; readonly size: number }, pair: string): string {
  if (pairs.has(pair)) return pair;
  const named = pairs.size - (pairs.has(OTHER_PAIR) ? 1 : 0);
  return named >= MAX_PAIRS ? OTHER_PAIR : pair;
}

interface EngineTally {
  compared: number;
  agreed: number;
  pairs: Map<string, { count: number; examples: Example[] }>;
}

/** A value, or a note of its size when its JSON is longer than MAX_EXAMPLE_PART_BYTES. */
export function boundedValue<T>(value: T): T | { omitted: string } {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= MAX_EXAMPLE_PART_BYTES ? value : { omitted: `${text.length} characters` };
}

/** An example with each part bounded in size, as it is kept. */
export function boundedExample(example: Example): Example {
  return {
    at: example.at,
    request: boundedValue(example.request),
    active: boundedValue(example.active) as View,
    candidate: boundedValue(example.candidate) as View,
  };
}

/** Comparisons counted per engine and outcome pair, with the caps of the report applied as they arrive. */
export class Tally {
  private readonly engines = new Map<EngineName, EngineTally>();

  private engine(name: EngineName): EngineTally {
    let t = this.engines.get(name);
    if (t === undefined) {
      t = { compared: 0, agreed: 0, pairs: new Map() };
      this.engines.set(name, t);
    }
    return t;
  }

  private slot(t: EngineTally, pair: string): string {
    return pairSlot(t.pairs, pair);
  }

  /** Whether an example of this pair would still be kept (so the caller can skip building one). */
  wantsExample(engine: EngineName, pair: string): boolean {
    const t = this.engines.get(engine);
    const p = t?.pairs.get(t === undefined ? pair : this.slot(t, pair));
    return p === undefined || p.examples.length < MAX_EXAMPLES;
  }

  /** Counts `n` comparisons of one engine that fell in `pair` (null: they agreed), keeping the examples that fit. */
  add(engine: EngineName, pair: string | null, examples: readonly Example[] = [], n = 1): void {
    const t = this.engine(engine);
    t.compared += n;
    if (pair === null) {
      t.agreed += n;
      return;
    }
    const name = this.slot(t, pair);
    let p = t.pairs.get(name);
    if (p === undefined) {
      p = { count: 0, examples: [] };
      t.pairs.set(name, p);
    }
    p.count += n;
    for (const e of examples) if (p.examples.length < MAX_EXAMPLES) p.examples.push(boundedExample(e));
  }

  /** Adds another tally's counts (a batch from an isolate, or stored rows). */
  merge(batch: TallyBatch): this {
    for (const name of ENGINE_NAMES) {
      const e = batch.engines[name];
      if (e === undefined) continue;
      const t = this.engine(name);
      t.compared += e.compared;
      t.agreed += e.agreed;
      for (const [pair, p] of Object.entries(e.pairs)) {
        t.compared -= p.count;
        this.add(name, pair, p.examples, p.count);
      }
    }
    return this;
  }

  /** Whether nothing was counted. */
  get empty(): boolean {
    return this.engines.size === 0;
  }

  /** The tally as JSON. */
  toBatch(): TallyBatch {
    const out: TallyBatch = { engines: {} };
    for (const [name, t] of this.engines) {
      out.engines[name] = { compared: t.compared, agreed: t.agreed, pairs: Object.fromEntries(t.pairs) };
    }
    return out;
  }

  /** The report: engines in the registry's order, pairs by count (then name), totals over the engines. */
  report(since: string | null): ComparisonReport {
    const out: ComparisonReport = { since, compared: 0, agreed: 0, differing: 0, engines: {} };
    for (const name of ENGINE_NAMES) {
      const t = this.engines.get(name);
      if (t === undefined) continue;
      const pairs = [...t.pairs]
        .map(([pair, p]) => ({ pair, count: p.count, examples: p.examples }))
        .sort((a, b) => b.count - a.count || (a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0));
      const differing = t.compared - t.agreed;
      out.engines[name] = { compared: t.compared, agreed: t.agreed, differing, pairs };
      out.compared += t.compared;
      out.agreed += t.agreed;
      out.differing += differing;
    }
    return out;
  }
}
