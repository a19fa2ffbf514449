/**
 * A native version of pScheduler's rewriter library function `change($message)`, for the limits
 * engine's rewriter (src/engines/limits/scripts.ts), which defines it in jq as
 *
 *     def change($message): .__REWRITER_PRIVATE__.changed = true
 *       | if $message != null then .__REWRITER_PRIVATE__.diags += [$message | tostring] else . end;
 *
 * The jq body copies the task and its private object twice (once per assignment); this copies them
 * once and makes the second write in place on its own copies, charging the second copy as the jq
 * body would. Reads, errors, their order, key order and outputs are the jq body's.
 */
import type { Json } from "../engines/common/json.js";
import type { Native } from "./compile.js";
import { binopFn, indexValue } from "./ops.js";
import { pathCharge } from "./path-writer.js";
import { setFieldOf } from "./paths.js";
import { fieldSite } from "./eval-helpers.js";
import { printCompact } from "./print.js";
import { ALLOC, charge, COPY_KEY, KEY, sizeOf } from "./runtime.js";
import { setKey, type JObj } from "./values.js";

const RW = "__REWRITER_PRIVATE__";
const plus = binopFn("+");
/** The load sites of the keys this writes (see `fieldSite`). */
const RW_SITE = fieldSite(RW);
const CHANGED_SITE = fieldSite("changed");

/** What a literal two-key path assignment charges for its path (as PathWriter.set/update). */
const PATH_CHARGE = pathCharge(2);

/** `change($message)` for one value `m` of `$message`, on the task `t`. */
function changeOne(t: Json, m: Json): Json {
  // `.RW.changed = true`: the path's reads (and their errors), its charge, then one copy of each container
  const priv = t === null ? null : indexValue(t, RW);
  if (priv !== null) indexValue(priv, "changed");
  charge(PATH_CHARGE);
  const priv1 = setFieldOf(priv, "changed", CHANGED_SITE, true) as JObj;
  const t1 = setFieldOf(t, RW, RW_SITE, priv1) as JObj;
  if (m === null) return t1;
  // `.RW.diags += [$message | tostring]`: the right side first, then the reads, the charge and the `+`
  charge(1 + ALLOC);
  const added: Json[] = [typeof m === "string" ? m : printCompact(m)];
  const old = indexValue(priv1, "diags");
  charge(PATH_CHARGE);
  const diags = plus(old, added);
  // the jq body copies both again here; these copies are this call's own, so they are written in place
  charge(COPY_KEY * sizeOf(priv1) + KEY + ALLOC);
  setKey(priv1, "diags", diags);
  charge(COPY_KEY * sizeOf(t1) + KEY + ALLOC);
  return t1;
}

/** The rewriter library's functions implemented natively, by `name/arity`. */
export const REWRITER_NATIVES: Readonly<Record<string, Native>> = {
  "change/1": { gen: (i, a, env, emit) => a[0].gen(i, env, (m) => emit(changeOne(i, m))) },
};
