/** Regex builtins: match, test, capture dispatch, split/2, sub/gsub. */
import type { Json } from "../engines/common/json.js";
import { defNative } from "./builtins-define.js";
import { captureEach, matchAll } from "./regex.js";
import { setOrderedKey } from "./key-order.js";
import { add } from "./ops.js";
import { desc, fail, typeOf, type JObj } from "./values.js";

/** Splits `match($val)`'s argument into regex and flags as jq's dispatch does. */
function reAndFlags(v: Json): [Json, Json] {
  if (typeof v === "string") return [v, null];
  if (Array.isArray(v) && v.length > 1) return [v[0], v[1]];
  if (Array.isArray(v) && v.length > 0) return [v[0], null];
  return fail(`${typeOf(v)} not a string or array`);
}

function emitAll(xs: Json[], emit: (v: Json) => boolean): boolean {
  for (const x of xs) if (emit(x)) return true;
  return false;
}

defNative("match", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (re) => a[1].gen(i, env, (fl) => emitAll(matchAll(i, re, fl, false) as Json[], emit))),
});
defNative("test", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (re) => a[1].gen(i, env, (fl) => emit(matchAll(i, re, fl, true) as boolean))),
  fn: (i, re, fl) => matchAll(i, re, fl, true) as boolean,
});
defNative("match", 1, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (v) => {
      const [re, fl] = reAndFlags(v);
      return emitAll(matchAll(i, re, fl, false) as Json[], emit);
    }),
});
defNative("test", 1, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (v) => {
      const [re, fl] = reAndFlags(v);
      return emit(matchAll(i, re, fl, true) as boolean);
    }),
  fn: (i, v) => {
    const [re, fl] = reAndFlags(v);
    return matchAll(i, re, fl, true) as boolean;
  },
});

function captureObject(m: JObj): JObj {
  const o: JObj = {};
  for (const c of m.captures as JObj[]) if (c.name !== null) setOrderedKey(o, c.name as string, c.string);
  return o;
}

defNative("capture", 1, {
  gen: (i, a, env, emit) => {
    // a literal pattern (the usual case) is its one value: no generator, no callback
    const node = a[0].node;
    if (node.k === "literal" && typeof node.v === "string") return captureEach(i, node.v, null, emit);
    return a[0].gen(i, env, (v) => {
      // a pattern alone (the usual case) needs no [pattern, flags] pair
      if (typeof v === "string") return captureEach(i, v, null, emit);
      const [re, fl] = reAndFlags(v);
      return captureEach(i, re, fl, emit);
    });
  },
});
defNative("capture", 2, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (re) => a[1].gen(i, env, (fl) => captureEach(i, re, fl, emit))),
});

function cpSlice(s: string, from: number, to: number): string {
  if (!/[\uD800-\uDFFF]/.test(s)) return s.slice(from, to);
  return Array.from(s).slice(from, to).join("");
}

defNative("split", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (re) =>
      a[1].gen(i, env, (fl) => {
        // jq 1.7.1's splits: `match($re; "g" + flags)`, so other flags fail at the `+`
        const ms = matchAll(i, re, add("g", fl) as string, false) as JObj[];
        const s = i as string;
        const out: Json[] = [];
        let prev = 0;
        for (const m of ms) {
          out.push(cpSlice(s, prev, m.offset as number));
          prev = (m.offset as number) + (m.length as number);
        }
        out.push(cpSlice(s, prev, Infinity));
        return emit(out);
      }),
    ),
});

defNative("sub", 3, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (re) =>
      a[2].gen(i, env, (fl) => {
        if (typeof fl !== "string" && fl !== null) return fail(`${desc(fl)} is not a string`);
        const ms = matchAll(i, re, fl, false) as JObj[];
        const s = i as string;
        const results: Json[] = [];
        let prev = 0;
        for (const m of ms) {
          const gap = cpSlice(s, prev, m.offset as number);
          const inserts: Json[] = [];
          a[1].gen(captureObject(m), env, (v) => (inserts.push(v), false));
          for (let ix = 0; ix < inserts.length; ix++) {
            const ins = inserts[ix];
            // jq 1.7.1: `.result[$ix] += $gap + $inserts[$ix]` (a null insert adds nothing, others fail at the `+`)
            results[ix] = add(results[ix] ?? null, add(gap, ins));
          }
          prev = (m.offset as number) + (m.length as number);
        }
        if (results.length === 0) return emit(s);
        const rest = cpSlice(s, prev, Infinity);
        for (const r of results) if (emit((r as string) + rest)) return true;
        return false;
      }),
    ),
});
