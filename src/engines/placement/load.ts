import type { Steps } from "../common/slices.js";
import { loadAcl } from "./acl.js";
import { loadGates } from "./gate-store.js";
import { LazyChain } from "./rule-chain.js";
import {
  isStoredPlacement,
  NamesReader,
  storePlacement,
  storePlacementSteps,
  type StoredPartition,
  type StoredPlacement,
} from "./store.js";
import type { Acl, Partition, PlacementData, PlacementPolicy, QueueNode } from "./types.js";

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
 * revision, from the stored columns (store.ts; data of an older bundle is put
 * in that form first): the configured queue tree indexed by lower-cased path
 * with parent links and ACLs as sets, the rules' gates as stored at publish,
 * and the chain of rules, each built (filter lists as sets, expressions ready
 * to compile) when a decision first reaches it (rule-chain.ts). Linear in the
 * queues and the rule count, with no rule built and no regex compiled, so the
 * first decision after a publish stays cheap.
 */
export function loadPlacement(data: PlacementData | StoredPlacement): PlacementPolicy {
  return loadStored(isStoredPlacement(data) ? data : storePlacement(data));
}

/**
 * {@link loadPlacement} as resumable work (common/slices.ts): plain data (a
 * diff's freshly compiled side) is put in the stored form in slices first.
 */
export function* loadPlacementSteps(data: PlacementData | StoredPlacement): Steps<PlacementPolicy> {
  const stored = isStoredPlacement(data) ? data : yield* storePlacementSteps(data);
  yield;
  return loadStored(stored);
}

function loadStored(stored: StoredPlacement): PlacementPolicy {
  const partitions = new Map<string, Partition>();
  for (const p of stored.partitions) {
    partitions.set(p.name, {
      name: p.name,
      queues: loadQueues(p),
      rules: new LazyChain(p),
      gates: loadGates(p),
      defaultQueue: p.defaultQueue,
    });
  }
  return { partitions };
}
