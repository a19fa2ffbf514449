/**
 * The shape of customs.json as a zod schema: its keys and every bound, built
 * from the settings table (`SETTINGS`) and the pool settings below. The
 * validator (`compileCustomsPolicy`) takes its key lists and bounds from here,
 * and the JSON Schema of customs.json is generated from it. The schemas are made on
 * the first call of `customsShapes()` and kept: an isolate that compiles no customs
 * policy never builds them (docs/performance.md, wt/heap2).
 */
import * as z from "zod";
import { SETTINGS, SETTING_NAMES, type Bound } from "./settings.js";
import { lazily } from "../common/lazy.js";

/** A network number, as customs.json keys `networks` and as `?net=` is written. */
export const NETWORK_NUMBER = /^(0|[1-9]\d{0,9})$/;

/** The pool's own numeric settings: default and bound. */
export const POOL_NUMBERS = {
  downFactor: { fallback: 2, bound: { integer: false, min: 1 } },
  killDelaySeconds: { fallback: 15, bound: { integer: true, min: 1 } },
  permitSeconds: { fallback: 3600, bound: { integer: true, min: 1 } },
} as const satisfies Record<string, { fallback: number; bound: Bound }>;

/** A number within a bound, as a zod schema. */
function boundSchema(b: Bound): z.ZodType {
  let n = b.integer ? z.number().int() : z.number();
  n = n.min(b.min);
  if (b.max !== undefined) n = n.max(b.max);
  return b.orZero === true ? z.union([z.literal(0), n]) : n;
}

function customsShapesBuild() {
  const comment = z.string().optional().describe("free text, ignored");
  const addresses = (what: string) => z.array(z.string()).optional().describe(what);

  /** Defaults for every host of the pool (or of one network) that omits a setting. */
  const HostDefaultsFile = z.strictObject({
    $comment: comment,
    ...Object.fromEntries(
      SETTING_NAMES.map((n) => [
        n,
        boundSchema(SETTINGS[n].bound).optional().describe(`default ${SETTINGS[n].fallback}`),
      ]),
    ),
    clients: z
      .union([z.literal("ALL"), z.array(z.string())])
      .optional()
      .describe('"ALL" or the host names that may ask for hosts'),
    allow: addresses("addresses and networks added to every host's access list"),
    deny: addresses("addresses and networks refused by every host"),
    sigxcpu: z.boolean().optional().describe("evict with SIGXCPU before SIGTERM"),
  });

  /** The whole customs.json. */
  const CustomsPolicyFile = z
    .strictObject({
      $comment: comment,
      defaults: HostDefaultsFile.optional(),
      networks: z
        .record(z.string().regex(NETWORK_NUMBER), HostDefaultsFile)
        .optional()
        .describe("per network number, defaults over the pool-wide ones"),
      ...Object.fromEntries(
        Object.entries(POOL_NUMBERS).map(([k, v]) => [
          k,
          boundSchema(v.bound).optional().describe(`default ${v.fallback}`),
        ]),
      ),
    })
    .meta({ title: "Arbiter customs host pool policy (customs.json)" });

  return { HostDefaultsFile, CustomsPolicyFile };
}

/** The shapes of customs.json, made on the first call and kept. */
export const customsShapes = lazily(customsShapesBuild);
