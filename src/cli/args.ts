import { didYouMean } from "../engines/common/did-you-mean.js";

/** Parsed command line: positional arguments, flags with values, boolean switches. */
export interface ParsedArgs {
  positional: string[];
  values: Map<string, string[]>;
  switches: Set<string>;
}

/**
 * Splits argv into positionals, `--name value` options (named in `valued`) and
 * switches; `--name=value` works too. Unknown flags are returned as switches
 * so each command can reject them with its own usage.
 */
export function parseArgs(argv: readonly string[], valued: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], values: new Map(), switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("-") && a !== "-") {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (valued.includes(name)) {
        const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new UsageError(`${name} needs a value`);
        out.values.set(name, [...(out.values.get(name) ?? []), value]);
      } else {
        out.switches.add(name);
      }
    } else {
      out.positional.push(a);
    }
  }
  return out;
}

/** A command line that does not parse: printed with the command's usage, exit 2. */
export class UsageError extends Error {}

/** The last value of an option, if given. */
export function option(args: ParsedArgs, name: string): string | undefined {
  const v = args.values.get(name);
  return v ? v[v.length - 1] : undefined;
}

/**
 * Refuses the first switch a command does not take (`allowed`, besides
 * `--help`/`-h`), naming the closest option its usage text shows.
 */
export function refuseUnknownSwitches(args: ParsedArgs, allowed: readonly string[], usage: string): void {
  for (const s of args.switches) {
    if (allowed.includes(s) || s === "--help" || s === "-h") continue;
    const known = new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? []);
    throw new UsageError(`unknown option ${s}${didYouMean(s, known)}\n\n${usage}`);
  }
}
