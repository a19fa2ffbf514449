/**
 * Ganeti's real RAPI client (lib/rapi/client.py, GanetiRapiClient) against `wrangler dev`
 * over HTTPS on loopback, with an admin token it sends as its HTTP Basic password: the
 * harness (rapi_client_harness.py) plays qa/qa_filters.py's scenarios through AddFilter,
 * GetFilters (bulk and not), GetFilter, ReplaceFilter and DeleteFilter, and exits non-zero
 * when one does not hold. The client is not part of this repository: GANETI_RAPI_CLIENT names
 * the file (e.g. from a Ganeti checkout). Skipped, saying what is missing, without it or
 * without a Python that has pycurl. test/worker/ganeti-rapi.test.ts replays the recorded
 * exchanges without Python.
 *
 *   GANETI_RAPI_CLIENT=/path/to/ganeti/lib/rapi/client.py [GANETI_PYTHON=/usr/bin/python3] \
 *     npx vitest run --project node test/ganeti
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";

const client = process.env.GANETI_RAPI_CLIENT;

/** The first Python that can import pycurl (the client needs it), or why there is none. */
function findPython(): { python: string } | { reason: string } {
  const candidates = process.env.GANETI_PYTHON ? [process.env.GANETI_PYTHON] : ["python3", "/usr/bin/python3"];
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
    const run = spawnSync(python, [join(REPO_ROOT, "test/ganeti/rapi_client_harness.py"), "--port", String(server.port), "--token", token], {
      encoding: "utf8",
      env: { ...process.env, GANETI_RAPI_CLIENT: client },
      timeout: 120_000,
    });
    for (const scenario of ["Authentication", "TestFilterAddRemove", "TestFilterWatermark", "TestFilterReject", "TestFilterOpCode", "TestFilterContinue", "TestFilterReasonChain", "TestFilterAcceptPause", "TestFilterRateLimit", "TestAdHocReasonRateLimit", "ClientErrors", "ReplaceCreates"]) {
      expect(run.stdout, run.stderr).toContain(`${scenario}: ok`);
    }
    expect(run.stderr, run.stdout).toBe("");
    expect(run.status).toBe(0);
  }, 180_000);
});
