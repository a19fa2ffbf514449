// The bindings `env` from "cloudflare:test" carries: the Worker's own, plus the
// loopback fakes' base URL that vitest.config.ts binds for tests.
declare namespace Cloudflare {
  interface Env {
    POLICIES: KVNamespace;
    JOB_QUEUE: DurableObjectNamespace;
    HOST_POOL: DurableObjectNamespace;
    POLICY_COORDINATOR: DurableObjectNamespace;
    LOOPBACK_URL?: string;
    DOH_URL?: string;
    LOCAL_ADDRESSES?: string;
    BUNDLE_REFRESH_SECONDS?: string;
  }
}
