/**
 * The per-decision classes of the hot paths keep one live instance each (shapes.ts): without it V8
 * collects their maps at a full collection between requests and throws away the optimized code
 * that checks them (in workerd, 35–39 functions of the match route at every full collection).
 */
import { setFlagsFromString } from "node:v8";
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
import { toEngineRequest } from "../../http/schemas/limits.js";
import { decideLimits } from "../limits/index.js";
import { DiagLines } from "../limits/diag-lines.js";

describe("kept shapes", () => {
  it("keeps one instance of each class the decision routes' hot paths make per request", () => {
    const kept = keptShapes();
    for (const cls of [Lexer, AdNamesReader, ClassAd, EvalState, QueueView, Parser, RequestScope, DiagLines])
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
    // the limits verdict writes its own JSON too
    expect(kept.filter((o) => VERDICT_JSON in o && "diagnostics" in o && "classifiers" in o).length).toBe(1);
  });

  it("keeps instances made as the hot paths make theirs: an evaluation state's work limit a small integer", () => {
    const state = keptShapes().find((o) => o instanceof EvalState) as unknown as { workLimit: number };
    expect(Number.isInteger(state.workLimit)).toBe(true);
    const lexer = keptShapes().find((o) => o instanceof Lexer) as Lexer;
    expect(lexer.codes.length).toBe(1);
  });
});

// V8's own test of two objects' hidden classes (the flag must be set before the function is parsed)
setFlagsFromString("--allow-natives-syntax");
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

const idle = { test: { type: "idle", spec: {} } };
const noLookups = { now: 0, explain: false } as unknown as Parameters<typeof decideLimits>[2];

describe("one hidden class per limits request and decision", () => {
  it("gives every engine request the same members, whichever the body has", () => {
    const plain = toEngineRequest({ task: idle }, "198.51.100.1");
    const full = toEngineRequest(
      {
        requester: "a",
        server: "b",
        task: idle,
        run: { start: "2026-01-01T00:00:00Z", duration: "PT1M" },
        rewrite: false,
        prioritize: true,
      },
      "a",
    );
    expect(sameMap(plain, full)).toBe(true);
    expect(plain).toEqual({ requester: "198.51.100.1", task: idle });
    expect(Object.keys(plain)).toEqual(["requester", "server", "task", "run", "rewrite", "prioritize"]);
  });

  it("keeps the decision's members and their order", async () => {
    const open = await decideLimits(null, toEngineRequest({ task: idle }, "a"), noLookups);
    expect(Object.keys(open)).toEqual(["verdict", "cacheable", "outcome"]);
    expect(open).toMatchObject({ cacheable: true, outcome: "allowed" });
  });
});
