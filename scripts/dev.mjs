#!/usr/bin/env node
// `npm start`: wrangler dev on port 8787 (extra arguments are passed on), quiet offline.
// - wrangler's download of the `Request.cf` sample (Arbiter reads no `request.cf`) is off,
//   so an offline start prints no getaddrinfo stack trace;
// - workerd's own error block for a fetch whose host name does not resolve (its DNS
//   lookup failed, with a native stack) is left out: the Worker already logs one
//   structured `dns_resolver_failed` warning per resolver failure, rate-limited.
// Everything else wrangler prints passes through unchanged.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
const wrangler = join(
  import.meta.dirname,
  "..",
  "node_modules",
  ".bin",
  process.platform === "win32" ? "wrangler.cmd" : "wrangler",
);
const child = spawn(
  wrangler,
  [
    "dev",
    ...(args.some((a) => a === "--port" || a.startsWith("--port=")) ? [] : ["--port", "8787"]),
    ...args,
  ],
  {
    stdio: ["inherit", "inherit", "pipe"],
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
    shell: process.platform === "win32",
  },
);

let dropStack = false;
createInterface({ input: child.stderr }).on("line", (line) => {
  if (dropStack && line.trim() === "") return;
  if (dropStack && /^\s*stack:/.test(line)) {
    dropStack = false;
    return;
  }
  dropStack = false;
  if (/kj\/async-io.*DNS lookup failed/.test(line)) {
    dropStack = true;
    return;
  }
  process.stderr.write(`${line}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
