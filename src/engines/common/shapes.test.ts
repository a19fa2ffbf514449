/**
 * The per-decision classes of the hot paths keep one live instance each (shapes.ts): without it V8
 * collects their maps at a full collection between requests and throws away the optimized code
 * that checks them (in workerd, 35–39 functions of the match route at every full collection).
 */
import { describe, expect, it } from "vitest";
import { VERDICT_JSON } from "./decision.js";
import { keptShapes } from "./shapes.js";
import { Lexer } from "../classad/lexer.js";
import { AdNamesReader, ClassAd } from "../classad/classad.js";
import { EvalState } from "../classad/state.js";
import "../classad/match-verdict.js";
import { QueueView } from "../placement/view.js";
import { Parser } from "../../jq/parser.js";
import { RequestScope } from "../../http/request-id.js";

describe("kept shapes", () => {
  it("keeps one instance of each class the decision routes' hot paths make per request", () => {
    const kept = keptShapes();
    for (const cls of [Lexer, AdNamesReader, ClassAd, EvalState, QueueView, Parser, RequestScope])
      expect(
        kept.some((o) => o instanceof cls),
        cls.name,
      ).toBe(true);
    // both verdict classes of the match route: the small one writes its own JSON
    const verdicts = kept.filter(
      (o) => Object.getPrototypeOf(o) !== Object.prototype && "log" in o && "best" in o,
    );
    expect(verdicts.length).toBe(2);
    expect(verdicts.filter((v) => VERDICT_JSON in v).length).toBe(1);
  });

  it("keeps instances made as the hot paths make theirs: an evaluation state's work limit a small integer", () => {
    const state = keptShapes().find((o) => o instanceof EvalState) as unknown as { workLimit: number };
    expect(Number.isInteger(state.workLimit)).toBe(true);
    const lexer = keptShapes().find((o) => o instanceof Lexer) as Lexer;
    expect(lexer.codes.length).toBe(1);
  });
});
