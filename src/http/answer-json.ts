/**
 * Writing an answer's JSON. JSON.stringify recurses: a value nested deeply
 * enough (one a policy's script built, past what its engine bounds) overflows
 * the stack, and a huge one exceeds the longest string the runtime makes.
 * Either is the documented 422 `answer_too_deep`, never a 500; the common case
 * costs nothing more than the stringify itself.
 */
import { ApiError } from "./errors.js";

/** The JSON text of an answer (with `stringify`, JSON.stringify by default); one that cannot be written is the 422 `answer_too_deep`. */
export function answerJson(value: unknown, stringify: (value: unknown) => string = JSON.stringify): string {
  try {
    return stringify(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new ApiError(
      "answer_too_deep",
      "the answer holds a value nested too deeply (or too large) to write as JSON",
    );
  }
}
