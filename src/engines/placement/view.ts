import { aclAllows } from "./acl.js";
import { RECOVERY_QUEUE } from "./names.js";
import type { ExistingQueue, QueueNode } from "./types.js";
import { keepShape } from "../common/shapes.js";

/** A dynamic queue the request says exists: no ACLs, its kind and draining flag. */
interface DynamicQueue {
  leaf: boolean;
  draining: boolean;
}

/**
 * The queue tree one decision sees: the configured queues (which win) plus the
 * request's existing dynamic queues and their implied ancestors. Paths are
 * lower-case; lookups never allocate beyond the caller's lower-casing.
 */
export class QueueView {
  private readonly dynamic: Map<string, DynamicQueue> | null;

  constructor(
    private readonly configured: ReadonlyMap<string, QueueNode>,
    existing: readonly ExistingQueue[] | undefined,
  ) {
    this.dynamic = existing === undefined || existing.length === 0 ? null : buildDynamic(existing);
  }

  /** Whether a lower-cased path exists (configured or reported). */
  exists(path: string): boolean {
    return this.configured.has(path) || (this.dynamic !== null && this.dynamic.has(path));
  }

  /** Whether an existing queue is a leaf; configured kinds win over reported ones. */
  isLeaf(path: string): boolean {
    const node = this.configured.get(path);
    if (node !== undefined) return node.leaf;
    return this.dynamic?.get(path)?.leaf ?? false;
  }

  /** Whether the request reported the queue as draining (applies to configured queues too). */
  isDraining(path: string): boolean {
    return this.dynamic?.get(path)?.draining ?? false;
  }

  /** The deepest existing queue at or above a lower-cased path (root always exists). */
  deepestExisting(path: string): string {
    let p = path;
    while (!this.exists(p)) {
      const dot = p.lastIndexOf(".");
      if (dot < 0) return "root";
      p = p.slice(0, dot);
    }
    return p;
  }

  /**
   * Submit access at an existing queue: its submit or admin ACL, else its
   * parent's, up to root; dynamic queues have no ACLs and the recovery queue
   * refuses everyone.
   */
  submitAllowed(path: string, user: string, groups: readonly string[]): boolean {
    let p = path;
    for (;;) {
      if (p === RECOVERY_QUEUE) return false;
      const node = this.configured.get(p);
      if (node !== undefined) {
        for (let n: QueueNode | null = node; n !== null; n = n.parent) {
          if (aclAllows(n.submit, user, groups) || aclAllows(n.admin, user, groups)) return true;
        }
        return false;
      }
      const dot = p.lastIndexOf(".");
      if (dot < 0) return false;
      p = p.slice(0, dot);
    }
  }
}

function buildDynamic(existing: readonly ExistingQueue[]): Map<string, DynamicQueue> {
  const out = new Map<string, DynamicQueue>();
  for (const e of existing) {
    const path = e.path.toLowerCase();
    if (path !== "root" && !path.startsWith("root.")) continue;
    const leaf = e.leaf ?? e.kind !== "parent";
    const prev = out.get(path);
    out.set(path, {
      leaf: prev === undefined ? leaf : prev.leaf && leaf,
      draining: (prev?.draining ?? false) || e.draining === true,
    });
    for (let dot = path.lastIndexOf("."); dot > 0; dot = path.lastIndexOf(".", dot - 1)) {
      const up = path.slice(0, dot);
      const seen = out.get(up);
      if (seen === undefined) out.set(up, { leaf: false, draining: false });
      else seen.leaf = false;
    }
  }
  return out;
}

/** A view kept alive so that its map, and the optimized code that checks it, outlive each decision (common/shapes.ts): no dynamic queues, as most requests. */
keepShape(new QueueView(new Map(), undefined));
