import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { compileDir, errorLine } from "./policy-files.js";

export const PUBLISH_USAGE = `usage: arbiter publish [--local | --remote] [--persist-to DIR] [DIR]

Compiles DIR (default: policies) and, only if every policy is valid, writes the
bundle to the POLICIES KV namespace through wrangler: first bundle:<revision>,
then the pointer bundle:current. --local writes wrangler dev's local state
(the default; --persist-to chooses its folder, as for wrangler dev); --remote
writes the deployed namespace.
`;

/** `arbiter publish`: compile, then write bundle and pointer to KV with wrangler. */
export async function publishCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--persist-to"]);
  if (args.switches.has("--help")) return io.stdout(PUBLISH_USAGE), 0;
  const unknown = [...args.switches].filter((s) => s !== "--local" && s !== "--remote");
  if (unknown.length > 0 || args.positional.length > 1 || (args.switches.has("--local") && args.switches.has("--remote"))) {
    throw new UsageError(PUBLISH_USAGE);
  }
  const where = args.switches.has("--remote") ? "--remote" : "--local";
  const persistTo = option(args, "--persist-to");
  if (persistTo && where === "--remote") throw new UsageError("--persist-to goes with --local");
  const target = persistTo ? [where, "--persist-to", persistTo] : [where];
  const dir = args.positional[0] ?? "policies";
  const result = await compileDir(dir);
  if (!result.ok) {
    for (const e of result.error) io.stderr(`${dir}/${errorLine(e)}\n`);
    io.stderr("nothing was published\n");
    return 1;
  }
  const bundle = result.value;
  const tmp = mkdtempSync(join(tmpdir(), "arbiter-"));
  try {
    const file = join(tmp, "bundle.json");
    writeFileSync(file, JSON.stringify(bundle));
    const steps: string[][] = [
      ["kv", "key", "put", `bundle:${bundle.revision}`, "--binding", "POLICIES", "--path", file, ...target],
      ["kv", "key", "put", "bundle:current", bundle.revision, "--binding", "POLICIES", ...target],
    ];
    for (const step of steps) {
      const run = spawnSync("npx", ["wrangler", ...step], { stdio: ["ignore", "inherit", "inherit"] });
      if (run.status !== 0) {
        io.stderr(`wrangler ${step.slice(0, 4).join(" ")} failed (exit ${run.status})\n`);
        return 1;
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  io.stdout(`published revision ${bundle.revision} (${where.slice(2)})\n`);
  return 0;
}
