/**
 * Every `curl` and `arbiter` example of README.md and docs/ runs against a fresh server
 * as `npm start` runs it, page by page in page order, and answers as documented: a
 * non-2xx answer or a failing command fails, and where the docs show the output (a
 * `# {...}` line right under the command) the JSON must match it, with ids, revisions
 * and timestamps normalised. Requests shown as JSON blocks (a body, then the answer)
 * run the same way, sent with fetch; every JSON block of the docs is marked as a
 * request, an answer or neither (test/docs/examples.ts), so none is left out unseen. Blocks that
 * must not run (deploys, secrets) carry `<!-- docs-test: skip (reason) -->` on the line
 * before their fence. New examples are picked up by reading the files; nothing to register.
 *
 * Why a Node test starting `wrangler dev`, not a workerd test: the examples are shell
 * commands (curl, the `arbiter` CLI, which itself runs wrangler for `publish --local`),
 * so they need a real process environment and a real server on a port, exactly what a
 * reader has after `npm start`. The server gets free loopback ports and its own state
 * folder (test/support/dev-server.ts); the examples run in a scratch copy of the
 * checkout (its own `policies/`, the rest linked) so they write nothing into it.
 * Rewritten in each command: `localhost:8787` (and the `arbiter.example` placeholder) to
 * the server's address, `arbiter publish --local` to the server's state folder, and
 * `curl` given `--fail-with-body` so a 4xx or 5xx answer fails the command.
 */
import { spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { cliBundle } from "../support/cli-bundle.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";
import { docFiles, examplesOf, unmarkedJsonBlocks } from "./examples.js";
import { outputProblems } from "./output-match.js";

const files = docFiles(REPO_ROOT);
const examples = files.flatMap((file) => examplesOf(REPO_ROOT, file));

let server: DevServer;
let work: string;
let bundle: string;

beforeAll(async () => {
  server = await startDevServer();
  bundle = await cliBundle();
  work = mkdtempSync(join(tmpdir(), "arbiter-docs-"));
  for (const entry of readdirSync(REPO_ROOT)) {
    if ([".git", ".wrangler", ".ci", "policies"].includes(entry)) continue;
    symlinkSync(join(REPO_ROOT, entry), join(work, entry));
  }
  cpSync(join(REPO_ROOT, "policies"), join(work, "policies"), { recursive: true });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 30_000);

/**
 * One request on a connection of its own, as curl sends it: fetch's pooled keep-alive
 * connections to `wrangler dev` are sometimes closed by the server between two requests,
 * which fails the second one ("other side closed") for no fault of the example.
 */
function send(method: string, url: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
    const req = httpRequest(url, { method, agent: false, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The command as it runs here: pointed at the test server and its state, curl failing on HTTP errors. */
function rewrite(command: string): string {
  const address = `127.0.0.1:${server.port}`;
  return command
    .replace(/https?:\/\/arbiter\.example/g, `http://${address}`)
    .replace(/\b(?:localhost|127\.0\.0\.1):8787\b/g, address)
    .replace(/(arbiter(?:\.mjs)? publish --local)\b/g, `$1 --persist-to ${server.persistTo}`)
    .replace(/(^|[\s|;&(])curl\s/g, "$1curl --fail-with-body ");
}

describe("docs examples", () => {
  it("finds the examples of README.md and docs/", () => {
    expect(examples.filter((e) => e.skip === undefined).length).toBeGreaterThan(20);
  });

  it("runs every request shown as JSON: each JSON block is a request, its answer, or marked as none", () => {
    expect(files.flatMap((file) => unmarkedJsonBlocks(REPO_ROOT, file))).toEqual([]);
    expect(examples.filter((e) => e.request !== undefined).length).toBeGreaterThan(10);
  });

  for (const example of examples) {
    const title = `${example.file}:${example.line} ${example.command.split("\n")[0].trim()}`;
    if (example.skip !== undefined) {
      it.skip(`${title} (${example.skip})`, () => {});
      continue;
    }
    const request = example.request;
    if (request !== undefined) {
      it(
        title,
        async () => {
          const body = request.body === undefined ? undefined : JSON.stringify(JSON.parse(request.body));
          const res = await send(request.method, server.url + request.path, body);
          const text = res.text;
          const shown = `${request.method} ${request.path}\n${body ?? ""}\n--- ${res.status}\n${text}`;
          expect(res.status >= 200 && res.status < 300, shown).toBe(true);
          if (example.output !== undefined)
            expect(outputProblems(JSON.parse(example.output), JSON.parse(text)), shown).toEqual([]);
        },
        30_000,
      );
      continue;
    }
    it(
      title,
      () => {
        const command = rewrite(example.command);
        const run = spawnSync("bash", ["-o", "pipefail", "-c", command], {
          cwd: work,
          encoding: "utf8",
          timeout: 120_000,
          env: {
            ...process.env,
            ARBITER_URL: server.url,
            // Tools that ask the npm registry (wrangler's update check) get a closed loopback port.
            npm_config_registry: "http://127.0.0.1:9/",
            WRANGLER_SEND_METRICS: "false",
            NO_COLOR: "1",
            // The same sources, bundled once for the run: each command skips compiling them through tsx.
            ARBITER_CLI_BUNDLE: bundle,
          },
        });
        const shown = `$ ${command}\n--- exit ${run.status}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
        expect(run.status, shown).toBe(0);
        if (example.output !== undefined) {
          let got: unknown;
          try {
            got = JSON.parse(run.stdout);
          } catch {
            throw new Error(`the docs show JSON output, the command printed something else\n${shown}`);
          }
          expect(outputProblems(JSON.parse(example.output), got), shown).toEqual([]);
        }
      },
      150_000,
    );
  }
});
