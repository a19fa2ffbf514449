/**
 * Ganeti's real RAPI client (lib/rapi/client.py, GanetiRapiClient) against `wrangler dev`
 * over HTTPS on loopback, with an admin token it sends as its HTTP Basic password: the
 * harness (rapi_client_harness.py) plays qa/qa_filters.py's scenarios through AddFilter,
 * GetFilters (bulk and not), GetFilter, ReplaceFilter and DeleteFilter, and exits non-zero
 * when one does not hold. The client is not part of this repository: GANETI_RAPI_CLIENT names
 * the file (e.g. from a Ganeti checkout). Skipped, saying what is missing, without it or
 * without a Python that has pycurl. test/worker/ganeti-rapi.test.ts replays the recorded
 * exchanges without Python. The same client also runs docs/integrations/ganeti/filters.py,
 * the docs' example, as a Ganeti node would (importing `ganeti.rapi.client`).
 *
 *   GANETI_RAPI_CLIENT=/path/to/ganeti/lib/rapi/client.py [GANETI_PYTHON=/usr/bin/python3] \
 *     npx vitest run --project node test/ganeti
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { connect as tlsConnect } from "node:tls";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";

const client = process.env.GANETI_RAPI_CLIENT;

/** The first Python that can import pycurl (the client needs it), or why there is none. */
function findPython(): { python: string } | { reason: string } {
  const candidates = process.env.GANETI_PYTHON
    ? [process.env.GANETI_PYTHON]
    : ["python3", "/usr/bin/python3"];
  for (const python of candidates) {
    const probe = spawnSync(python, ["-c", "import pycurl"], { encoding: "utf8" });
    if (probe.status === 0) return { python };
  }
  const tried = candidates.join(", ");
  return { reason: `no Python with pycurl (tried ${tried}; install python3-pycurl or set GANETI_PYTHON)` };
}

function setup(): { python: string } | { reason: string } {
  if (!client) return { reason: "GANETI_RAPI_CLIENT is not set (the path of Ganeti's lib/rapi/client.py)" };
  if (!existsSync(client)) return { reason: `GANETI_RAPI_CLIENT=${client} does not exist` };
  return findPython();
}

const found = setup();
if ("reason" in found) console.log(`test/ganeti/rapi-client.test.ts skipped: ${found.reason}`);

describe.skipIf("reason" in found)("Ganeti's RAPI client against wrangler dev", () => {
  const python = "python" in found ? found.python : "";
  const token = "ganeti-rapi-admin";
  let server: DevServer;
  beforeAll(async () => {
    server = await startDevServer({ https: true, vars: { ADMIN_TOKEN: token } });
  }, 180_000);
  afterAll(async () => server?.stop());

  it("holds every qa_filters.py scenario", () => {
    const run = spawnSync(
      python,
      [
        join(REPO_ROOT, "test/ganeti/rapi_client_harness.py"),
        "--port",
        String(server.port),
        "--token",
        token,
      ],
      {
        encoding: "utf8",
        env: { ...process.env, GANETI_RAPI_CLIENT: client },
        timeout: 120_000,
      },
    );
    for (const scenario of [
      "Authentication",
      "TestFilterAddRemove",
      "TestFilterWatermark",
      "TestFilterReject",
      "TestFilterOpCode",
      "TestFilterContinue",
      "TestFilterReasonChain",
      "TestFilterAcceptPause",
      "TestFilterRateLimit",
      "TestAdHocReasonRateLimit",
      "ClientErrors",
      "ReplaceCreates",
    ]) {
      expect(run.stdout, run.stderr).toContain(`${scenario}: ok`);
    }
    expect(run.stderr, run.stdout).toBe("");
    expect(run.status).toBe(0);
  }, 180_000);

  it("runs docs/integrations/ganeti/filters.py, the docs' example, checking the server's certificate", async () => {
    // The example imports `ganeti.rapi.client`, as on a Ganeti node: a package of the named file.
    const site = mkdtempSync(join(tmpdir(), "arbiter-ganeti-"));
    mkdirSync(join(site, "ganeti/rapi"), { recursive: true });
    writeFileSync(join(site, "ganeti/__init__.py"), "");
    writeFileSync(join(site, "ganeti/rapi/__init__.py"), "");
    symlinkSync(client!, join(site, "ganeti/rapi/client.py"));
    // The dev server's self-signed certificate is the one certificate the example is told to trust.
    const pem = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect(
        { host: "127.0.0.1", port: server.port, servername: "localhost", rejectUnauthorized: false },
        () => {
          const raw = socket.getPeerCertificate().raw;
          socket.end();
          resolve(
            `-----BEGIN CERTIFICATE-----\n${raw.toString("base64").replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----\n`,
          );
        },
      );
      socket.on("error", reject);
    });
    writeFileSync(join(site, "arbiter.pem"), pem);
    const example = (caFile: string) =>
      spawnSync(python, [join(REPO_ROOT, "docs/integrations/ganeti/filters.py")], {
        encoding: "utf8",
        env: {
          ...process.env,
          PYTHONPATH: site,
          ARBITER_HOST: "localhost",
          ARBITER_PORT: String(server.port),
          ARBITER_ADMIN_TOKEN: token,
          ARBITER_CA_FILE: caFile,
        },
        timeout: 60_000,
      });
    const run = example(join(site, "arbiter.pem"));
    expect(run.stderr, run.stdout).toBe("");
    expect(run.status).toBe(0);
    const uuid = /^added ([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
    expect(uuid, run.stdout).toBeDefined();
    expect(run.stdout).toContain(
      `${uuid} 10 ['RATE_LIMIT', 2] [['opcode', ['=', 'OP_ID', 'OP_INSTANCE_REPLACE_DISKS']]]`,
    );
    expect(run.stdout).toContain("reason trail ['gnt:user', 'gnt:client', 'luxid']");
    expect(run.stdout).toContain(`deleted ${uuid}`);
    // deleted: the rule is gone from the server
    const listed = await new Promise<string>((resolve, reject) => {
      httpsGet(`${server.url}/2/filters`, { rejectUnauthorized: false, auth: `arbiter:${token}` }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve(body));
      }).on("error", reject);
    });
    expect(listed).not.toContain(uuid!);
    // told to trust only the system's CAs, which did not sign the server's certificate: refused, nothing added
    const systemCAs = "/etc/ssl/certs/ca-certificates.crt";
    if (existsSync(systemCAs)) {
      const untrusted = example(systemCAs);
      expect(untrusted.status).not.toBe(0);
      expect(untrusted.stderr).toMatch(/certificate/i);
      expect(untrusted.stdout).not.toContain("added");
    }
  }, 180_000);
});
