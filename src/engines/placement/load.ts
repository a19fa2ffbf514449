import { loadAcl } from "./acl.js";
import { LazyRegex } from "./filter.js";
import { loadGates } from "./gate-store.js";
import {
  isStoredPlacement,
  KIND_OF_LETTER,
  NamesReader,
  storePlacement,
  type StoredPartition,
  type StoredPlacement,
} from "./store.js";
import type {
  Acl,
  Filter,
  Partition,
  PlacementData,
  PlacementPolicy,
  QueueNode,
  Rule,
} from "./types.js";

/** The one empty name set every filter without names shares (read only). */
const NO_NAMES: ReadonlySet<string> = new Set<string>();

function nameSet(names: readonly string[]): ReadonlySet<string> {
  return names.length === 0 ? NO_NAMES : new Set(names);
}

/** The filters of a partition's columns, each distinct expression one LazyRegex that every filter using it shares. */
function loadFilters(p: StoredPartition): Filter[] {
  const e = p.exps;
  const exps = e.source.map((source, i) => new LazyRegex(source, e.prefix[i], e.required[i]));
  const fs = p.filters;
  const names = new NamesReader(fs);
  const filters: Filter[] = [];
  for (let i = 0; i < fs.flags.length; i++) {
    const bits = fs.flags.charCodeAt(i) - 48;
    const { users, groups } = names.next(i);
    const userExp = fs.userExp[i];
    const groupExp = fs.groupExp[i];
    filters.push({
      allow: (bits & 1) !== 0,
      empty: (bits & 2) !== 0,
      users: nameSet(users),
      groups: nameSet(groups),
      userExp: userExp < 0 ? null : exps[userExp],
      groupExp: groupExp < 0 ? null : exps[groupExp],
    });
  }
  return filters;
}

/** A partition's distinct rules (parents before the rules that name them), each built once and shared. */
function loadNodes(p: StoredPartition, filters: readonly Filter[]): Rule[] {
  const n = p.nodes;
  const nodes: Rule[] = [];
  for (let i = 0; i < n.kind.length; i++) {
    const parent = n.parent[i];
    nodes.push({
      kind: KIND_OF_LETTER[n.kind[i]],
      create: n.create.charCodeAt(i) === 49,
      filter: filters[n.filter[i]],
      parent: parent < 0 ? null : nodes[parent],
      value: n.value[i],
      qualified: n.qualified.charCodeAt(i) === 49,
    });
  }
  return nodes;
}

/** A partition's configured queues by lower-cased path, with parent links; equal ACLs share one loaded ACL. */
function loadQueues(p: StoredPartition): Map<string, QueueNode> {
  const acls: Acl[] = [];
  const names = new NamesReader(p.acls);
  for (let i = 0; i < p.acls.flags.length; i++)
    acls.push(loadAcl({ all: p.acls.flags.charCodeAt(i) === 49, ...names.next(i) }));
  const queues = new Map<string, QueueNode>();
  p.path.forEach((path, i) => {
    const dot = path.lastIndexOf(".");
    const parent = dot < 0 ? null : (queues.get(path.slice(0, dot)) ?? null);
    queues.set(path, {
      path,
      leaf: p.leaf.charCodeAt(i) === 49,
      submit: acls[p.submit[i]],
      admin: acls[p.admin[i]],
      parent,
    });
  });
  return queues;
}

/**
 * Rebuilds the ready-to-decide policy from bundle data once per isolate and
 * revision: ACLs and filter lists as sets, filter expressions ready to
 * compile on first use, the rules' gates, the configured queue tree indexed
 * by lower-cased path with parent links. Reads the stored columns
 * (store.ts), building each distinct ACL, filter, expression and rule once;
 * data of an older bundle is put in that form first. Linear in the data,
 * with no regex compiled, so the first decision after a publish stays cheap.
 */
export function loadPlacement(data: PlacementData | StoredPlacement): PlacementPolicy {
  const stored = isStoredPlacement(data) ? data : storePlacement(data);
  const partitions = new Map<string, Partition>();
  for (const p of stored.partitions) {
    const nodes = loadNodes(p, loadFilters(p));
    const rules = p.chain.map((i) => nodes[i]);
    partitions.set(p.name, {
      name: p.name,
      queues: loadQueues(p),
      rules,
      gates: loadGates(p),
      defaultQueue: p.defaultQueue,
    });
  }
  return { partitions };
}
