// @ts-check
/**
 * The server's headline figures, as the page shows them under its title: the
 * `metrics` object of `GET /v1/status` (the answering isolate's counters, the
 * same `GET /metrics` renders) turned into short phrases. Pure: Node tests
 * import it as the browser does.
 */

/**
 * @typedef {{
 *   scope?: string,
 *   uptime_seconds?: number,
 *   decisions?: Record<string, number>,
 *   cache?: { hits?: number, misses?: number, bypasses?: number, hit_ratio?: number | null },
 *   budget_exceeded?: number,
 *   revision_age_seconds?: number,
 * }} StatusMetrics
 */

/** `n thing` or `n things`. @param {number} n @param {string} one @param {string} [many] */
function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** A duration as its largest whole unit: `45 s`, `12 min`, `3 h`, `2 d`. @param {number} seconds */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

const isCount = (/** @type {unknown} */ v) => typeof v === "number" && Number.isFinite(v);

/**
 * The phrases for the figures a status carries, in a fixed order; empty when it
 * carries none (a server without metrics). Each figure missing from the status is
 * left out, so an older or newer server's status never breaks the line.
 * @param {{ metrics?: StatusMetrics } | null | undefined} status
 * @returns {string[]}
 */
export function statusFigures(status) {
  const m = status?.metrics;
  if (m === null || typeof m !== "object") return [];
  const out = [];
  const d = m.decisions;
  if (d && isCount(d.total)) {
    const parts = Object.entries(d)
      .filter(([k, v]) => k !== "total" && isCount(v) && v > 0)
      .map(([k, v]) => `${k} ${v}`);
    out.push(count(d.total, "decision") + (parts.length > 0 ? ` (${parts.join(", ")})` : ""));
  }
  const c = m.cache;
  if (c && isCount(c.hits) && isCount(c.misses)) {
    const hits = /** @type {number} */ (c.hits);
    const misses = /** @type {number} */ (c.misses);
    const looked = hits + misses;
    const ratio =
      looked === 0 ? "no lookups yet" : `${Math.round((hits / looked) * 100)}% hits (${hits} of ${looked})`;
    const bypasses =
      isCount(c.bypasses) && /** @type {number} */ (c.bypasses) > 0
        ? `, ${count(/** @type {number} */ (c.bypasses), "bypass", "bypasses")}`
        : "";
    out.push(`verdict cache ${ratio}${bypasses}`);
  }
  if (isCount(m.budget_exceeded))
    out.push(`${count(/** @type {number} */ (m.budget_exceeded), "budget")} exceeded`);
  if (isCount(m.revision_age_seconds))
    out.push(`policy compiled ${duration(/** @type {number} */ (m.revision_age_seconds))} ago`);
  if (isCount(m.uptime_seconds)) out.push(`up ${duration(/** @type {number} */ (m.uptime_seconds))}`);
  return out;
}

/**
 * Whose figures these are, for the line's lead: `This isolate` when the status
 * says they are per isolate (as `/v1/status` serves them), else `Server`.
 * @param {{ metrics?: StatusMetrics } | null | undefined} status
 */
export function figuresScope(status) {
  return status?.metrics?.scope === "isolate" ? "This isolate" : "Server";
}
