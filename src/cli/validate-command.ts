import { readFileSync } from "node:fs";
import { engineByName, engineForFile } from "../bundle/index.js";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";

export const VALIDATE_USAGE = `usage: arbiter validate FILE [--engine ENGINE] [--quiet]

Checks a policy source as its engine would before activating it. The engine is
guessed from the file name (limits.json, placement.yaml, pool.conf,
customs.json, filters.json) unless --engine names it. Prints "Policy is valid."
and exits 0, or prints one "at: message" line per error on stderr and exits 1.
For limits the texts are pscheduler validate-limits' own.
`;

/** `arbiter validate`: the policy checks without compiling a bundle. */
export async function validateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--engine"]);
  if (args.switches.has("--help")) return io.stdout(VALIDATE_USAGE), 0;
  const [file, ...rest] = args.positional;
  const unknown = [...args.switches].filter((s) => s !== "--quiet");
  if (!file || rest.length > 0 || unknown.length > 0) throw new UsageError(VALIDATE_USAGE);
  const named = option(args, "--engine");
  const engine = named ? engineByName(named) : engineForFile(file);
  if (!engine) throw new UsageError(named ? `unknown engine \`${named}\`` : `cannot tell the engine of \`${file}\`: use --engine`);
  const quiet = args.switches.has("--quiet");
  let source: string;
  try {
    source = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    io.stderr(`cannot read \`${file}\`: ${(e as Error).message}\n`);
    return 1;
  }
  const result = engine.compile(source);
  const limits = engine.name === "limits";
  if (result.ok) {
    if (!quiet && (!limits || io.isTty)) io.stdout(limits ? "Limit configuration is valid.\n" : "Policy is valid.\n");
    return 0;
  }
  for (const e of result.error) io.stderr(limits ? limitsErrorLine(e.at, e.message) : `${e.at || "-"}: ${e.message}\n`);
  return 1;
}

const LIMITS_PREFIX = "Invalid limit configuration: ";

/** pscheduler validate-limits' line; schema messages already carry its prefix and pointer. */
function limitsErrorLine(at: string, message: string): string {
  return message.startsWith(LIMITS_PREFIX) ? `${message}\n` : `${LIMITS_PREFIX}At ${at || "/"}: ${message}\n`;
}
