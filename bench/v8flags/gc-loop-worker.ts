/**
 * The Worker bench/v8flags/gc-loop.ts serves: `/run?mode=M&n=N` runs one engine path N times in a loop
 * (no HTTP per iteration), `/gc` runs a full collection (workerd started with --expose-gc), so that what a
 * full collection does to the optimized code of that path can be read from --trace-deopt in seconds.
 */
import { matchDecision } from "../../src/http/routes/match.js";
import { decideNow, routeValidator } from "../../src/http/decision.js";
import { decisionBudget } from "../../src/engines/common/budget.js";
import { embeddedBundle } from "../../src/state/policy-store.js";
import { LoadedBundle } from "../../src/bundle/index.js";
import { readAd } from "../../src/engines/classad/ad-input.js";
import { Lexer } from "../../src/engines/classad/lexer.js";
import { releaseCodes } from "../../src/engines/classad/char-codes.js";
import { DECISION_REQUESTS } from "../http-requests.js";

const policy = new LoadedBundle(embeddedBundle()).policy("match");
const check = routeValidator(matchDecision as never);
const body = DECISION_REQUESTS.match.body as { job: string; machines: string[] };
const text = JSON.stringify(body);
const ads = [body.job, ...body.machines];

const modes: Record<string, () => unknown> = {
  /** The match route's decide: the request checked, the ads read, the match decided (within a budget). */
  match() {
    const request = check(JSON.parse(text));
    const budget = decisionBudget(undefined);
    const ctx = { now: Date.now(), explain: false, budget };
    return decideNow(budget, () => matchDecision.decide(policy as never, request as never, ctx as never));
  },
  /** The bench's nine ads read. */
  read() {
    let k = 0;
    for (const a of ads) if (readAd(a).ok) k++;
    return k;
  },
  /** The lexer alone over the nine ads, token kinds only and charged, as the quick ad reader runs it. */
  lex() {
    let k = 0;
    for (const a of ads) {
      const lx = new Lexer(a);
      lx.charged = true;
      lx.kindsOnly = true;
      while (lx.next() > 1) k++;
      releaseCodes(lx.codes);
    }
    return k;
  },
};

export default {
  fetch(req: Request): Response {
    const u = new URL(req.url);
    if (u.pathname === "/gc") {
      console.log("=== gc");
      (globalThis as unknown as { gc: () => void }).gc();
      return new Response("gc\n");
    }
    const run = modes[u.searchParams.get("mode") ?? "match"];
    if (run === undefined) return new Response(`modes: ${Object.keys(modes).join(", ")}\n`, { status: 400 });
    const n = Number(u.searchParams.get("n") ?? 3000);
    for (let i = 0; i < n; i++) run();
    return new Response(`${n}\n`);
  },
};
