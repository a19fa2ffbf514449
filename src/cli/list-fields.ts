import { option, UsageError, type ParsedArgs } from "./args.js";

/** One column a list command can show: its `-o` name, its header, what it means, and how a row renders in it. */
export interface ListField<T> {
  name: string;
  title: string;
  doc: string;
  /** Numbers are aligned right, as gnt-job aligns them. */
  numeric?: boolean;
  value: (row: T) => string;
}

/** How a table is printed: with or without the header line, and padded or joined by a separator. */
export interface TableStyle {
  header: boolean;
  separator: string | undefined;
}

/** The options every list command takes besides its own (`-o`, `--no-headers`, `--separator`). */
export const LIST_VALUED = ["-o", "--output", "--separator"];

/** The usage text of the list options and the API commands' common options (ends without a newline). */
export const LIST_OPTIONS_HELP = `List options, as gnt-job list takes them:
  -o [+]FIELD,...    the fields to show; a leading + adds them to the default ones
  --no-headers       no header line
  --separator SEP    cells joined by SEP instead of padded columns
  --format json      the API's answer as JSON instead of a table (-o does not apply)
Common options: --url URL (default $ARBITER_URL or http://127.0.0.1:8787);
the token is read from $ARBITER_TOKEN.`;

/**
 * The fields `-o` asks for, as Ganeti's list commands read it: a comma-separated
 * list of field names replaces the default list, one starting with `+` is added
 * to it; an unknown name is a usage error listing the known ones.
 */
export function selectFields<T>(
  all: readonly ListField<T>[],
  defaults: readonly string[],
  spec: string | undefined,
): ListField<T>[] {
  const byName = new Map(all.map((f) => [f.name, f]));
  const text = spec ?? "";
  const names = text.startsWith("+")
    ? [...defaults, ...text.slice(1).split(",")]
    : spec === undefined
      ? [...defaults]
      : text.split(",");
  return names.map((name) => {
    const field = byName.get(name.trim());
    if (field === undefined)
      throw new UsageError(`-o: unknown field \`${name}\` (fields: ${all.map((f) => f.name).join(", ")})`);
    return field;
  });
}

/** The `-o` fields and table style of a parsed command line. */
export function listOptions<T>(
  args: ParsedArgs,
  all: readonly ListField<T>[],
  defaults: readonly string[],
): { fields: ListField<T>[]; style: TableStyle } {
  const spec = option(args, "-o") ?? option(args, "--output");
  return {
    fields: selectFields(all, defaults, spec),
    style: { header: !args.switches.has("--no-headers"), separator: option(args, "--separator") },
  };
}

/**
 * Prints rows as gnt-job's list does: a header line of titles (unless
 * `--no-headers`), then one line per row, columns padded to their widest cell
 * and joined by one space, numbers aligned right, no padding after a last
 * left-aligned column; with `--separator`, cells joined by it unpadded.
 */
export function formatTable<T>(
  fields: readonly ListField<T>[],
  rows: readonly T[],
  style: TableStyle,
): string {
  const lines = [
    ...(style.header ? [fields.map((f) => f.title)] : []),
    ...rows.map((r) => fields.map((f) => f.value(r))),
  ];
  if (style.separator !== undefined) return lines.map((cells) => cells.join(style.separator) + "\n").join("");
  const widths = fields.map((_, i) => Math.max(0, ...lines.map((cells) => cells[i].length)));
  const last = fields.length - 1;
  if (last >= 0 && !fields[last].numeric) widths[last] = 0;
  return lines
    .map(
      (cells) =>
        cells
          .map((cell, i) => (fields[i].numeric ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
          .join(" ") + "\n",
    )
    .join("");
}

/** The help lines naming each field, its title and meaning, default fields marked. */
export function fieldsHelp<T>(all: readonly ListField<T>[], defaults: readonly string[]): string {
  const width = Math.max(...all.map((f) => f.name.length));
  return all
    .map((f) => `  ${f.name.padEnd(width)}  ${defaults.includes(f.name) ? "*" : " "} ${f.title}: ${f.doc}\n`)
    .join("");
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** A time as gnt-job prints one (`%F %T`, local time); `-` when there is none. */
export function listTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "-";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/** A yes/no cell as Ganeti prints booleans (`Y`/`N`). */
export const yesNo = (b: boolean): string => (b ? "Y" : "N");
