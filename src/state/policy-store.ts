import { LoadedBundle, type Bundle } from "../bundle/index.js";
import embedded from "../bundle/embedded.generated.json";
import { numberVar, type Env } from "../env.js";

/** KV key of the active revision's pointer. */
export const CURRENT_KEY = "bundle:current";

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

const embeddedLoaded = new LoadedBundle(embedded as unknown as Bundle);
const recent = new Map<string, LoadedBundle>([[embeddedLoaded.revision, embeddedLoaded]]);
let active: LoadedBundle = embeddedLoaded;
let info: BundleInfo = { source: "embedded", activatedAt: Date.now(), checkedAt: 0 };

/** The bundle compiled from `policies/` at build time, which serves when KV holds none. */
export function embeddedBundle(): Bundle {
  return embeddedLoaded.bundle;
}

/**
 * The bundle to decide with. Each isolate keeps the loaded bundle by revision
 * and re-reads the KV pointer at most every BUNDLE_REFRESH_SECONDS, so a
 * publish reaches every isolate within that interval without a KV read per
 * decision. A KV failure keeps the bundle this isolate already has.
 */
export async function getActiveBundle(env: Env, now = Date.now()): Promise<LoadedBundle> {
  const refreshMs = numberVar(env.BUNDLE_REFRESH_SECONDS, 5) * 1000;
  if (info.checkedAt !== 0 && now - info.checkedAt < refreshMs) return active;
  try {
    const revision = await env.POLICIES.get(CURRENT_KEY);
    if (revision === null) {
      activate(embeddedLoaded, "embedded", now);
    } else if (revision !== active.revision || info.source !== "kv") {
      const loaded = recent.get(revision) ?? (await readBundle(env, revision));
      if (loaded) activate(loaded, "kv", now);
    }
  } catch (e) {
    console.error(JSON.stringify({ ts: new Date(now).toISOString(), event: "bundle_refresh_failed", error: String(e) }));
  }
  info.checkedAt = now;
  return active;
}

/** This isolate's view of the active bundle, for `/v1/status`. */
export function bundleInfo(): BundleInfo & { revision: string; createdAt: string } {
  return { ...info, revision: active.revision, createdAt: active.bundle.created_at };
}

async function readBundle(env: Env, revision: string): Promise<LoadedBundle | undefined> {
  const bundle = await env.POLICIES.get<Bundle>(bundleKey(revision), "json");
  if (!bundle || bundle.revision !== revision) return undefined;
  const loaded = new LoadedBundle(bundle);
  recent.set(revision, loaded);
  while (recent.size > 4) recent.delete(recent.keys().next().value as string);
  return loaded;
}

function activate(loaded: LoadedBundle, source: BundleInfo["source"], now: number): void {
  if (loaded !== active || source !== info.source) info = { source, activatedAt: now, checkedAt: now };
  active = loaded;
}

/**
 * Makes a compiled bundle active: the bundle is written first and the pointer
 * second, so a reader never follows a pointer to a bundle that is not there.
 */
export async function publishBundle(env: Env, bundle: Bundle, now = Date.now()): Promise<void> {
  await env.POLICIES.put(bundleKey(bundle.revision), JSON.stringify(bundle));
  await env.POLICIES.put(CURRENT_KEY, bundle.revision);
  const loaded = recent.get(bundle.revision) ?? new LoadedBundle(bundle);
  recent.set(bundle.revision, loaded);
  activate(loaded, "kv", now);
}
