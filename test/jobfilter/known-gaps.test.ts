import { describe, it } from "vitest";

describe("jobfilter: known gaps in bounded work (issue 24)", () => {
  // Found in session 37: loading a filters.json of 4,000 rules (761 KB, bench/fixtures.ts chain(4000))
  // takes about 8.5 ms to parse and 120 ms to load (loadFilters(restoreRules())) in node at load 11-19,
  // in one piece, over the 50 ms bound on the decision that pays it.
  it.skip("loading 4,000 filter rules on the first decision stays within the decision bound (not yet: about 120 ms)", () => {});
});
