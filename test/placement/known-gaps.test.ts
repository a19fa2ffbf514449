import { describe, it } from "vitest";

describe("placement: known gaps in bounded work (issue 24)", () => {
  // Found in session 37: a filter expression is compiled the first time a decision tests it
  // (LazyRegex in src/engines/placement/filter.ts), and placement decisions carry no budget. An
  // expression without a required literal (`^(u1|v1)$`) cannot be skipped by the rule gates, so
  // the first decision over 9,000 such rules (a policy under 1 MiB) compiles all 9,000: about
  // 480 ms CPU in node at load 11-19, against the 50 ms bound on every decision.
  it.skip("the first decision over 9,000 literal-free filter expressions stays within the decision bound (not yet: compiling is uncharged)", () => {});
});
