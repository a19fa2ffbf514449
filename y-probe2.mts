import { Lexer, Parser } from "yaml";
const kinds: Record<string, (n: number) => string> = {
  seqdash: (n) => "- ".repeat(n) + "x",
  qkey: (n) => "? ".repeat(n) + "x",
  flowseq: (n) => "[".repeat(n) + "]".repeat(n),
  flowmap: (n) => "{a: ".repeat(n) + "}".repeat(n),
  colon: (n) => "a: ".repeat(n) + "x",
};
for (const k of Object.keys(kinds)) for (const n of [1000, 10000, 100000]) {
  const s = kinds[k](n);
  let t = performance.now();
  let c = 0; for (const tok of new Lexer().lex(s)) c++;
  const lt = performance.now() - t; t = performance.now();
  let p = 0; try { for (const tok of new Parser().parse(s)) p++; } catch (e) { p = -1; }
  console.log(k, n, "lex", lt.toFixed(1), c, "parse", (performance.now() - t).toFixed(1), p);
}
