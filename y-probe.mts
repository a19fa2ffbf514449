import { parseDocument, Parser } from "yaml";
const kinds: Record<string, (n: number) => string> = {
  seqdash: (n) => "- ".repeat(n) + "x",
  qkey: (n) => "? ".repeat(n) + "x",
  flowseq: (n) => "[".repeat(n) + "]".repeat(n),
  flowmap: (n) => "{a: ".repeat(n) + "}".repeat(n),
  block: (n) => Array.from({ length: n }, (_, i) => " ".repeat(i) + "a:").join("\n") + " x",
  anchors: (n) => "a0: &a0 [x,x,x,x,x,x,x,x,x]\n" + Array.from({ length: n }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i},*a${i},*a${i},*a${i},*a${i},*a${i},*a${i},*a${i},*a${i}]`).join("\n"),
};
const [k, ns] = process.argv.slice(2);
for (const n of ns.split(",").map(Number)) {
  const s = kinds[k](n);
  const t = performance.now();
  try { const d = parseDocument(s, { uniqueKeys: true, prettyErrors: false }); console.log(k, n, s.length, "ok", (performance.now() - t).toFixed(1), d.errors.length, d.errors[0]?.message.slice(0, 60)); } catch (e) { console.log(k, n, "throw", (performance.now() - t).toFixed(1), String(e).slice(0, 80)); }
}
