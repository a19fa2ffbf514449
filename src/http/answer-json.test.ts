import { describe, expect, it } from "vitest";
import { stringifyExactJson } from "../engines/common/exact-json.js";
import { answerJson } from "./answer-json.js";
import { ApiError } from "./errors.js";

describe("answerJson", () => {
  it("writes what JSON.stringify writes, or the writer it is given", () => {
    expect(answerJson({ a: [1, "b"] })).toBe('{"a":[1,"b"]}');
    expect(answerJson({ id: 12345678901234567890n }, stringifyExactJson)).toBe('{"id":12345678901234567890}');
  });

  it("turns a value too deep to write into the 422 answer_too_deep, not a stack overflow", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    for (const write of [undefined, stringifyExactJson]) {
      let thrown: unknown;
      try {
        answerJson({ verdict: deep }, write);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).code).toBe("answer_too_deep");
      expect((thrown as ApiError).status).toBe(422);
    }
  });
});
