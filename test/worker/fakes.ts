import { env, SELF } from "cloudflare:test";

/** Test-only bindings the vitest config adds beside the Worker's own. */
interface TestBindings {
  LOOPBACK_URL: string;
  DOH_URL: string;
  LOCAL_ADDRESSES: string;
}

/** The loopback server's base URL, as the vitest config binds it. */
export function loopbackUrl(): string {
  return (env as unknown as TestBindings).LOOPBACK_URL;
}

/** What a fake answers: HTTP status, body (string as is, else JSON), content type, delay. */
export interface FakeReply {
  status?: number;
  body?: unknown;
  contentType?: string;
  delayMs?: number;
}

async function control(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${loopbackUrl()}${path}`, { method: "POST", body: JSON.stringify(body) });
  if (res.status !== 204)
    throw new Error(`loopback control ${path} answered ${res.status}: ${await res.text()}`);
}

/** Sets the DoH fake's answer for one name and type (a raw reply). */
export async function setDoh(
  name: string,
  type: "A" | "AAAA" | "PTR" | "TXT",
  reply: FakeReply,
): Promise<void> {
  await control("/_control/dns", { name, type, reply });
}

const TYPE_NUMBER = { A: 1, PTR: 12, TXT: 16, AAAA: 28 } as const;

/** Sets a NOERROR answer carrying `data` records of the type, with a TTL. */
export async function setDohRecords(
  name: string,
  type: "A" | "AAAA" | "PTR" | "TXT",
  data: string[],
  ttl = 300,
  delayMs?: number,
): Promise<void> {
  const Answer = data.map((d) => ({ name, type: TYPE_NUMBER[type], TTL: ttl, data: d }));
  await setDoh(name, type, { body: { Status: 0, Answer }, delayMs });
}

/** Sets what GET /lists/<id> answers. */
export async function setList(id: string, reply: FakeReply): Promise<void> {
  await control(`/_control/lists/${encodeURIComponent(id)}`, reply);
}

/** The URL the list `id` is served at. */
export function listUrl(id: string): string {
  return `${loopbackUrl()}/lists/${encodeURIComponent(id)}`;
}

/** How often the DoH fake was asked for a name and type. */
export async function dohHits(name: string, type: "A" | "AAAA" | "PTR" | "TXT"): Promise<number> {
  return hits(`dns:${name.toLowerCase().replace(/\.$/, "")} ${type}`);
}

/** How often the list fake was asked for a list. */
export async function listHits(id: string): Promise<number> {
  return hits(`list:${id}`);
}

async function hits(key: string): Promise<number> {
  const res = await fetch(`${loopbackUrl()}/_control/hits?key=${encodeURIComponent(key)}`);
  return ((await res.json()) as { hits: number }).hits;
}

/** The reverse-lookup name of an IPv4 address. */
export function ptrName(ipv4: string): string {
  return `${ipv4.split(".").reverse().join(".")}.in-addr.arpa`;
}

/** A unique suffix so tests sharing the loopback server never see each other's answers. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export const BASE = "http://arbiter.test";

/** A limits verdict as the route answers it. */
export interface LimitsAnswer {
  decision_id: string;
  revision: string;
  cacheable: boolean;
  allowed: boolean;
  task: Record<string, unknown> | null;
  changes: unknown[];
  identifiers: string[];
  classifiers: string[];
  priority: number | null;
  diagnostics: string;
}

/** POSTs a limits request through the Worker and returns the status and parsed body. */
export async function decideLimits(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: LimitsAnswer; response: Response }> {
  const response = await SELF.fetch(`${BASE}/v1/limits/decide`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as LimitsAnswer, response };
}

/** Publishes a limits policy through the admin route, failing the test when it is refused. */
export async function publishLimits(policy: unknown): Promise<string> {
  const response = await SELF.fetch(`${BASE}/v1/policies/limits`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: typeof policy === "string" ? policy : JSON.stringify(policy, null, 2),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`publishing the limits policy answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { revision: string }).revision;
}

/** A throughput task as pScheduler submits one. */
export function throughputTask(spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: 1,
    test: { type: "throughput", spec: { schema: 1, dest: "ps.example.net", duration: "PT30S", ...spec } },
  };
}
