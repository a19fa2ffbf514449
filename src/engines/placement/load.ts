import { loadAcl } from "./acl.js";
import { loadFilter } from "./filter.js";
import type { Partition, PlacementData, PlacementPolicy, QueueNode, Rule, RuleData } from "./types.js";

function loadRule(r: RuleData): Rule {
  return {
    kind: r.kind,
    create: r.create,
    filter: loadFilter(r.filter),
    parent: r.parent === null ? null : loadRule(r.parent),
    value: r.value,
    qualified: r.qualified,
  };
}

/**
 * Rebuilds the ready-to-decide policy from bundle data once per isolate and
 * revision: regexes compiled, ACLs and filter lists as sets, the configured
 * queue tree indexed by lower-cased path with parent links.
 */
export function loadPlacement(data: PlacementData): PlacementPolicy {
  const partitions = new Map<string, Partition>();
  for (const p of data.partitions) {
    const queues = new Map<string, QueueNode>();
    for (const q of p.queues) {
      const dot = q.path.lastIndexOf(".");
      const parent = dot < 0 ? null : (queues.get(q.path.slice(0, dot)) ?? null);
      queues.set(q.path, { path: q.path, leaf: q.leaf, submit: loadAcl(q.submit), admin: loadAcl(q.admin), parent });
    }
    partitions.set(p.name, { name: p.name, queues, rules: p.rules.map(loadRule), defaultQueue: p.defaultQueue });
  }
  return { partitions };
}
