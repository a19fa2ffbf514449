import { describe, expect, it } from "vitest";
import { isConstantJq } from "./jq-constant.js";

describe("isConstantJq", () => {
  it.each([
    ["true"],
    ['"closed"'],
    ["1 | length"],
    ['if 1 > 2 then true else "x" end'],
    ["$max > 3"],
    ["[range(3)] | length == 3"],
    ["reduce range(3) as $i (0; . + $i) | . > 1"],
    ["true as $t | $t"],
    ['try error("x") catch .'],
  ])("proves %s constant", (script) => {
    expect(isConstantJq(script, ["max"])).toBe(true);
  });

  it.each([
    [".a", "the task"],
    [".a | 1", "the left side's outputs decide how often the right side runs"],
    [". as $t | true", "as many outputs as the task gives"],
    ["$other", "a variable not bound from args"],
    ["now > 0", "the clock"],
    ["$ENV.HOME", "the environment"],
    ["input", "another input"],
    ["def f: .; f", "the program's own function"],
    ['import "pscheduler/iso8601" as iso; iso::duration_as_seconds("PT1S") > 0', "an imported function"],
    ["if true then 1 end", "an if without else gives the input"],
    ["{(.k): 1}", "a key read from the task"],
  ])("does not prove %s constant (%s)", (script) => {
    expect(isConstantJq(script, ["max"])).toBe(false);
  });
});
