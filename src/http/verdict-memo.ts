/**
 * The first level of the verdict cache: a small per-isolate map from the exact
 * request text (with route and revision) to the verdict's JSON, so a repeated
 * question costs a map lookup instead of a Cache API round trip. The Cache API
 * (keyed by the canonical body hash) is the shared second level.
 */
import { decisionIdJson } from "./decision-log.js";
export class VerdictMemo {
  private readonly entries = new Map<
    string,
    { expires: number; outcome: string; json: string | null; chars: number }
  >();
  private chars = 0;

  constructor(
    private readonly maxEntries = 1000,
    /** Bodies longer than this are not worth a key of their own size. */
    readonly maxKeyBytes = 16 * 1024,
    /**
     * Characters of keys and verdicts held in all (about 2 to 4 MB): without it, 1,000
     * distinct bodies near the key limit with their verdicts kept 30 MB or more of an
     * isolate's 128 MB.
     */
    private readonly maxChars = 1_000_000,
  ) {}

  /** Characters of keys and verdict JSON held now (for tests). */
  get heldChars(): number {
    return this.chars;
  }

  /** The key of a request, or undefined when its body is too large to memoise. */
  key(path: string, revision: string, body: string): string | undefined {
    return body.length > this.maxKeyBytes ? undefined : `${path}\u0000${revision}\u0000${body}`;
  }

  /**
   * A live entry, refreshed as most recently used; expired ones are dropped.
   * `json: null` records that this request's verdict is not cacheable, so the
   * shared cache need not be asked again.
   */
  get(key: string, now: number): { outcome: string; json: string | null } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= now) {
      this.chars -= entry.chars;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores a verdict's JSON (without decision_id), or null for "not cacheable", until `expires`. */
  set(key: string, outcome: string, json: string | null, expires: number): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.chars -= old.chars;
    }
    const chars = key.length + (json?.length ?? 0);
    this.entries.set(key, { expires, outcome, json, chars });
    this.chars += chars;
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.entries.keys().next().value as string;
      this.chars -= (this.entries.get(oldest) as { chars: number }).chars;
      this.entries.delete(oldest);
    }
  }
}

/** Puts a fresh decision_id in front of a stored verdict's JSON without parsing it. */
export function withDecisionId(decisionId: string, verdictJson: string): string {
  return verdictJson === "{}"
    ? `{"decision_id":${decisionIdJson(decisionId)}}`
    : `{"decision_id":${decisionIdJson(decisionId)},${verdictJson.slice(1)}`;
}
