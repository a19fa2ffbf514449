import { suggestEngine } from "../bundle/registry.js";
import { readFileSync } from "node:fs";
import { engineByName, engineForFile } from "../bundle/index.js";
import { validateLimitsText } from "../engines/limits/index.js";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { errorLine } from "./policy-files.js";

export const VALIDATE_USAGE = `usage: arbiter validate FILE [--engine ENGINE] [--quiet]

Checks a policy source as its engine would before activating it; FILE may be
- for stdin. The engine is guessed from the file name, Arbiter's or the
origin's: limits.json or limits.conf (limits), placement.yaml or queues.yaml
(placement), pool.conf, condor_config, condor_config.local or *.config (match),
customs.json (customs), filters.json (jobfilter); --engine names it otherwise.

A valid policy prints "Policy is valid." and exits 0; --quiet prints nothing.
An invalid one prints one "FILE:LINE:COLUMN: message" line per error (or
"FILE: /json/pointer: message" where the error is a place in the structure)
on stderr and exits 1.

The limits engine speaks as pscheduler validate-limits does instead: it prints
"Limit configuration is valid." only when stdout is a terminal (and not with
--quiet), and on failure prints "Limit configuration is invalid:" and
pScheduler's message on stderr, the message after "FILE:LINE:COLUMN: " where
the error is (a jq error at the script's character; a JSON syntax error's own
text places it).
Exit status: 0 valid, 1 invalid or unreadable, 2 usage.
`;

/** Which engine a wrong `--engine` most likely meant: `pool` is `match`'s file, `placment` is `placement`. */
function engineHint(name: string): string {
  const near = suggestEngine(name);
  if (near === undefined) return "";
  return near.file !== undefined
    ? `; the engine for ${near.file} is \`${near.engine}\``
    : ` (did you mean \`${near.engine}\`?)`;
}

/** `arbiter validate`: the policy checks without compiling a bundle. */
export async function validateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--engine"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(VALIDATE_USAGE), 0);
  const [file, ...rest] = args.positional;
  refuseUnknownSwitches(args, ["--quiet"], VALIDATE_USAGE);
  if (!file || rest.length > 0) throw new UsageError(VALIDATE_USAGE);
  const named = option(args, "--engine");
  const engine = named ? engineByName(named) : engineForFile(file);
  if (!engine)
    throw new UsageError(
      named
        ? `unknown engine \`${named}\`${engineHint(named)}`
        : `cannot tell the engine of \`${file}\`: use --engine`,
    );
  const quiet = args.switches.has("--quiet");
  const limits = engine.name === "limits";
  let source: string;
  try {
    source = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    io.stderr(
      limits
        ? `Unable to read input: ${(e as Error).message}\n`
        : `cannot read \`${file}\`: ${(e as Error).message}\n`,
    );
    return 1;
  }
  if (limits) {
    // pscheduler validate-limits: success is silent unless stdout is a terminal.
    const v = validateLimitsText(source);
    if (!v.valid) {
      // pScheduler's text, placed in the file where Arbiter can place it (a jq error at its character)
      const where =
        v.place === null ? "" : `${file === "-" ? "<stdin>" : file}:${v.place.line}:${v.place.column}: `;
      io.stderr(`Limit configuration is invalid:\n${where}${v.message.trim()}\n`);
      return 1;
    }
    if (!quiet && io.isTty) io.stdout(`${v.text}\n`);
    return 0;
  }
  const result = engine.compile(source);
  if (result.ok) {
    if (!quiet) io.stdout("Policy is valid.\n");
    return 0;
  }
  const shown = file === "-" ? "<stdin>" : file;
  for (const e of result.error) io.stderr(`${errorLine(shown, e)}\n`);
  return 1;
}
