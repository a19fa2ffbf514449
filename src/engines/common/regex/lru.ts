/**
 * Bounded caches for what arrives with requests: a least-recently-used map
 * bounded by entries and, through a pool several maps share, by estimated
 * bytes (issue 24 item 10).
 */
/**
 * A byte budget several caches share (estimated bytes, as each map weighs its entries):
 * a cache making room first drops its own least recently used entries, and
 * when what the others hold leaves no room, every member is emptied.
 */
export class CachePool {
  bytes = 0;
  /**
   * The one latest entry over {@link maxEntryBytes}, kept outside the byte
   * count so that a decision using a heavy pattern again (for each ad it
   * reads) does not compile it again each time: at most one in the pool.
   */
  heavy: { owner: unknown; key: string; value: unknown } | undefined;
  private readonly members = new Set<{ clear(): void }>();

  constructor(
    readonly maxBytes: number,
    /** An entry estimated above this is kept only as the pool's one {@link heavy} entry. */
    readonly maxEntryBytes: number,
  ) {}

  /** Adds a cache to the pool (until it leaves). */
  join(member: { clear(): void }): void {
    this.members.add(member);
  }

  /** Takes a cache out of the pool (emptied first by its owner). */
  leave(member: { clear(): void }): void {
    this.members.delete(member);
  }

  /** Empties every member. */
  clear(): void {
    for (const m of this.members) m.clear();
    this.heavy = undefined;
  }
}

/**
 * A bounded least-recently-used map, for patterns that arrive with requests:
 * at most `capacity` entries and, with a pool, at most the pool's bytes.
 * A hit only stamps the entry; the oldest stamp is found when a miss must evict.
 */
export class Lru<V> {
  private readonly map = new Map<string, { v: V; t: number; w: number }>();
  private tick = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh?: (v: V) => number,
    private readonly pool?: CachePool,
  ) {
    pool?.join(this);
  }

  /** The value for `key`, marking it recently used. */
  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) {
      const h = this.pool?.heavy;
      return h !== undefined && h.owner === this && h.key === key ? (h.value as V) : undefined;
    }
    e.t = ++this.tick;
    return e.v;
  }

  /** Stores a value, dropping the least recently used entries while full (by count, or by the pool's bytes). */
  set(key: string, value: V): void {
    const old = this.map.get(key);
    if (old !== undefined) this.remove(key, old.w);
    const pool = this.pool;
    const w = pool === undefined ? 0 : (this.weigh?.(value) ?? 0);
    if (pool !== undefined && w > pool.maxEntryBytes) {
      pool.heavy = { owner: this, key, value };
      return;
    }
    while (this.map.size >= this.capacity) this.evictOldest();
    if (pool !== undefined) {
      while (pool.bytes + w > pool.maxBytes && this.map.size > 0) this.evictOldest();
      if (pool.bytes + w > pool.maxBytes) pool.clear();
      pool.bytes += w;
    }
    this.map.set(key, { v: value, t: ++this.tick, w });
  }

  /** Drops every entry. */
  clear(): void {
    const pool = this.pool;
    if (pool !== undefined) {
      for (const e of this.map.values()) pool.bytes -= e.w;
      if (pool.heavy?.owner === this) pool.heavy = undefined;
    }
    this.map.clear();
  }

  /** Empties the cache and takes it out of its pool, for a cache that is thrown away. */
  dispose(): void {
    this.clear();
    this.pool?.leave(this);
  }

  private evictOldest(): void {
    let oldest = "";
    let t = Infinity;
    let w = 0;
    for (const [k, e] of this.map) {
      if (e.t < t) {
        t = e.t;
        oldest = k;
        w = e.w;
      }
    }
    this.remove(oldest, w);
  }

  private remove(key: string, w: number): void {
    this.map.delete(key);
    if (this.pool !== undefined) this.pool.bytes -= w;
  }

  /** Entries held. */
  get size(): number {
    return this.map.size;
  }
}
