import { loadAcl } from "./acl.js";
import { loadFilter, namesOnly, userGate } from "./filter.js";
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
 * The rules' gates, as fresh strings made one after another so that they sit
 * together in memory: a walk over thousands of gates then reads a few
 * contiguous pages instead of one scattered rule, filter and regex per rule.
 */
function gatesOf(rules: readonly Rule[]): (string | null)[] {
  const gates = rules.map((r) => userGate(r.filter));
  // one join and split makes them all at once; a prefix holding the separator (a regexp's `\x00`) keeps its own string
  if (gates.some((g) => g !== null && g.includes("\u0000"))) return gates;
  const packed = gates
    .map((g) => g ?? "")
    .join("\u0000")
    .split("\u0000");
  return gates.map((g, i) => (g === null ? null : packed[i]));
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
      queues.set(q.path, {
        path: q.path,
        leaf: q.leaf,
        submit: loadAcl(q.submit),
        admin: loadAcl(q.admin),
        parent,
      });
    }
    const rules = p.rules.map(loadRule);
    const nameGated = new Uint8Array(rules.length);
    const named = new Map<string, Set<number>>();
    rules.forEach((r, i) => {
      if (!namesOnly(r.filter)) return;
      nameGated[i] = 1;
      for (const user of r.filter.users) {
        let set = named.get(user);
        if (set === undefined) named.set(user, (set = new Set()));
        set.add(i);
      }
    });
    partitions.set(p.name, {
      name: p.name,
      queues,
      rules,
      gates: gatesOf(rules),
      nameGated,
      named,
      defaultQueue: p.defaultQueue,
    });
  }
  return { partitions };
}
