import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function jqPlaygroundSchemasBuild() {
  /** One `--arg NAME VALUE` (or, with `json`, `--argjson NAME TEXT`). */
  const JqNamedArg = z.strictObject({
    name: z.string().min(1).max(256),
    value: z.string().max(100_000),
    json: z.boolean().default(false),
  });

  /** The body of `POST /v1/playground/jq`: a jq program, its input text and the command line's toggles. */
  const JqPlaygroundBody = z.strictObject({
    program: z.string().max(100_000),
    input: z.string().max(1_000_000).default(""),
    args: z.array(JqNamedArg).max(64).default([]),
    compact: z.boolean().default(false),
    raw_output: z.boolean().default(false),
    slurp: z.boolean().default(false),
    null_input: z.boolean().default(false),
  });

  /** What `arbiter jq` printed and its exit status. */
  const JqPlaygroundAnswer = z.object({
    stdout: z.string(),
    stderr: z.string(),
    exit_status: z.number().int(),
    /** Whether the output was cut at 1 MiB. */
    truncated: z.boolean(),
    /** The `arbiter jq` arguments the body stands for (standard input is the input). */
    argv: z.array(z.string()),
  });

  return { JqNamedArg, JqPlaygroundBody, JqPlaygroundAnswer };
}

/** The schemas above, made on the first call and kept. */
export const jqPlaygroundSchemas = lazily(jqPlaygroundSchemasBuild);

/** A jq playground body, as validated. */
export type JqPlaygroundBody = z.infer<ReturnType<typeof jqPlaygroundSchemas>["JqPlaygroundBody"]>;
/** A jq playground answer. */
export type JqPlaygroundAnswer = z.infer<ReturnType<typeof jqPlaygroundSchemas>["JqPlaygroundAnswer"]>;
