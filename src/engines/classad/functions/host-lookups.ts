/**
 * userHome and userMap, the compat-layer functions that consult the host: a
 * password database and the CLASSAD_USER_MAP_* map files. Arbiter has
 * neither, so both answer exactly as HTCondor does in its default
 * configuration: userHome disabled (CLASSAD_ENABLE_USER_HOME is false) and
 * no user map defined.
 */
import { ERROR, UNDEF } from "../values.js";
import type { Builtin } from "./helpers.js";

/**
 * userHome(name[, default]): the default when it is a non-empty String,
 * else UNDEFINED, except that a name which is neither a String nor
 * UNDEFINED is ERROR. A wrong argument count fails the evaluation.
 */
const userHome: Builtin = (args, ad, st) => {
  if (args.length !== 1 && args.length !== 2) {
    st.failed = true;
    return ERROR;
  }
  const d = args.length === 2 ? args[1](ad, st) : "";
  const fallback = typeof d === "string" ? d : "";
  const owner = args[0](ad, st);
  if (owner === UNDEF && fallback === "") return UNDEF;
  if (typeof owner !== "string") return fallback !== "" ? fallback : ERROR;
  return fallback !== "" ? fallback : UNDEF;
};

/**
 * userMap(map, user[, preferred[, default]]): with no map defined there is
 * never a mapping, so the answer is the fourth argument's value when given,
 * else UNDEFINED; an ERROR map name or user is ERROR.
 */
const userMap: Builtin = (args, ad, st) => {
  if (args.length < 2 || args.length > 4) return ERROR;
  const map = args[0](ad, st);
  const user = args[1](ad, st);
  if (args.length >= 3) args[2](ad, st);
  const dflt = args.length === 4 ? args[3](ad, st) : UNDEF;
  if ((typeof map !== "string" || typeof user !== "string") && (map === ERROR || user === ERROR))
    return ERROR;
  return dflt;
};

/** The host-lookup built-ins by lower-cased name. */
export const HOST_LOOKUPS: ReadonlyArray<readonly [string, Builtin]> = [
  ["userhome", userHome],
  ["usermap", userMap],
];
