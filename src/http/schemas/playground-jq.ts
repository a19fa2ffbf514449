import * as z from "zod";

/** One `--arg NAME VALUE` (or, with `json`, `--argjson NAME TEXT`). */
export const JqNamedArg = z.strictObject({
  name: z.string().min(1).max(256),
  value: z.string().max(100_000),
  json: z.boolean().default(false),
});

/** The body of `POST /v1/playground/jq`: a jq program, its input text and the command line's toggles. */
export const JqPlaygroundBody = z.strictObject({
  program: z.string().max(100_000),
  input: z.string().max(1_000_000).default(""),
  args: z.array(JqNamedArg).max(64).default([]),
  compact: z.boolean().default(false),
  raw_output: z.boolean().default(false),
  slurp: z.boolean().default(false),
  null_input: z.boolean().default(false),
});
/** A jq playground body, as validated. */
export type JqPlaygroundBody = z.infer<typeof JqPlaygroundBody>;

/** What `arbiter jq` printed and its exit status. */
export const JqPlaygroundAnswer = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exit_status: z.number().int(),
  /** Whether the output was cut at 1 MiB. */
  truncated: z.boolean(),
  /** The `arbiter jq` arguments the body stands for (standard input is the input). */
  argv: z.array(z.string()),
});
/** A jq playground answer. */
export type JqPlaygroundAnswer = z.infer<typeof JqPlaygroundAnswer>;
