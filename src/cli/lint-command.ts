import { readFileSync } from "node:fs";
import { engineByName, engineForFile } from "../bundle/index.js";
import { lintSource } from "../bundle/lint.js";
import type { EngineName } from "../engines/common/engine.js";
import { atLeast, LINT_SEVERITIES, type LintFinding, type LintSeverity } from "../engines/common/lint.js";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { errorLine } from "./policy-files.js";

export const LINT_USAGE = `usage: arbiter lint [ENGINE] FILE [--engine ENGINE] [--max-severity info|warning]
                   [--format text|json] [--ads FILE]

Analyses a policy source for what validation allows but cannot be meant:
rules that can never apply, filters and access lists that admit nobody,
definitions nothing uses, constant expressions (docs/policies/analysis.md
lists every code). FILE may be - for stdin. The engine is named first, or by
--engine, or guessed from the file name as \`arbiter validate\` does.

Each finding prints as "FILE:LINE:COLUMN: code: message" on stdout (the
severity is in the JSON form: --format json prints {file, engine, findings,
counts}). A policy that does not validate prints its errors as
\`arbiter validate\` does, on stderr.

  --max-severity S   the most severe finding that still exits 0: info (the
                     default: any warning fails) or warning (nothing fails)
  --ads FILE         match only: ads as \`condor_status -l\` prints them; the
                     attributes the policy reads that none of them define
                     are reported

Exit status: 0 no finding above --max-severity, 1 findings above it, or a
policy that is invalid or unreadable, 2 usage.
`;

/** The engine and file of `lint [ENGINE] FILE [--engine E]`. */
function target(
  positional: readonly string[],
  named: string | undefined,
): { engine: EngineName; file: string } {
  if (positional.length === 0 || positional.length > 2) throw new UsageError(LINT_USAGE);
  const [first, second] = positional;
  const file = second ?? first;
  const name = second !== undefined ? first : named;
  if (second !== undefined && named !== undefined && named !== first)
    throw new UsageError(`the engine is named twice: \`${first}\` and --engine \`${named}\``);
  const engine = name !== undefined ? engineByName(name) : engineForFile(file);
  if (!engine)
    throw new UsageError(
      name !== undefined
        ? `unknown engine \`${name}\``
        : `cannot tell the engine of \`${file}\`: name it (arbiter lint ENGINE FILE)`,
    );
  return { engine: engine.name, file };
}

/** One finding as the text form prints it: `file:line:column: code: message` (`file: code: message` when it has no place). */
export function findingLine(file: string, f: LintFinding): string {
  return f.at === "" ? `${file}: ${f.code}: ${f.message}` : `${file}:${f.at}: ${f.code}: ${f.message}`;
}

/** `arbiter lint`: a policy source's findings, exit 1 when one is above `--max-severity`. */
export async function lintCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--engine", "--max-severity", "--format", "--ads"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(LINT_USAGE), 0);
  if (args.switches.size > 0)
    throw new UsageError(`unknown option \`${[...args.switches][0]}\`\n\n${LINT_USAGE}`);
  const { engine, file } = target(args.positional, option(args, "--engine"));
  const max = option(args, "--max-severity") ?? "info";
  if (!(LINT_SEVERITIES as readonly string[]).includes(max))
    throw new UsageError(`--max-severity: \`${max}\` is not info or warning`);
  const format = option(args, "--format") ?? "text";
  if (format !== "text" && format !== "json")
    throw new UsageError(`--format: \`${format}\` is not text or json`);
  const adsFile = option(args, "--ads");
  if (adsFile !== undefined && engine !== "match")
    throw new UsageError(`--ads is for the match engine, not ${engine}`);
  const stdin = file === "-" || adsFile === "-" ? await io.readStdin() : "";
  const read = (path: string): string | null => {
    if (path === "-") return stdin;
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      io.stderr(`cannot read \`${path}\`: ${(e as Error).message}\n`);
      return null;
    }
  };
  const source = read(file);
  const ads = adsFile === undefined ? undefined : read(adsFile);
  if (source === null || ads === null) return 1;
  const shown = file === "-" ? "<stdin>" : file;
  const linted = lintSource(engine, source, ads === undefined ? {} : { ads });
  if (!linted.ok) {
    for (const e of linted.error) io.stderr(`${errorLine(shown, e)}\n`);
    return 1;
  }
  const findings = linted.value;
  if (format === "json") {
    const warning = findings.filter((f) => f.severity === "warning").length;
    io.stdout(
      `${JSON.stringify({ file: shown, engine, findings, counts: { warning, info: findings.length - warning } }, null, 2)}\n`,
    );
  } else {
    for (const f of findings) io.stdout(`${findingLine(shown, f)}\n`);
  }
  return failing(findings, max as LintSeverity).length > 0 ? 1 : 0;
}

/** The findings more severe than the most severe one allowed. */
export function failing(findings: readonly LintFinding[], max: LintSeverity): LintFinding[] {
  const next = LINT_SEVERITIES[LINT_SEVERITIES.indexOf(max) + 1];
  return next === undefined ? [] : findings.filter((f) => atLeast(f, next));
}
