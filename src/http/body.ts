import type { Context } from "hono";
import { compile, type z } from "zod";
import type { AppEnv } from "../env.js";
import {
  checkJsonShape,
  describeJsonShape,
  JSON_SHAPE_LIMITS,
  type JsonShapeViolation,
} from "../engines/common/json-shape.js";
import { locateJsonProblem } from "../engines/common/json-syntax.js";
import { parseExactJson } from "../engines/common/exact-json.js";
import { closestName } from "../engines/common/did-you-mean.js";
import { ApiError, type ErrorDetail } from "./errors.js";
import { readCappedText } from "../read-capped.js";
import { knownKeysAt } from "./known-keys.js";
import { requestHeadersOf } from "./request-id.js";

/** The largest request body any route reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the raw body as text, refusing more than `limit` bytes without buffering them all.
 * Not an async function: a body with a declared length is the runtime's own read, handed
 * on as it is (no promise of ours around it, nor Hono's body cache: each route reads its
 * body once, through here).
 */
export function readText(c: Context<AppEnv>, limit = MAX_BODY_BYTES): Promise<string> {
  const length = requestHeadersOf(c).get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  // A declared length within the limit is enforced by the runtime: read it in one go.
  if (Number.isFinite(declared)) return c.req.raw.text();
  return readCapped(c.req.raw.body, limit);
}

async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  const text = await readCappedText(body, limit);
  if (text === null) throw tooLarge(limit);
  return text;
}

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `request body exceeds ${limit} bytes`);
}

/** Reads the body's text, insisting on a JSON content type (a promise, rejected for another type). */
export function readJsonText(c: Context<AppEnv>): Promise<string> {
  const type = requestHeadersOf(c).get("content-type") ?? "";
  if (!JSON_TYPE.test(type.trim())) {
    return Promise.reject(
      new ApiError("unsupported_media_type", "the request body must be `application/json`"),
    );
  }
  return readText(c);
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

/**
 * Parses body text as JSON; a syntax error is the 400 `invalid_json`, a value
 * nested too deeply or a container with too many items the 400 that names the
 * field and the limit, before any recursive code sees the value.
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ApiError("invalid_json", `the request body is not valid JSON: ${(e as Error).message}`);
  }
  checkBodyShape(value);
  return value;
}

/** The 400 for a body that breaks the JSON shape limits. */
export function shapeError(v: JsonShapeViolation): ApiError {
  const code = v.kind === "depth" ? "nesting_too_deep" : "too_many_items";
  const message = describeJsonShape(v);
  return new ApiError(code, message, [{ code, message, at: pointer(v.path) }]);
}

/** Throws the 400 for a parsed body nested too deeply or holding too many items. */
export function checkBodyShape(value: unknown): void {
  const violation = checkJsonShape(value);
  if (violation !== null) throw shapeError(violation);
}

/** Parses body text as JSON with integers past 2^53 kept exact (as bigints); a syntax error is the 400 `invalid_json`. */
export function parseExactJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = parseExactJson(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    const deep = depthRefused(text);
    if (deep !== null) throw shapeError(deep);
    throw new ApiError("invalid_json", `the request body is not valid JSON: ${e.message}`);
  }
  checkBodyShape(value);
  return value;
}

/**
 * The first container nested past the body limit in a text a parser refused
 * (the exact-integer reader stops deep nesting itself, before the shape check
 * could name it), or null when the refusal was about something else.
 */
export function depthRefused(text: string): JsonShapeViolation | null {
  const problem = locateJsonProblem(text, JSON_SHAPE_LIMITS.maxDepth);
  return problem !== null && "depth" in problem ? problem.depth : null;
}

/** Parses the body as JSON, insisting on a JSON content type. */
export async function readJsonValue(c: Context<AppEnv>): Promise<unknown> {
  return parseJsonText(await readJsonText(c));
}

/** Turns a zod path into a JSON pointer, the `at` of every detail. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** Renders a zod path as the field name users wrote: `tags.namespace`, `machines[3]`. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out === "" ? "body" : out;
}

/**
 * The schema with zod's compiled fast path, when the runtime lets it be compiled now: a
 * function generated from the schema that checks and copies a valid value in one pass,
 * falling back to zod's interpreter (the same issues, the same errors) for any value it
 * does not accept. workerd builds functions from text only while a Worker starts
 * (`allow_eval_during_startup`, on from compatibility date 2025-06-01), so call it at module
 * load; where it cannot compile (later, or a schema with a reference cycle such as
 * `z.json()`) it answers the schema itself, and validation is zod's interpreter as before.
 */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  let out = compiled.get(schema);
  if (out === undefined) {
    try {
      out = compile(schema);
    } catch {
      out = schema;
    }
    compiled.set(schema, out);
  }
  return out as S;
}

/** Each schema's compiled form (or the schema itself), made once however many routes validate with it: a compile costs a few ms of CPU. */
const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Checks a value against a zod schema, turning issues into a 400 that names each field.
 * `fast`, when given, is asked first: a schema taking part of what `schema` takes and
 * answering the same value for it.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, fast?: z.ZodType): z.output<S> {
  if (fast !== undefined) {
    const quick = fast.safeParse(value);
    if (quick.success) return quick.data as z.output<S>;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details: ErrorDetail[] = parsed.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? unknownKeyDetails(schema, issue.path, issue.keys)
      : [
          {
            code: issue.code,
            message: `\`${fieldName(issue.path)}\`: ${issue.message}`,
            at: pointer(issue.path),
          },
        ],
  );
  throw new ApiError("invalid_request", details[0]?.message ?? "the request is invalid", details);
}

/** One detail per unknown key, each naming the key and, when a known key is close, suggesting it. */
function unknownKeyDetails(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  keys: readonly string[],
): ErrorDetail[] {
  const known = keys.length > 0 ? knownKeysAt(schema, path) : [];
  return keys.map((key) => {
    const suggestion = closestName(key, known);
    const at = [...path, key];
    const hint = suggestion === undefined ? "" : ` (did you mean \`${suggestion}\`?)`;
    return {
      code: "unrecognized_keys",
      message: `\`${fieldName(at)}\`: unknown key${hint}`,
      at: pointer(at),
      ...(suggestion !== undefined ? { suggestion } : {}),
    };
  });
}

/** Reads and validates a JSON body in one step. */
export async function readJson<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  return validate(schema, await readJsonValue(c));
}
