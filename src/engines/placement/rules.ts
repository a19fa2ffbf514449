import { filterAllows } from "./filter.js";
import {
  allPartsValid,
  FORCE_TAG,
  INVALID_QUEUE_NAME,
  isQueueNameValid,
  parseGoBoolTrue,
  RECOVERY_QUEUE,
  replaceDot,
} from "./names.js";
import type { Rule } from "./types.js";
import type { QueueView } from "./view.js";

/**
 * What the rules read while placing one application. `error` is set when a
 * rule fails (which rejects the application); `why` says, when explaining,
 * why a rule produced nothing.
 */
export interface PlaceContext {
  readonly user: string;
  readonly groups: readonly string[];
  readonly queue: string;
  readonly tags: Readonly<Record<string, string>> | undefined;
  /** The tags by lower-cased key (the first key of each folding), built on the first case-insensitive lookup. */
  folded: Map<string, string> | null;
  readonly view: QueueView;
  readonly explain: boolean;
  error: string | null;
  why: string;
}

/**
 * Reads a tag whose key matches case-insensitively; the exact key is tried
 * first. The tags are folded once per decision (on the first miss), so that a
 * chain of thousands of tag rules over a request of thousands of tags costs
 * rules + tags, not their product.
 */
export function tagValue(ctx: PlaceContext, name: string): string {
  const tags = ctx.tags;
  if (tags === undefined) return "";
  if (Object.hasOwn(tags, name)) return tags[name];
  let folded = ctx.folded;
  if (folded === null) {
    folded = new Map();
    for (const key in tags) {
      const lower = key.toLowerCase();
      if (!folded.has(lower)) folded.set(lower, tags[key]);
    }
    ctx.folded = folded;
  }
  return folded.get(name) ?? "";
}

function nothing(ctx: PlaceContext, why: string): null {
  if (ctx.explain) ctx.why = why;
  return null;
}

function failed(ctx: PlaceContext, error: string): null {
  ctx.error = error;
  return null;
}

/** Resolves the parent part of a non-qualified name and appends the child level. */
function underParent(rule: Rule, ctx: PlaceContext, child: string): string | null {
  if (rule.parent === null) return "root." + child;
  const produced = placeRule(rule.parent, ctx);
  if (ctx.error !== null) return null;
  if (produced === null) {
    if (ctx.explain) ctx.why = `parent rule ${rule.parent.kind} produced nothing (${ctx.why})`;
    return null;
  }
  const parent = produced.startsWith("root.") ? produced : "root." + produced;
  const lower = parent.toLowerCase();
  if (ctx.view.exists(lower) && ctx.view.isLeaf(lower))
    return failed(ctx, `parent rule returned a leaf queue: ${parent}`);
  return parent + "." + child;
}

/** A queue name from the request or a tag: a `root.` path as is, otherwise one level under the parent. */
function fromName(rule: Rule, ctx: PlaceContext, name: string): string | null {
  if (name.startsWith("root.")) {
    return allPartsValid(name) ? name : failed(ctx, INVALID_QUEUE_NAME);
  }
  const child = replaceDot(name);
  if (!isQueueNameValid(child)) return failed(ctx, INVALID_QUEUE_NAME);
  return underParent(rule, ctx, child);
}

function createCheck(rule: Rule, ctx: PlaceContext, candidate: string | null): string | null {
  if (candidate === null || rule.create || ctx.view.exists(candidate.toLowerCase())) return candidate;
  return nothing(ctx, `queue ${candidate.toLowerCase()} does not exist and create is false`);
}

/**
 * Runs one rule (and, through `parent`, the rules above it) for an
 * application: a candidate queue path in the case the rule built it, or null
 * when the rule does not apply or failed (then `ctx.error` is set).
 */
export function placeRule(rule: Rule, ctx: PlaceContext): string | null {
  switch (rule.kind) {
    case "provided": {
      if (ctx.queue === "") return nothing(ctx, "no queue in the request");
      if (!filterAllows(rule.filter, ctx.user, ctx.groups))
        return nothing(ctx, "filter does not admit the user");
      return createCheck(rule, ctx, fromName(rule, ctx, ctx.queue));
    }
    case "user": {
      if (!filterAllows(rule.filter, ctx.user, ctx.groups))
        return nothing(ctx, "filter does not admit the user");
      const child = replaceDot(ctx.user);
      if (!isQueueNameValid(child)) return failed(ctx, INVALID_QUEUE_NAME);
      return createCheck(rule, ctx, underParent(rule, ctx, child));
    }
    case "fixed": {
      if (!filterAllows(rule.filter, ctx.user, ctx.groups))
        return nothing(ctx, "filter does not admit the user");
      return createCheck(rule, ctx, rule.qualified ? rule.value : underParent(rule, ctx, rule.value));
    }
    case "tag": {
      const value = tagValue(ctx, rule.value);
      if (value === "") return nothing(ctx, `tag ${rule.value} is not set`);
      if (!filterAllows(rule.filter, ctx.user, ctx.groups))
        return nothing(ctx, "filter does not admit the user");
      return createCheck(rule, ctx, fromName(rule, ctx, value));
    }
  }
}

/** The internal last rule: the recovery queue, only for applications that force creation. */
export function placeRecovery(ctx: PlaceContext): string | null {
  if (parseGoBoolTrue(tagValue(ctx, FORCE_TAG))) return RECOVERY_QUEUE;
  return nothing(ctx, `application is not forced (tag ${FORCE_TAG})`);
}
