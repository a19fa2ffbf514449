/**
 * Hostile policy sources of issue 24 (items 6 and 7), as data: each builds a
 * source of about `bytes` characters and says which answer
 * `POST /v1/policies/{engine}/validate` must give. `test/hostile/compile.test.ts`
 * sends them through the Worker at about 1 MB; `npm run bench:hostile` measures
 * the CPU each takes at two sizes, to show the work is linear (the goal: at
 * most 1 s of CPU per MiB). Pure data: no runtime imports.
 */

/** One hostile policy source. */
export interface CompileRow {
  name: string;
  engine: "limits" | "match" | "customs" | "jobfilter";
  /** A source of about `bytes` characters (never more than the 1 MiB body limit for bytes ≤ 1,000,000). */
  source(bytes: number): string;
  /** Null when the answer is the documented one, else what is wrong with it. */
  check(status: number, body: unknown): string | null;
}

type ErrorBody = { error?: { code?: string; details?: { code: string; message: string; at: string }[] } };

/** A 422 `policy_invalid` whose first detail has this code (and, when given, a message holding `text`). */
function refused(code: string, text?: string) {
  return (status: number, body: unknown): string | null => {
    const detail = (body as ErrorBody).error?.details?.[0];
    if (status !== 422) return `status ${status}`;
    if (detail?.code !== code) return `first detail ${JSON.stringify(detail)}, wanted ${code}`;
    return text === undefined || detail.message.includes(text)
      ? null
      : `message lacks \`${text}\`: ${detail.message}`;
  };
}

/** A 200 `valid`. */
function accepted(status: number, body: unknown): string | null {
  return status === 200 && (body as { valid?: boolean }).valid === true
    ? null
    : `status ${status}: ${JSON.stringify(body).slice(0, 300)}`;
}

/** `count` lines of `line` to fill about `bytes` characters after a head of `head` characters. */
function lines(bytes: number, head: number, line: string): number {
  return Math.max(1, Math.floor((bytes - head) / line.length));
}

/** A filters.json rule whose predicate is `["!", …]` nested `n` deep (JSON nested 2n + 4 levels). */
function deepRule(n: number, priority: string): string {
  return `[{"priority": ${priority}, "predicates": [["opcode", ${'["!", '.repeat(n)}["==", "OP_ID", "x"]${"]".repeat(n)}]]}]`;
}

export const COMPILE_ROWS: CompileRow[] = [
  {
    name: "pool.conf: one expression continued over `\\` lines (`&& true \\` per line)",
    engine: "match",
    source: (bytes) =>
      "NEGOTIATOR_PE_JOB_EXPR = true \\\n" +
      "  && true \\\n".repeat(lines(bytes, 32, "  && true \\\n")) +
      "  && true\n",
    check: refused("match_expr_syntax", "nested too deeply"),
  },
  {
    name: "pool.conf: one string continued over `\\` lines (valid)",
    engine: "match",
    source: (bytes) =>
      'NEGOTIATOR_PE_JOB_EXPR = size("a \\\n' +
      "aaaa \\\n".repeat(lines(bytes, 40, "aaaa \\\n")) +
      '") > 0\n',
    check: accepted,
  },
  {
    name: "pool.conf: `\\` lines with a comment line between each",
    engine: "match",
    source: (bytes) =>
      'NEGOTIATOR_PE_JOB_EXPR = size("a \\\n' +
      "# c\naaaa \\\n".repeat(lines(bytes, 40, "# c\naaaa \\\n")) +
      '") > 0\n',
    check: accepted,
  },
  {
    name: "pool.conf: `$(U:$(U:…))` macro defaults nested to the end",
    engine: "match",
    source: (bytes) => {
      const n = lines(bytes, 40, "$(U:)");
      return `NEGOTIATOR_PE_JOB_EXPR = ${"$(U:".repeat(n)}true${")".repeat(n)}\n`;
    },
    check: refused("match_macro_too_deep", "nested more than 32 macros deep"),
  },
  {
    name: "pool.conf: 30-deep macro defaults repeated along the line",
    engine: "match",
    source: (bytes) => {
      const unit = `${"$(U:".repeat(30)}1${")".repeat(30)} + `;
      return `NEGOTIATOR_PE_JOB_EXPR = ${unit.repeat(lines(bytes, 40, unit))}1\n`;
    },
    check: refused("match_expr_syntax", "nested too deeply"),
  },
  {
    // every macro of the line is read and looked up: a search of the rest of the text
    // per macro (for its `:`) made this quadratic (400 KB took a third of a second)
    name: "pool.conf: `$(E)` of an empty macro repeated along one line (valid)",
    engine: "match",
    source: (bytes) => `E =\nNEGOTIATOR_PE_JOB_EXPR = ${"$(E)".repeat(lines(bytes, 40, "$(E)"))}true\n`,
    check: accepted,
  },
  {
    name: "pool.conf: assignments, one per line",
    engine: "match",
    source: (bytes) => "A = 1\n".repeat(lines(bytes, 40, "A = 1\n")) + "NEGOTIATOR_PE_JOB_EXPR = $(A) > 0\n",
    check: accepted,
  },
  {
    name: "limits.json: invalid JSON nested to the end (`[[[…1,]`)",
    engine: "limits",
    source: (bytes) => "[".repeat(bytes - 3) + "1,]",
    check: refused("limits_too_deep", "nested more than 100 levels deep"),
  },
  {
    name: "customs.json: invalid JSON nested to the end",
    engine: "customs",
    source: (bytes) => `{"networks": {"1": {"maxLoad": ${"[".repeat(bytes - 40)}1,]`,
    check: refused("customs_too_deep", "nested more than 100 levels deep"),
  },
  {
    name: "filters.json: invalid JSON nested to the end",
    engine: "jobfilter",
    source: (bytes) => "[".repeat(bytes - 3) + "1,]",
    check: refused("jobfilter_too_deep", "nested more than 100 levels deep"),
  },
  {
    name: "filters.json: a big integer and a valid predicate nested to the end",
    engine: "jobfilter",
    source: (bytes) => deepRule(Math.floor((bytes - 80) / 7), "12345678901234567890"),
    check: refused("jobfilter_too_deep", "nested more than 100 levels deep"),
  },
];
