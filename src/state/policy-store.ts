import { isEmbeddedPointer, jsonBytesSteps, LoadedBundle, type Bundle } from "../bundle/index.js";
import { finishInSlices } from "../engines/common/slices.js";
import embedded from "../bundle/embedded.generated.json";
import { numberVar, type Env } from "../env.js";
import type { CandidateRecord } from "./shadow-tables.js";
import { writeLog } from "../log-line.js";

/** KV key of the active revision's pointer. */
export const CURRENT_KEY = "bundle:current";

/** KV key of the staged candidate: JSON of its CandidateRecord (absent when none is staged). */
export const CANDIDATE_KEY = "bundle:candidate";

/** KV key of one bundle. */
export function bundleKey(revision: string): string {
  return `bundle:${revision}`;
}

/** Where the active bundle came from and when this isolate took it. */
export interface BundleInfo {
  source: "embedded" | "kv";
  activatedAt: number;
  checkedAt: number;
}

/** How many loaded bundles an isolate keeps besides the active one (a rollback or a flip back is then free). */
export const RECENT_BUNDLES = 3;

const embeddedLoaded = new LoadedBundle(embedded as unknown as Bundle);
const recent = new Map<string, LoadedBundle>();
let active: LoadedBundle = embeddedLoaded;
let info: BundleInfo = { source: "embedded", activatedAt: Date.now(), checkedAt: 0 };

/** Keeps a loaded bundle among the recent ones, dropping the least recently used past the bound. */
function remember(loaded: LoadedBundle): void {
  recent.delete(loaded.revision);
  recent.set(loaded.revision, loaded);
  while (recent.size > RECENT_BUNDLES) recent.delete(recent.keys().next().value as string);
}

/** How many loaded bundles this isolate holds (the active one, the embedded one and the recent ones), for tests. */
export function loadedBundleCount(): number {
  const all = new Set<LoadedBundle>([active, embeddedLoaded, ...recent.values()]);
  return all.size;
}

/** The bundle compiled from `policies/` at build time, which serves when KV holds none. */
export function embeddedBundle(): Bundle {
  return embeddedLoaded.bundle;
}

/** The fingerprint of the compiler this build runs (the embedded bundle's `compiler`; scripts/compiler-id.mjs), or undefined when the build wrote none. */
export function compilerId(): string | undefined {
  return embeddedLoaded.bundle.compiler;
}

/** The staged candidate as this isolate last read it, loaded. */
export interface LiveCandidate {
  record: CandidateRecord;
  loaded: LoadedBundle;
}
let candidate: LiveCandidate | null = null;

/** The candidate this isolate knows of (as of its last pointer read), or null; read synchronously on the hot path. */
export function candidateNow(): LiveCandidate | null {
  return candidate;
}

/**
 * When the re-read of the pointer under way in this isolate started (`Date.now()`), or NaN when none is;
 * `readingId` tells one re-read from the next. Numbers, not an object per re-read: such an object lived only
 * while a read was under way, so a full collection between reads took its hidden class, and with it the
 * optimized code of {@link bundleWithoutRead}, which every decision runs (docs/performance.md, wt/stall5).
 */
let readingSince = NaN;
let readingId = 0;
/** Bumped when a publish makes the last read stale, so a read started before it does not count as fresh. */
let generation = 0;

/**
 * What {@link getActiveBundle} answers without reading KV, synchronously: the bundle this
 * isolate has while its view is fresh (or another request is re-reading it), else undefined.
 * A decision route asks this first, so the usual request makes no promise for its bundle.
 */
export function bundleWithoutRead(env: Env, now = Date.now()): LoadedBundle | undefined {
  if (info.checkedAt === 0) return undefined;
  const refreshMs = numberVar(env.BUNDLE_REFRESH_SECONDS, 5) * 1000;
  if (now - info.checkedAt < refreshMs) return active;
  if (now - readingSince < refreshMs) return active;
  return undefined;
}

/**
 * The bundle to decide with. Each isolate keeps the loaded bundle by revision
 * and re-reads the KV pointer at most every BUNDLE_REFRESH_SECONDS, so a
 * publish reaches every isolate within that interval (and one KV read) without
 * a KV read per decision. A KV failure keeps the bundle this isolate already has.
 *
 * No request ever waits on a read another request started: workerd ties I/O to
 * the request that made it, and cancels as hung a request left waiting only on
 * another's. While one request re-reads, the others decide with the bundle the
 * isolate has (at most an interval old); only an isolate with no checked view
 * yet (cold, or just after its own publish) makes each such request read for
 * itself. A read whose request was cancelled never settles; after an interval it
 * no longer holds the others back.
 */
export async function getActiveBundle(env: Env, now = Date.now()): Promise<LoadedBundle> {
  const fresh = bundleWithoutRead(env, now);
  if (fresh !== undefined) return fresh;
  const mine = ++readingId;
  readingSince = now;
  try {
    return await refresh(env, now, generation);
  } finally {
    if (readingId === mine) readingSince = NaN;
  }
}

async function refresh(env: Env, now: number, started: number): Promise<LoadedBundle> {
  try {
    const [revision, staged] = await Promise.all([
      env.POLICIES.get(CURRENT_KEY),
      env.POLICIES.get(CANDIDATE_KEY),
    ]);
    await adoptCandidate(env, staged);
    if (isEmbeddedPointer(revision)) {
      activate(embeddedLoaded, "embedded", now);
    } else if (revision !== active.revision || info.source !== "kv") {
      const known = revision === embeddedLoaded.revision ? embeddedLoaded : recent.get(revision);
      if (known && known !== embeddedLoaded) remember(known);
      const loaded = known ?? (await readBundle(env, revision));
      if (loaded) activate(loaded, "kv", now);
    }
  } catch (e) {
    writeLog({ ts: new Date(now).toISOString(), event: "bundle_refresh_failed", error: String(e) }, "error");
  }
  if (started === generation) info.checkedAt = now;
  return active;
}

/** Takes the candidate the pointer names (loading its bundle once per staging), or drops it. */
async function adoptCandidate(env: Env, text: string | null): Promise<void> {
  if (text === null) {
    candidate = null;
    return;
  }
  const record = JSON.parse(text) as CandidateRecord;
  if (candidate?.record.id === record.id) return;
  const loaded = recent.get(record.revision) ?? (await readBundle(env, record.revision));
  candidate = loaded ? { record, loaded } : null;
}

/** This isolate's view of the active bundle, for `/v1/status`. */
export function bundleInfo(): BundleInfo & { revision: string; createdAt: string } {
  return { ...info, revision: active.revision, createdAt: active.bundle.created_at };
}

/**
 * Reads and loads a bundle, unless another request of this isolate has loaded it
 * while this one read: requests of a cold isolate each read for themselves, but
 * only the first to get its answer parses (a bundle with large CIDR lists is
 * megabytes of JSON) and the rest take its loaded bundle.
 */
async function readBundle(env: Env, revision: string): Promise<LoadedBundle | undefined> {
  const text = await env.POLICIES.get(bundleKey(revision));
  const known = recent.get(revision);
  if (known !== undefined) return known;
  if (text === null) return undefined;
  const bundle = JSON.parse(text) as Bundle;
  if (bundle.revision !== revision) return undefined;
  // engines whose compiled entry is unchanged keep the policy this isolate has loaded already
  const earlier = [active, ...(candidate ? [candidate.loaded] : []), embeddedLoaded, ...recent.values()];
  const loaded = new LoadedBundle(bundle, earlier);
  remember(loaded);
  return loaded;
}

function activate(loaded: LoadedBundle, source: BundleInfo["source"], now: number): void {
  if (loaded !== active || source !== info.source)
    info = { source, activatedAt: now, checkedAt: info.checkedAt };
  active = loaded;
}

/**
 * Writes a compiled bundle and moves the pointer to it: the bundle first and the
 * pointer second, so a reader never follows a pointer to a bundle that is not
 * there. Only the publish coordinator calls it (it owns the pointer); the
 * pointer carries the coordinator's sequence number as KV metadata, which is how
 * the coordinator tells its own writes from ones made outside it.
 */
export async function writeBundle(env: Env, bundle: Bundle, sequence: number): Promise<void> {
  // the text of a large bundle (megabytes) is written and encoded a slice at a time, so the isolate serves requests meanwhile
  await env.POLICIES.put(bundleKey(bundle.revision), await finishInSlices(jsonBytesSteps(bundle)));
  await env.POLICIES.put(CURRENT_KEY, bundle.revision, { metadata: { coordinator: sequence } });
}

/** Makes this isolate re-read the pointer on its next decision, after a publish it has just made. */
export function expireBundleCheck(): void {
  generation++;
  readingSince = NaN;
  info.checkedAt = 0;
}
