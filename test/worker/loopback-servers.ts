import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * Starts the loopback fakes the Worker tests talk to (DNS-over-HTTPS, CIDR
 * lists) and hands their port to the Worker as LOOPBACK_URL / DOH_URL.
 * Routes are filled in by the tests that need them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server: Server = createServer((req, res) => {
    res.statusCode = 404;
    res.end(`no fake for ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("loopbackPort", (server.address() as AddressInfo).port);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
