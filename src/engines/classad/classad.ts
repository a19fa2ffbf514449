/**
 * The ClassAd record: attribute names mapped case-insensitively (through a
 * lower-cased key Map built once) to compiled expressions, plus the lexical
 * parent used by scoping.
 */
import { Compiled } from "./node.js";
import type { Value } from "./values.js";

/** One attribute: its name as written and its compiled expression. */
export interface Slot {
  readonly name: string;
  readonly c: Compiled;
}

/** A ClassAd value; `table` may be shared by every instance of one ad literal. */
export class ClassAd {
  constructor(
    readonly table: Map<string, Slot>,
    readonly parent: ClassAd | null,
  ) {}

  /** Number of attributes. */
  get size(): number {
    return this.table.size;
  }

  /** The attribute with this lower-cased name, if any. */
  get(lc: string): Slot | undefined {
    return this.table.get(lc);
  }
}

/** A compiled literal, for ads and lists built from values by functions. */
export function literal(v: Value): Compiled {
  return new Compiled(() => v, { k: "lit", v });
}

/** Builds an ad whose attributes are plain values (splitTime and friends). */
export function adFromValues(entries: ReadonlyArray<readonly [string, Value]>, parent: ClassAd | null = null): ClassAd {
  const table = new Map<string, Slot>();
  for (const [name, v] of entries) table.set(name.toLowerCase(), { name, c: literal(v) });
  return new ClassAd(table, parent);
}

/** Builds an attribute table from compiled expressions; later names win. */
export function tableOf(entries: ReadonlyArray<readonly [string, Compiled]>): Map<string, Slot> {
  const table = new Map<string, Slot>();
  for (const [name, c] of entries) {
    const lc = name.toLowerCase();
    if (table.has(lc)) table.delete(lc);
    table.set(lc, { name, c });
  }
  return table;
}

/** An ad with no attributes, used as the scope of values built by functions. */
export const EMPTY_AD = new ClassAd(new Map(), null);
