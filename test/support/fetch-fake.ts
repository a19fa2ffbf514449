/**
 * A loopback HTTP server standing in for the web services pScheduler's
 * url-fetch limit asks (the edge of the world for the Node tests; the Worker
 * tests use test/worker/loopback-servers.ts). Each path answers what the
 * running case set for it; `echo` answers a failing verdict whose message is
 * the request line and the `x-*` and content-type headers it received.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One configured answer. */
export interface FakeReply {
  status?: number;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  delay_ms?: number;
  echo?: boolean;
  /** A Location header (for redirects). */
  location?: string;
}

/** The running fake: its base URL, the routes of the current case, and a stop. */
export interface FetchFake {
  readonly base: string;
  routes: Record<string, FakeReply>;
  hits: number;
  close(): Promise<void>;
}

function seen(req: IncomingMessage): string {
  const headers = Object.entries(req.headers)
    .filter(([k]) => k.startsWith("x-") || k === "content-type")
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${String(v)}`);
  return [`${req.method} ${req.url}`, ...headers].join(" ");
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFetchFake(): Promise<FetchFake> {
  const fake: FetchFake = { base: "", routes: {}, hits: 0, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    fake.hits++;
    const path = new URL(req.url ?? "/", "http://loopback").pathname;
    const reply = fake.routes[path];
    const send = () => {
      if (res.destroyed) return;
      if (reply === undefined) {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end(`no fake for ${path}`);
        return;
      }
      const body = reply.echo
        ? JSON.stringify({ passed: false, message: seen(req) })
        : typeof reply.body === "string"
          ? reply.body
          : JSON.stringify(reply.body ?? null);
      res.writeHead(reply.status ?? 200, {
        "content-type": "application/json",
        ...(reply.location ? { location: reply.location } : {}),
      });
      res.end(body);
    };
    if (reply?.delay_ms) setTimeout(send, reply.delay_ms);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(fake, {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
