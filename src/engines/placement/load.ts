import { loadAcl } from "./acl.js";
import { filterGate, loadFilter, Side } from "./filter.js";
import type {
  Partition,
  PlacementData,
  PlacementPolicy,
  QueueNode,
  Rule,
  RuleData,
  RuleGates,
} from "./types.js";

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
 * The rules' filter gates as parallel arrays, with the literals made one
 * after another (one join and split) so that a walk over thousands of gates
 * reads a few contiguous pages instead of one scattered rule, filter and
 * expression per rule.
 */
function gatesOf(rules: readonly Rule[]): RuleGates {
  const n = rules.length;
  const gated = new Uint8Array(n);
  const userSide = new Uint8Array(n);
  const groupSide = new Uint8Array(n);
  const userLiteral: string[] = new Array<string>(n).fill("");
  const groupLiteral: string[] = new Array<string>(n).fill("");
  const users = new Map<string, Set<number>>();
  const groups = new Map<string, number[]>();
  rules.forEach((r, i) => {
    const gate = filterGate(r.filter);
    if (gate === null) return;
    gated[i] = 1;
    userSide[i] = gate.user;
    groupSide[i] = gate.group;
    userLiteral[i] = gate.userLiteral;
    groupLiteral[i] = gate.groupLiteral;
    if (gate.user === Side.Names) {
      for (const u of r.filter.users) {
        let set = users.get(u);
        if (set === undefined) users.set(u, (set = new Set()));
        set.add(i);
      }
    }
    if (gate.group === Side.Names) {
      for (const g of r.filter.groups) {
        let list = groups.get(g);
        if (list === undefined) groups.set(g, (list = []));
        list.push(i);
      }
    }
  });
  return {
    gated,
    userSide,
    userLiteral: packed(userLiteral),
    groupSide,
    groupLiteral: packed(groupLiteral),
    users,
    groups,
  };
}

/** The same strings, made afresh one after another; a literal holding the separator keeps its own string. */
function packed(texts: string[]): string[] {
  if (texts.some((t) => t.includes("\u0000"))) return texts;
  return texts.join("\u0000").split("\u0000");
}

/**
 * Rebuilds the ready-to-decide policy from bundle data once per isolate and
 * revision: ACLs and filter lists as sets, filter expressions ready to
 * compile on first use, the rules' gates, the configured queue tree indexed
 * by lower-cased path with parent links. Linear in the data, with no regex
 * compiled, so the first decision after a publish stays cheap.
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
    partitions.set(p.name, {
      name: p.name,
      queues,
      rules,
      gates: gatesOf(rules),
      defaultQueue: p.defaultQueue,
    });
  }
  return { partitions };
}
