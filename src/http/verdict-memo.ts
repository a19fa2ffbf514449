/**
 * The first level of the verdict cache: a small per-isolate map from the exact
 * request text (with route and revision) to the verdict's JSON, so a repeated
 * question costs a map lookup instead of a Cache API round trip. The Cache API
 * (keyed by the canonical body hash) is the shared second level.
 */
export class VerdictMemo {
  private readonly entries = new Map<string, { expires: number; outcome: string; json: string | null }>();

  constructor(
    private readonly maxEntries = 1000,
    /** Bodies longer than this are not worth a key of their own size. */
    readonly maxKeyBytes = 16 * 1024,
  ) {}

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
    if (entry.expires <= now) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores a verdict's JSON (without decision_id), or null for "not cacheable", until `expires`. */
  set(key: string, outcome: string, json: string | null, expires: number): void {
    this.entries.delete(key);
    this.entries.set(key, { expires, outcome, json });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** Puts a fresh decision_id in front of a stored verdict's JSON without parsing it. */
export function withDecisionId(decisionId: string, verdictJson: string): string {
  return verdictJson === "{}" ? `{"decision_id":${JSON.stringify(decisionId)}}` : `{"decision_id":${JSON.stringify(decisionId)},${verdictJson.slice(1)}`;
}
