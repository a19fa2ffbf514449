/**
 * Reading a limits file: JSON with `#` comment members removed at every depth
 * (pScheduler's comment convention), last duplicate key winning.
 */
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { describeJsonShape, POLICY_JSON_LIMITS, shapePointer } from "../common/json-shape.js";
import { parseJsonTextSteps, pythonJsonMessage } from "../common/json-syntax.js";
import { finish, type Steps } from "../common/slices.js";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";

/** Removes every member whose key starts with `#`, inside objects and arrays alike. */
export function stripComments(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripComments);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith("#")) continue;
      // a "__proto__" member stays a member (plain assignment would set the prototype)
      if (k === "__proto__")
        Object.defineProperty(out, k, {
          value: stripComments(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = stripComments(v);
    }
    return out;
  }
  return value;
}

/** Parses the limits text into a comment-free JSON value; bad JSON (in pScheduler's words, at its `line:column`) or JSON nested too deeply is the error. */
export function parseLimitsText(text: string): Result<Json, PolicyError> {
  return finish(parseLimitsTextSteps(text));
}

/** {@link parseLimitsText} as resumable work (common/slices.ts): scan, parse, shape check and comment removal, each a piece. */
export function* parseLimitsTextSteps(text: string): Steps<Result<Json, PolicyError>> {
  const read = yield* parseJsonTextSteps(text, POLICY_JSON_LIMITS);
  if (!read.ok && "error" in read) {
    // pScheduler's json_load wraps Python's json message: "Invalid JSON: Expecting value: line 1 column 1 (char 0)".
    const e = read.error;
    return err(
      policyError(
        "limits_invalid_json",
        `Invalid limit configuration: Invalid JSON: ${pythonJsonMessage(e)}`,
        `${e.line}:${e.column}`,
      ),
    );
  }
  if (!read.ok) {
    const message = `Invalid limit configuration: ${describeJsonShape(read.shape, "the configuration")}`;
    return err(policyError("limits_too_deep", message, shapePointer(read.shape.path)));
  }
  yield;
  return ok(stripComments(read.value as Json));
}
