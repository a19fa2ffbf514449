import { describe, expect, it } from "vitest";
import { dfaByteCap, LazyDfa, MAX_DFA_BYTES, MAX_DFA_STATES, STATE_BYTES } from "./dfa.js";
import { parsePattern } from "./parse.js";
import { compileProgram } from "./program.js";

interface Node {
  pcs: Int32Array;
  next: Array<Node | undefined>;
  hi: Map<number, Node> | null;
}

/** The states a DFA can still reach from its start (what it keeps alive), counted by walking its transitions. */
function reachable(dfa: LazyDfa): { states: number; bytes: number } {
  const start = (dfa as unknown as { start: Node }).start;
  const seen = new Set<Node>([start]);
  const todo = [start];
  let bytes = 0;
  while (todo.length > 0) {
    const s = todo.pop() as Node;
    bytes += STATE_BYTES + 4 * s.pcs.length;
    for (const n of [...s.next, ...(s.hi?.values() ?? [])])
      if (n !== undefined && !seen.has(n)) {
        seen.add(n);
        todo.push(n);
      }
  }
  return { states: seen.size, bytes };
}

function dfaOf(pattern: string): LazyDfa {
  const parsed = parsePattern(pattern, "re2", {});
  if ("kind" in parsed) throw new Error(parsed.kind);
  const prog = compileProgram(parsed.node, parsed.names.length, parsed.word);
  if (prog === null) throw new Error("too large");
  return new LazyDfa(prog);
}

/** A fixed pseudo-random text over `letters`. */
function text(seed: number, n: number, letters: string): string {
  let x = seed * 2654435761 + 1;
  let s = "";
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += letters[(x >>> 16) % letters.length];
  }
  return s;
}

describe("the lazy DFA keeps a bounded graph of states (issue 24 item 10)", { timeout: 60_000 }, () => {
  it("drops every state it built when it reaches its bound, not only its index of them", () => {
    // `a` twelve places from the end: 4,096 reachable states, each a set of up to 13 threads
    const dfa = dfaOf("[ab]*a[ab]{12}c");
    for (let i = 0; i < 100; i++) dfa.test(text(i, 200, "ab"));
    const kept = reachable(dfa);
    expect(kept.states).toBeLessThanOrEqual(MAX_DFA_STATES + 1);
    expect(kept.bytes).toBeLessThanOrEqual(dfaByteCap(20) + STATE_BYTES);
    expect(dfa.bytes).toBeLessThanOrEqual(MAX_DFA_BYTES);
  });

  it("bounds the bytes of wide states, not only their number", () => {
    // each state holds hundreds of threads: the byte bound ends the cache long before 2,000 states
    const dfa = dfaOf("(?:[ab]*a[ab]{12}){20}c");
    for (let i = 0; i < 10; i++) dfa.test(text(i, 200, "ab"));
    expect(reachable(dfa).bytes).toBeLessThanOrEqual(MAX_DFA_BYTES + 2 * STATE_BYTES + 4 * 2_000);
    expect(dfa.bytes).toBeLessThanOrEqual(MAX_DFA_BYTES);
  });

  it("answers the same after dropping its states", () => {
    const dfa = dfaOf("[ab]*a[ab]{12}c");
    const re = /[ab]*a[ab]{12}c/;
    for (let i = 0; i < 100; i++) {
      const s = text(i, 100, "ab") + (i % 3 === 0 ? "c" : "");
      expect(dfa.test(s)).toBe(re.test(s));
    }
  });
});
