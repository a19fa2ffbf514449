/** What bench/classad.ts runs, in one module so that it can be bundled as wrangler bundles the Worker. */
export { clearExprCache, readAd } from "../src/engines/classad/ad-input.js";
export { evalAttr } from "../src/engines/classad/evaluate.js";
export { decideMatch, decideParsedMatch, symmetricMatch } from "../src/engines/classad/match.js";
export { compileMatchPolicy, loadMatchPolicy } from "../src/engines/classad/policy.js";
export { EvalState } from "../src/engines/classad/state.js";
