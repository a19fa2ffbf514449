/**
 * The option syntax of Ganeti's command lines (Python's optparse): `--name=value`
 * or `--name value`, a unique prefix of a long name (`--sep=,`), `-oFIELD` or
 * `-o FIELD`, grouped short switches, `--` ending the options. Options may also
 * follow the arguments here (gnt-filter wants them first).
 */

/** One option a command accepts. */
export interface OptionSpec {
  readonly long: string;
  readonly short?: string;
  readonly value: boolean;
}

/** What a command line parsed into, keyed by each option's long name. */
export interface ParsedOptions {
  readonly values: Map<string, string[]>;
  readonly flags: Set<string>;
  readonly args: string[];
}

/** An optparse error: printed after the command's usage line, exit status 2. */
export class OptParseError extends Error {}

function findLong(name: string, specs: readonly OptionSpec[]): OptionSpec {
  const exact = specs.find((s) => s.long === name);
  if (exact) return exact;
  const matches = specs.filter((s) => s.long.startsWith(name));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new OptParseError(`no such option: ${name}`);
  throw new OptParseError(`ambiguous option: ${name} (${matches.map((m) => m.long).join(", ")}?)`);
}

/** Parses argv against the options a command accepts, as optparse would. */
export function parseOptions(argv: readonly string[], specs: readonly OptionSpec[]): ParsedOptions {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const args: string[] = [];
  const store = (spec: OptionSpec, value: string) =>
    values.set(spec.long, [...(values.get(spec.long) ?? []), value]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const spec = findLong(eq < 0 ? a : a.slice(0, eq), specs);
      if (!spec.value) {
        if (eq >= 0) throw new OptParseError(`${spec.long} option does not take a value`);
        flags.add(spec.long);
      } else if (eq >= 0) {
        store(spec, a.slice(eq + 1));
      } else {
        if (i + 1 >= argv.length) throw new OptParseError(`${spec.long} option requires 1 argument`);
        store(spec, argv[++i]);
      }
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const spec = specs.find((s) => s.short === `-${a[j]}`);
        if (!spec) throw new OptParseError(`no such option: -${a[j]}`);
        if (!spec.value) {
          flags.add(spec.long);
          continue;
        }
        if (j + 1 < a.length) store(spec, a.slice(j + 1));
        else if (i + 1 < argv.length) store(spec, argv[++i]);
        else throw new OptParseError(`-${a[j]} option requires 1 argument`);
        break;
      }
      continue;
    }
    args.push(a);
  }
  return { values, flags, args };
}

/** The last value given for an option. */
export function lastValue(parsed: ParsedOptions, long: string): string | undefined {
  const v = parsed.values.get(long);
  return v === undefined ? undefined : v[v.length - 1];
}
