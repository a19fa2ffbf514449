import { env } from "cloudflare:test";

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
  if (res.status !== 204) throw new Error(`loopback control ${path} answered ${res.status}: ${await res.text()}`);
}

/** Sets the DoH fake's answer for one name and type (a raw reply). */
export async function setDoh(name: string, type: "A" | "AAAA" | "PTR", reply: FakeReply): Promise<void> {
  await control("/_control/dns", { name, type, reply });
}

const TYPE_NUMBER = { A: 1, PTR: 12, AAAA: 28 } as const;

/** Sets a NOERROR answer carrying `data` records of the type, with a TTL. */
export async function setDohRecords(
  name: string,
  type: "A" | "AAAA" | "PTR",
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

/** How often the fake was asked for a key (`dns:<name> <TYPE>` or `list:<id>`). */
export async function hits(key: string): Promise<number> {
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
