/**
 * Ganeti's real RAPI client (lib/rapi/client.py, GanetiRapiClient) against `wrangler dev`
 * over HTTPS, with an admin token it sends as its HTTP Basic password: the harness
 * (rapi_client_harness.py) plays qa/qa_filters.py's scenarios and exits non-zero when one
 * does not hold. Needs Python with pycurl and a Ganeti tree; skipped, saying which is
 * missing, otherwise. test/worker/ganeti-rapi.test.ts replays the recorded exchanges
 * without Python.
 *
 *   GANETI_TREE=/path/to/ganeti [GANETI_PYTHON=/usr/bin/python3] npx vitest run --project node test/ganeti
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";

const python = process.env.GANETI_PYTHON ?? "python3";
const tree = process.env.GANETI_TREE;

function missing(): string | null {
  if (!tree) return "GANETI_TREE is not set (a Ganeti tree holding lib/rapi/client.py)";
  if (!existsSync(join(tree, "lib/rapi/client.py"))) return `${tree}/lib/rapi/client.py does not exist`;
  const probe = spawnSync(python, ["-c", "import pycurl"], { encoding: "utf8" });
  if (probe.status !== 0) return `\`${python} -c 'import pycurl'\` fails (set GANETI_PYTHON to a Python with pycurl, e.g. Debian's python3-pycurl)`;
  return null;
}

const reason = missing();
if (reason !== null) console.log(`test/ganeti/rapi-client.test.ts skipped: ${reason}`);

describe.skipIf(reason !== null)("Ganeti's RAPI client against wrangler dev", () => {
  const token = "ganeti-rapi-admin";
  let server: DevServer;
  beforeAll(async () => {
    server = await startDevServer({ https: true, vars: { ADMIN_TOKEN: token } });
  }, 180_000);
  afterAll(async () => server?.stop());

  it("holds every qa_filters.py scenario", () => {
    const run = spawnSync(python, [join(REPO_ROOT, "test/ganeti/rapi_client_harness.py"), "--port", String(server.port), "--token", token], {
      encoding: "utf8",
      env: { ...process.env, GANETI_TREE: tree },
      timeout: 120_000,
    });
    expect(run.stdout).toContain("TestAdHocReasonRateLimit: ok");
    expect(run.stderr, run.stdout).toBe("");
    expect(run.status).toBe(0);
  }, 180_000);
});
