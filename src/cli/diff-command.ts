import { readFileSync } from "node:fs";
import { engineByName, engineForFile } from "../bundle/index.js";
import { DIFF_ENGINES, diffPolicies, type DiffReport } from "../bundle/diff.js";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { errorLine } from "./policy-files.js";

export const DIFF_USAGE = `usage: arbiter diff OLD NEW [--engine ENGINE] [--requests FILE] [--format text|json]

Finds requests on which two versions of one engine's policy decide
differently, without traffic: the requests that reach every boundary either
policy draws (each literal plus a fresh name, each regex's witnesses, each
threshold ±1) are decided under both, and the differing verdicts are grouped
as the shadow report groups them ("field old → new", a count, an example).
The engine is named by --engine or guessed from NEW's file name. Covers
${DIFF_ENGINES.join(", ")} (docs/policies/analysis.md#diff).

  --requests FILE   captured requests to decide too, one JSON request a line
                    (the engine's decision request, as \`arbiter eval\` reads it)
  --format json     print the whole report as JSON

Exit status: 0 no difference found, 1 differences, or a side that is invalid
or unreadable, 2 usage.
`;

function readText(path: string, io: Io): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    io.stderr(`cannot read \`${path}\`: ${(e as Error).message}\n`);
    return null;
  }
}

/** The report as text: the result line, the coverage, then each pair with its count and example request. */
export function diffText(r: DiffReport): string {
  const kinds = Object.entries(r.coverage.boundaries)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const lines = [
    `${r.engine}: ${r.result}`,
    `  coverage: ${r.coverage.generated} generated + ${r.coverage.captured} captured requests; boundaries: ${kinds || "none"}`,
    ...r.coverage.why.map((w) => `  not exhaustive: ${w}`),
    ...r.pairs.map((p) => `  ${p.pair}: ${p.count}, e.g. ${JSON.stringify(p.example.request)}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** `arbiter diff OLD NEW`: the differing verdicts of two versions of one policy; exit 1 when there are some. */
export async function diffCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--engine", "--requests", "--format"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(DIFF_USAGE), 0);
  if (args.switches.size > 0)
    throw new UsageError(`unknown option \`${[...args.switches][0]}\`\n\n${DIFF_USAGE}`);
  if (args.positional.length !== 2) throw new UsageError(DIFF_USAGE);
  const [oldFile, newFile] = args.positional;
  const named = option(args, "--engine");
  const engine = named !== undefined ? engineByName(named) : engineForFile(newFile);
  if (!engine)
    throw new UsageError(
      named !== undefined
        ? `unknown engine \`${named}\``
        : `cannot tell the engine of \`${newFile}\`: name it with --engine`,
    );
  const format = option(args, "--format") ?? "text";
  if (format !== "text" && format !== "json")
    throw new UsageError(`--format: \`${format}\` is not text or json`);
  const oldSource = readText(oldFile, io);
  const newSource = readText(newFile, io);
  if (oldSource === null || newSource === null) return 1;
  const requestsFile = option(args, "--requests");
  const requests: unknown[] = [];
  if (requestsFile !== undefined) {
    const text = readText(requestsFile, io);
    if (text === null) return 1;
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() === "") continue;
      try {
        requests.push(JSON.parse(lines[i]));
      } catch (e) {
        io.stderr(`${requestsFile}:${i + 1}: not a JSON request: ${(e as Error).message}\n`);
        return 1;
      }
    }
  }
  const r = diffPolicies(engine.name, oldSource, newSource, { requests });
  if (!r.ok) {
    if (r.error.errors.length === 0) io.stderr(`${r.error.message}\n`);
    const shown = r.error.side === "old" ? oldFile : newFile;
    for (const e of r.error.errors) io.stderr(`${errorLine(shown, e)}\n`);
    return 1;
  }
  io.stdout(format === "json" ? `${JSON.stringify(r.value, null, 2)}\n` : diffText(r.value));
  return r.value.differing > 0 ? 1 : 0;
}
