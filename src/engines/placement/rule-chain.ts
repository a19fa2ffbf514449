import { LazyRegex } from "./filter.js";
import { columnStarts } from "./gate-store.js";
import { KIND_OF_LETTER, storedExact, type StoredPartition } from "./store.js";
import type { Filter, Rule, RuleChain } from "./types.js";

/** The one empty name set every filter without names shares (read only). */
const NO_NAMES: ReadonlySet<string> = new Set<string>();

function nameSet(all: readonly string[], from: number, to: number): ReadonlySet<string> {
  return from === to ? NO_NAMES : new Set(all.slice(from, to));
}

/**
 * A partition's chain of rules read from its stored columns, each rule built
 * the first time a decision reaches it (and kept): loading builds no rule,
 * filter, set or matcher, and an unexplained decision builds only the rules
 * its gates let through. Equal rules, filters and expressions are stored once
 * and so built once and shared.
 */
export class LazyChain implements RuleChain {
  readonly length: number;
  private readonly nodes: (Rule | undefined)[];
  private readonly filters: (Filter | undefined)[];
  private readonly exps: (LazyRegex | undefined)[];
  private userStart: Uint32Array | null = null;
  private builtNodes = 0;
  private groupStart: Uint32Array | null = null;

  constructor(private readonly p: StoredPartition) {
    this.length = p.chain.length;
    this.nodes = new Array<Rule | undefined>(p.nodes.kind.length);
    this.filters = new Array<Filter | undefined>(p.filters.flags.length);
    this.exps = new Array<LazyRegex | undefined>(p.exps.source.length);
  }

  /** How many distinct rules (a chain's rules and their parents) have been built so far. */
  get built(): number {
    return this.builtNodes;
  }

  /** Rule `i` of the chain (0 ≤ i < length). */
  at(i: number): Rule {
    return this.node(this.p.chain[i]);
  }

  private node(i: number): Rule {
    const known = this.nodes[i];
    if (known !== undefined) return known;
    const n = this.p.nodes;
    const parent = n.parent[i];
    const rule: Rule = {
      kind: KIND_OF_LETTER[n.kind[i]],
      create: n.create.charCodeAt(i) === 49,
      filter: this.filter(n.filter[i]),
      parent: parent < 0 ? null : this.node(parent),
      value: n.value[i],
      qualified: n.qualified.charCodeAt(i) === 49,
    };
    this.nodes[i] = rule;
    this.builtNodes++;
    return rule;
  }

  private filter(i: number): Filter {
    const known = this.filters[i];
    if (known !== undefined) return known;
    const fs = this.p.filters;
    const users = (this.userStart ??= columnStarts(fs.userCount));
    const groups = (this.groupStart ??= columnStarts(fs.groupCount));
    const bits = fs.flags.charCodeAt(i) - 48;
    const filter: Filter = {
      allow: (bits & 1) !== 0,
      empty: (bits & 2) !== 0,
      users: nameSet(fs.users, users[i], users[i + 1]),
      groups: nameSet(fs.groups, groups[i], groups[i + 1]),
      userExp: this.exp(fs.userExp[i]),
      groupExp: this.exp(fs.groupExp[i]),
    };
    this.filters[i] = filter;
    return filter;
  }

  private exp(i: number): LazyRegex | null {
    if (i < 0) return null;
    const e = this.p.exps;
    const known = this.exps[i];
    if (known !== undefined) return known;
    const exact = storedExact(e, i);
    return (this.exps[i] = new LazyRegex(
      e.source[i],
      e.prefix[i],
      e.required[i],
      exact === null ? null : new Set(exact),
    ));
  }
}
