import { writeFileSync } from "node:fs";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { compileDir, errorLine } from "./policy-files.js";

export const COMPILE_USAGE = `usage: arbiter compile [DIR] [-o FILE]

Validates and compiles every policy file in DIR (default: policies) into one
bundle {revision, created_at, engines} and writes it to FILE or stdout.
`;

/** `arbiter compile`: a policies folder to a bundle. */
export async function compileCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["-o", "--output"]);
  if (args.switches.has("--help")) return io.stdout(COMPILE_USAGE), 0;
  if (args.positional.length > 1 || args.switches.size > 0) throw new UsageError(COMPILE_USAGE);
  const dir = args.positional[0] ?? "policies";
  const result = await compileDir(dir);
  if (!result.ok) {
    for (const e of result.error) io.stderr(`${dir}/${errorLine(e)}\n`);
    return 1;
  }
  const text = JSON.stringify(result.value) + "\n";
  const out = option(args, "-o") ?? option(args, "--output");
  if (out) writeFileSync(out, text);
  else io.stdout(text);
  return 0;
}
