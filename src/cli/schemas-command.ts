import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  isPolicySchemaName,
  noSchemaMessage,
  policySchema,
  POLICY_SCHEMA_NAMES,
  POLICY_SCHEMAS,
} from "../http/policy-schemas.js";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";

export const SCHEMAS_USAGE = `usage: arbiter schemas -o DIR [NAME...]
       arbiter schemas NAME

Writes the JSON Schema (2020-12) of each policy format and of policy test
files, generated from the definitions Arbiter checks them with, as DIR/NAME.json
(every schema unless NAMEs are given), or prints one schema to stdout. The
Worker serves the same documents at /v1/schemas/NAME.json.

${POLICY_SCHEMA_NAMES.map((n) => `  ${n.padEnd(12)} ${POLICY_SCHEMAS[n].files}`).join("\n")}

pool.conf is HTCondor configuration syntax, not JSON or YAML: it has no schema.
Exit status: 0 written, 1 a file could not be written, 2 usage or an unknown NAME.
`;

/** `arbiter schemas`: the policy formats' JSON Schemas, to files or stdout. */
export async function schemasCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["-o", "--output"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(SCHEMAS_USAGE), 0);
  refuseUnknownSwitches(args, [], SCHEMAS_USAGE);
  for (const name of args.positional)
    if (!isPolicySchemaName(name)) throw new UsageError(noSchemaMessage(name));
  const dir = option(args, "-o") ?? option(args, "--output");
  const text = (name: string) => JSON.stringify(policySchema(name as never), null, 2) + "\n";
  if (dir === undefined) {
    if (args.positional.length !== 1) throw new UsageError(SCHEMAS_USAGE);
    io.stdout(text(args.positional[0]));
    return 0;
  }
  const names = args.positional.length > 0 ? args.positional : POLICY_SCHEMA_NAMES;
  try {
    mkdirSync(dir, { recursive: true });
    for (const name of names) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, text(name));
      io.stderr(`wrote ${path}\n`);
    }
  } catch (e) {
    io.stderr(`arbiter schemas: ${(e as Error).message}\n`);
    return 1;
  }
  return 0;
}
