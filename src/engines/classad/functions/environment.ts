/**
 * HTCondor's job argument and environment built-ins from its compat layer:
 * argsToList, listToArgs (the V1 and V2 argument syntaxes of condor_submit)
 * and envV1ToV2, mergeEnvironment (the V1 and V2 environment syntaxes), as
 * condor_arglist.cpp and env.cpp read and write them on Unix.
 */
import { EMPTY_AD, literal } from "../classad.js";
import { cmpBytes } from "../operators.js";
import { ERROR, ListValue, UNDEF, type Value } from "../values.js";
import type { Builtin } from "./helpers.js";

const WHITE = " \t\n\r";

/** Splits V2 raw arguments: whitespace separates, single quotes quote, `''` inside quotes is a quote; null when a quote is left open. */
export function splitV2(text: string): string[] | null {
  const out: string[] = [];
  let buf = "";
  let token = false;
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === "'") {
      token = true;
      i++;
      for (;;) {
        if (i >= text.length) return null;
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            buf += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        buf += text[i++];
      }
    } else if (WHITE.includes(c)) {
      i++;
      if (token) {
        out.push(buf);
        buf = "";
        token = false;
      }
    } else {
      token = true;
      buf += c;
      i++;
    }
  }
  if (token) out.push(buf);
  return out;
}

/** Splits V1 raw arguments the Unix way: on whitespace, nothing quotes. */
function splitV1(text: string): string[] {
  return text.split(/[ \t\n\r]+/).filter((a) => a !== "");
}

/** Appends one argument in V2 raw syntax, quoting runs of whitespace and quotes as append_arg does. */
function appendV2(arg: string, out: string): string {
  let result = out.length > 0 ? out + " " : out;
  if (arg === "") result += "''";
  for (const c of arg) {
    if (WHITE.includes(c) || c === "'") {
      if (result.length > 0 && result[result.length - 1] === "'") result = result.slice(0, -1);
      else result += "'";
      if (c === "'") result += "'";
      result += c + "'";
    } else result += c;
  }
  return result;
}

/** Joins arguments in V2 raw syntax. */
export function joinV2(args: readonly string[]): string {
  let out = "";
  for (const a of args) out = appendV2(a, out);
  return out;
}

/** The version argument (1 or 2, default 2), or ERROR as the compat layer reports a bad one. */
function versionOf(
  args: Parameters<Builtin>[0],
  ad: Parameters<Builtin>[1],
  st: Parameters<Builtin>[2],
): 1 | 2 | null {
  if (args.length < 2) return 2;
  const v = args[1](ad, st);
  if (typeof v !== "number" && typeof v !== "bigint") return null;
  // read as a C int, as IsIntegerValue(int&) does
  const n = Number(BigInt.asIntN(32, BigInt(v)));
  return n === 1 ? 1 : n === 2 ? 2 : null;
}

function stringList(items: readonly string[]): Value {
  return new ListValue(
    items.map((s) => literal(s)),
    EMPTY_AD,
  );
}

/** argsToList(args[, version]): the arguments of a V1 or V2 argument string as a list of Strings. */
const argsToList: Builtin = (args, ad, st) => {
  if (args.length !== 1 && args.length !== 2) return ERROR;
  const version = versionOf(args, ad, st);
  if (version === null) return ERROR;
  const text = args[0](ad, st);
  if (typeof text !== "string") return ERROR;
  const list = version === 1 ? splitV1(text) : splitV2(text);
  return list === null ? ERROR : stringList(list);
};

/** listToArgs(list[, version]): a list of Strings as a V1 or V2 argument string; V1 refuses whitespace in an argument. */
const listToArgs: Builtin = (args, ad, st) => {
  if (args.length !== 1 && args.length !== 2) return ERROR;
  const version = versionOf(args, ad, st);
  if (version === null) return ERROR;
  const l = args[0](ad, st);
  if (!(l instanceof ListValue)) return ERROR;
  const items: string[] = [];
  for (let i = 0; i < l.length; i++) {
    const v = l.at(i, st);
    if (typeof v !== "string") return ERROR;
    items.push(v);
  }
  if (version === 2) return joinV2(items);
  let out = "";
  for (const a of items) {
    if (/[ \t\r\n]/.test(a)) return ERROR;
    if (out.length > 0) out += " ";
    out += a;
  }
  return out;
};

/** The value marking an entry kept verbatim because it is an unexpanded `$$()` macro with no `=` (env.cpp's marker). */
const NO_VALUE = "\u0001\u0002\u0003\u0004\u0005\u0006";

/** An environment: names to values, written out sorted by name (a std::map). */
type Env = Map<string, string>;

/** Adds one `NAME=value` entry; false when it is not one (no `=`, or nothing before it). */
function setEntry(env: Env, entry: string): boolean {
  if (entry === "") return false;
  const eq = entry.indexOf("=");
  if (eq < 0 && entry.includes("$$")) {
    env.set(entry, NO_VALUE);
    return true;
  }
  if (eq <= 0) return false;
  env.set(entry.slice(0, eq), entry.slice(eq + 1));
  return true;
}

const V1_DELIMS = "!#$%&*+,-/:;<>?@^`|~\u001f";

/** Merges a V1 environment string: `;` separates, unless the string starts with another permitted delimiter. */
function mergeV1(env: Env, text: string): boolean {
  if (text === "") return true;
  let delim = ";";
  let s = text;
  if (s[0] === delim) s = s.slice(1);
  else if (V1_DELIMS.includes(s[0])) {
    delim = s[0];
    s = s.slice(1);
  }
  let i = 0;
  while (i < s.length) {
    while (i < s.length && WHITE.includes(s[i])) i++;
    let entry = "";
    while (i < s.length) {
      const c = s[i++];
      if (c === "\n" || c === delim) break;
      entry += c;
    }
    if (entry !== "" && !setEntry(env, entry)) return false;
  }
  return true;
}

/** Merges a V2 raw environment string (arguments, each `NAME=value`). */
function mergeV2(env: Env, text: string): boolean {
  const entries = splitV2(text);
  if (entries === null) return false;
  for (const e of entries) if (!setEntry(env, e)) return false;
  return true;
}

/** The V2 raw text of an environment, entries sorted by name. */
function writeV2(env: Env): string {
  const names = [...env.keys()].sort(cmpBytes);
  return joinV2(names.map((n) => (env.get(n) === NO_VALUE ? n : `${n}=${env.get(n) as string}`)));
}

/** envV1ToV2(env): a V1 environment string in V2 syntax; UNDEFINED stays UNDEFINED. */
const envV1ToV2: Builtin = (args, ad, st) => {
  if (args.length !== 1) return ERROR;
  const v = args[0](ad, st);
  if (v === UNDEF) return UNDEF;
  if (typeof v !== "string") return ERROR;
  const env: Env = new Map();
  return mergeV1(env, v) ? writeV2(env) : ERROR;
};

/** mergeEnvironment(env, ...): V2 environment strings merged left to right (later names win); UNDEFINED ones skipped. */
const mergeEnvironment: Builtin = (args, ad, st) => {
  const env: Env = new Map();
  for (const a of args) {
    const v = a(ad, st);
    if (v === UNDEF) continue;
    if (typeof v !== "string" || !mergeV2(env, v)) return ERROR;
  }
  return writeV2(env);
};

/** The argument and environment built-ins by lower-cased name. */
export const ENVIRONMENT: ReadonlyArray<readonly [string, Builtin]> = [
  ["argstolist", argsToList],
  ["listtoargs", listToArgs],
  ["envv1tov2", envV1ToV2],
  ["mergeenvironment", mergeEnvironment],
];
