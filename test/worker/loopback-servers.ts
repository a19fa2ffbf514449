import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  interface ProvidedContext {
    loopbackPort: number;
  }
}

/**
 * The loopback fakes the Worker tests talk to, standing in for the outside
 * world: a DNS-over-HTTPS resolver (JSON API) at /dns-query and a CIDR list
 * server at /lists/<id>. Tests configure them over HTTP from inside workerd:
 *
 * - POST /_control/dns   {name, type, reply: {status?, body?, delayMs?}}  sets one DoH answer
 *   (`body` is the DoH JSON, `status` the HTTP status, `delayMs` a delay before answering);
 *   a name with no answer set gets NXDOMAIN (Status 3) with a 60 s SOA.
 * - POST /_control/lists/<id>  {status?, body?, contentType?, delayMs?}  sets what GET /lists/<id>
 *   answers; an id with nothing set is a 404.
 * - GET /_control/hits?key=<"dns:<name> <TYPE>" | "list:<id>">  → {hits}: how often it was asked
 *   (names lower-cased, without a trailing dot).
 *
 * The state is shared by every test file, so each test uses names and ids of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dns = new Map<string, Reply>();
  const lists = new Map<string, Reply>();
  const hits = new Map<string, number>();
  const count = (key: string) => hits.set(key, (hits.get(key) ?? 0) + 1);

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, "text/plain", String(e)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://loopback");
    const path = url.pathname;
    if (req.method === "GET" && path === "/dns-query") {
      const key = `${dnsName(url.searchParams.get("name") ?? "")} ${url.searchParams.get("type") ?? ""}`;
      count(`dns:${key}`);
      const reply = dns.get(key) ?? NXDOMAIN;
      return answer(res, reply, "application/dns-json");
    }
    if (req.method === "GET" && path.startsWith("/lists/")) {
      const id = decodeURIComponent(path.slice("/lists/".length));
      count(`list:${id}`);
      return answer(res, lists.get(id) ?? { status: 404, body: "no such list" }, "text/plain");
    }
    if (req.method === "POST" && path === "/_control/dns") {
      const { name, type, reply } = JSON.parse(await readBody(req)) as {
        name: string;
        type: string;
        reply: Reply;
      };
      dns.set(`${dnsName(name)} ${type}`, reply);
      return send(res, 204, "text/plain", "");
    }
    if (req.method === "POST" && path.startsWith("/_control/lists/")) {
      lists.set(
        decodeURIComponent(path.slice("/_control/lists/".length)),
        JSON.parse(await readBody(req)) as Reply,
      );
      return send(res, 204, "text/plain", "");
    }
    if (req.method === "GET" && path === "/_control/hits") {
      return send(
        res,
        200,
        "application/json",
        JSON.stringify({ hits: hits.get(url.searchParams.get("key") ?? "") ?? 0 }),
      );
    }
    send(res, 404, "text/plain", `no fake for ${req.method} ${req.url}`);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("loopbackPort", (server.address() as AddressInfo).port);
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** Names compare case-insensitively and with or without the root's trailing dot. */
function dnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

/** One configured answer of a fake. */
interface Reply {
  status?: number;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  contentType?: string;
  delayMs?: number;
}

const NXDOMAIN: Reply = {
  body: {
    Status: 3,
    Answer: [],
    Authority: [{ name: "test.", type: 6, TTL: 60, data: "ns.test. hostmaster.test. 1 60 60 60 60" }],
  },
};

async function answer(res: ServerResponse, reply: Reply, defaultType: string): Promise<void> {
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (res.destroyed) return;
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? null);
  send(res, reply.status ?? 200, reply.contentType ?? defaultType, text);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
