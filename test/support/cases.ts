import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";

/** The repository root, for reading case files from tests. */
export const REPO_ROOT = resolve(import.meta.dirname, "../..");

const base = {
  note: z.string().min(1),
  policy: z.unknown().optional(),
  input: z.unknown(),
  now: z.union([z.string(), z.number()]).optional(),
  want: z.unknown().optional(),
  want_error: z.unknown().optional(),
  skip: z.string().min(1).optional(),
  // The upstream test a case comes from.
  from: z.string().min(1).optional(),
};

/**
 * The strict schema of one case: a typo in a key fails the file. Engines that
 * need more fields pass them in `extra` (still strict).
 */
export function caseSchema<E extends z.ZodRawShape>(extra?: E) {
  return z.strictObject({ ...base, ...(extra ?? ({} as E)) });
}

/** The rule a schema cannot say alone: a case expects a result or an error, never both. */
function expectsOne(raw: unknown): boolean {
  const c = raw as { want?: unknown; want_error?: unknown };
  return (c.want !== undefined) !== (c.want_error !== undefined);
}

/** One case with where it came from, for test names. */
export interface LoadedCase<C> {
  file: string;
  index: number;
  name: string;
  value: C;
}

/** Reads and schema-checks every `*.yaml` case file of `test/cases/<engine>/`. */
export function loadCases<E extends z.ZodRawShape>(engine: string, extra?: E) {
  const schema = caseSchema(extra);
  const dir = join(REPO_ROOT, "test/cases", engine);
  const out: LoadedCase<z.output<typeof schema>>[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    const doc: unknown = parse(readFileSync(join(dir, file), "utf8"));
    const list = z.array(z.unknown()).parse(doc);
    list.forEach((raw, index) => {
      const parsed = schema.safeParse(raw);
      if (parsed.success && !expectsOne(parsed.data)) {
        throw new Error(
          `${engine}/${file} case ${index}: a case has exactly one of \`want\` and \`want_error\``,
        );
      }
      if (!parsed.success) {
        throw new Error(
          `${engine}/${file} case ${index}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
      }
      const value = parsed.data as z.output<typeof schema> & { note: string };
      out.push({ file, index, name: `${file} #${index}: ${value.note}`, value });
    });
  }
  return out;
}
