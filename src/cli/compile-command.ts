import { writeFileSync } from "node:fs";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { allowedMissing, bundleFromDir, lookedFor, missingEngines } from "./policy-files.js";

export const COMPILE_USAGE = `usage: arbiter compile [DIR] [-o FILE] [--allow-missing ENGINE]...

Validates and compiles every policy file in DIR (default: policies) into one
bundle {revision, created_at, engines} and writes it to FILE or stdout.

Each engine's file is recognised by Arbiter's name or by its origin's own:
  limits     limits.json, limits.conf (pScheduler)
  placement  placement.yaml, queues.yaml (YuniKorn)
  match      pool.conf, condor_config, condor_config.local, *.config (HTCondor)
  customs    customs.json
  jobfilter  filters.json
Two files for one engine are an error. On stderr it names every engine found
(with its file) and every engine not found. A bundle without an engine would
stop serving that engine's routes, so compile refuses it unless
--allow-missing ENGINE names each engine to leave out (repeatable), or the
comma-separated ARBITER_ALLOW_MISSING does (which reaches the compile that
npm start, npm test and wrangler deploy run).
Nothing is written when any policy is invalid or an engine is missing.
Exit status: 0 written, 1 refused or invalid, 2 usage.
`;

/** `arbiter compile`: a policies folder to a bundle. */
export async function compileCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["-o", "--output", "--allow-missing"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(COMPILE_USAGE), 0);
  refuseUnknownSwitches(args, [], COMPILE_USAGE);
  if (args.positional.length > 1) throw new UsageError(COMPILE_USAGE);
  // The build (npm start, npm test, wrangler deploy) runs `arbiter compile policies` itself: the variable reaches it.
  const fromEnv = (io.env.ARBITER_ALLOW_MISSING ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  const allowed = allowedMissing([...(args.values.get("--allow-missing") ?? []), ...fromEnv]);
  if (!allowed.ok) throw new UsageError(allowed.error);
  const dir = args.positional[0] ?? "policies";
  const bundle = await bundleFromDir(dir, io, "written", (folder) => {
    const refused = missingEngines(folder).filter((e) => !allowed.value.has(e));
    if (refused.length === 0) return null;
    return (
      `refusing a bundle without ${refused.join(", ")}: it would not serve ${refused.length === 1 ? "that engine" : "those engines"}.\n` +
      refused.map((e) => `  add ${lookedFor(e)} to ${dir}, or pass --allow-missing ${e}\n`).join("")
    );
  });
  if (bundle === null) return 1;
  const text = JSON.stringify(bundle) + "\n";
  const out = option(args, "-o") ?? option(args, "--output");
  if (out) writeFileSync(out, text);
  else io.stdout(text);
  return 0;
}
