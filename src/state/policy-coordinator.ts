import { DurableObject } from "cloudflare:workers";
import { compileBundle, isEmbeddedPointer, sourcesOf, type Bundle, type BundleError } from "../bundle/index.js";
import type { EngineName } from "../engines/common/engine.js";
import type { Env } from "../env.js";
import { bundleKey, CURRENT_KEY, embeddedBundle, writeBundle } from "./policy-store.js";

/** What a publish asks for: one engine's new source, optionally only if the active revision is one of `ifMatch`. */
export interface PublishRequest {
  engine: EngineName;
  source: string;
  /** `*` or the revisions the caller's change was based on (the `If-Match` header); undefined when absent. */
  ifMatch?: "*" | string[];
  createdAt: string;
}

/** The coordinator's answer: the new revision, or why nothing was written. */
export type PublishOutcome =
  | { ok: true; revision: string; previous: string }
  | {
      ok: false;
      code: "precondition_failed" | "policy_invalid" | "service_unavailable";
      message: string;
      current?: string;
      errors?: BundleError[];
    };

/** The pointer as the coordinator last wrote it (or adopted it): revision and sequence number. */
interface Pointer {
  revision: string | null;
  sequence: number;
}

/**
 * The one writer of the policy pointer. KV has no compare-and-swap, so two
 * publishes that each read the active bundle, replace one engine and write the
 * pointer can lose one of the changes; routing every publish through this one
 * object, which runs them one at a time against the pointer it owns, makes each
 * publish build on the one before. The pointer it writes carries its sequence
 * number as KV metadata, so a pointer written outside it (`arbiter publish`,
 * `wrangler kv key put`) is recognised and adopted as the new base.
 */
export class PolicyCoordinator extends DurableObject<Env> {
  private current: Bundle | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS pointer (id INTEGER PRIMARY KEY CHECK (id = 1), revision TEXT, sequence INTEGER NOT NULL)",
    );
  }

  /** Publishes one engine's source on top of the active bundle; no other publish runs until this one is written. */
  async publish(request: PublishRequest): Promise<PublishOutcome> {
    let outcome: PublishOutcome | undefined;
    await this.ctx.blockConcurrencyWhile(async () => {
      try {
        outcome = await this.publishNow(request);
      } catch (e) {
        outcome = {
          ok: false,
          code: "service_unavailable",
          message: `the policy store failed: ${(e as Error).message}`,
        };
      }
    });
    return outcome!;
  }

  /** The active revision as the coordinator knows it, for tests and status. */
  async activeRevision(): Promise<string> {
    return (await this.base()).bundle.revision;
  }

  private stored(): Pointer {
    const row = this.ctx.storage.sql
      .exec<{ revision: string | null; sequence: number }>(
        "SELECT revision, sequence FROM pointer WHERE id = 1",
      )
      .toArray()[0];
    return row ?? { revision: null, sequence: 0 };
  }

  private store(p: Pointer): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO pointer (id, revision, sequence) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, sequence = excluded.sequence",
      p.revision,
      p.sequence,
    );
  }

  /**
   * The bundle the next publish builds on. The coordinator's own record wins,
   * unless KV holds a pointer written outside it (no sequence metadata) or a
   * later write of its own whose record was lost; those are adopted.
   */
  private async base(): Promise<{ bundle: Bundle; pointer: Pointer }> {
    let pointer = this.stored();
    const kv = await this.env.POLICIES.getWithMetadata<{ coordinator?: number }>(CURRENT_KEY);
    const written = kv.metadata?.coordinator;
    if (kv.value !== null && kv.value !== pointer.revision) {
      if (written === undefined || written > pointer.sequence)
        pointer = { revision: kv.value, sequence: Math.max(pointer.sequence, written ?? 0) };
    }
    if (isEmbeddedPointer(pointer.revision)) return { bundle: embeddedBundle(), pointer };
    if (this.current?.revision !== pointer.revision) {
      const bundle = await this.env.POLICIES.get<Bundle>(bundleKey(pointer.revision), "json");
      if (bundle === null || bundle.revision !== pointer.revision)
        throw new Error(`the active bundle \`${pointer.revision}\` cannot be read`);
      this.current = bundle;
    }
    return { bundle: this.current, pointer };
  }

  private async publishNow(request: PublishRequest): Promise<PublishOutcome> {
    const { bundle: base, pointer } = await this.base();
    const match = request.ifMatch;
    if (match !== undefined && match !== "*" && !match.includes(base.revision)) {
      return {
        ok: false,
        code: "precondition_failed",
        message: `the active revision is \`${base.revision}\`, not ${match.map((m) => `\`${m}\``).join(" or ")}`,
        current: base.revision,
      };
    }
    const compiled = await compileBundle(
      { ...sourcesOf(base), [request.engine]: request.source },
      request.createdAt,
    );
    if (!compiled.ok) {
      const first = compiled.error[0];
      return {
        ok: false,
        code: "policy_invalid",
        message: `the \`${first.engine}\` policy is invalid: ${first.message}${first.at ? ` (at ${first.at})` : ""}`,
        errors: compiled.error,
        current: base.revision,
      };
    }
    const next: Pointer = { revision: compiled.value.revision, sequence: pointer.sequence + 1 };
    await writeBundle(this.env, compiled.value, next.sequence);
    this.store(next);
    this.current = compiled.value;
    return { ok: true, revision: compiled.value.revision, previous: base.revision };
  }
}
