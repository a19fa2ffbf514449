/**
 * Literal checks read off the tree that reject most non-matching inputs with
 * a string method, before any matcher runs. Besides the time they save, they
 * keep a policy with thousands of patterns linear: V8's per-call cost of a
 * RegExp grows with the number of distinct RegExps in use (measured: 36 ns
 * each with 10, 288 ns each with 3,000), so most rules must not call one.
 */
import type { Node } from "./ast.js";

/** What every match needs: a prefix at offset 0 (anchored patterns), a substring, or the exact text. */
export interface Prefilter {
  readonly prefix: string;
  readonly required: string;
  /** The pattern is this literal text, anchored at both ends ("\n" may follow when `newlineOk`). */
  readonly exact: string | null;
  readonly newlineOk: boolean;
  /** The whole pattern is the literal: found anywhere (`includes`), or at the start (`startsWith`, after `^`). */
  readonly whole: "includes" | "startsWith" | null;
}

function flatten(n: Node, out: Node[]): void {
  if (n.t === "cat") for (const x of n.xs) flatten(x, out);
  else if (n.t === "group") flatten(n.x, out);
  else out.push(n);
}

/** The literal facts of a pattern, or null when it has none worth checking. */
export function prefilterOf(n: Node): Prefilter | null {
  const items: Node[] = [];
  flatten(n, items);
  let required = "";
  let run = "";
  for (const x of items) {
    if (x.t === "char") {
      run += String.fromCodePoint(x.cp);
      if (run.length > required.length) required = run;
    } else if (x.t !== "assert") run = "";
  }
  let prefix = "";
  const first = items[0];
  if (first !== undefined && first.t === "assert" && first.kind === "bot") {
    for (let i = 1; i < items.length; i++) {
      const x = items[i];
      if (x.t !== "char") break;
      prefix += String.fromCodePoint(x.cp);
    }
  }
  let exact: string | null = null;
  let newlineOk = false;
  const last = items[items.length - 1];
  if (
    items.length >= 2 &&
    first.t === "assert" &&
    first.kind === "bot" &&
    last.t === "assert" &&
    (last.kind === "eot" || last.kind === "eotnl") &&
    prefix.length > 0 &&
    items.length === [...prefix].length + 2
  ) {
    exact = prefix;
    newlineOk = last.kind === "eotnl";
  }
  if (required === "" && prefix === "") return null;
  const allChars = items.every((x) => x.t === "char");
  const whole = allChars
    ? "includes"
    : items.slice(1).every((x) => x.t === "char") &&
        prefix.length > 0 &&
        first.t === "assert" &&
        first.kind === "bot"
      ? "startsWith"
      : null;
  return { prefix, required, exact, newlineOk, whole };
}

/** Whether `s` (searched from `from`) passes the literal checks. */
export function passes(f: Prefilter, s: string, from: number): boolean {
  if (f.exact !== null)
    return (
      from === 0 &&
      (s === f.exact ||
        (f.newlineOk && s.length === f.exact.length + 1 && s.endsWith("\n") && s.startsWith(f.exact)))
    );
  if (f.prefix !== "" && !s.startsWith(f.prefix)) return false;
  return f.required === "" || s.indexOf(f.required, from) >= 0;
}

/**
 * A run of single-character positions every match holds one after another:
 * per position, the ASCII code points it admits (1 where admitted; null:
 * any character), and whether the run starts the text (`^` before it).
 */
export interface ClassRun {
  readonly sets: readonly (Uint8Array | null)[];
  readonly anchored: boolean;
}

/** The most positions of a {@link ClassRun}. */
const MAX_RUN = 32;

/**
 * The run of consecutive single characters (literals, classes, `.`) of the
 * pattern's top-level sequence that rules out the most ASCII text, each
 * position scored by how few of the 128 ASCII code points it admits; null
 * when no run rules any out. `ascii` gives a class's ASCII members (null: not
 * known, taken as any). A zero-width assertion between two positions keeps
 * them a run (they are still adjacent in every match).
 */
export function classRunOf(n: Node, ascii: (n: Node & { t: "set" }) => Uint8Array | null): ClassRun | null {
  const items: Node[] = [];
  flatten(n, items);
  let best: ClassRun | null = null;
  let bestScore = 0;
  let sets: (Uint8Array | null)[] = [];
  let score = 0;
  let anchored = false;
  const close = () => {
    if (score > bestScore) {
      bestScore = score;
      best = { sets, anchored };
    }
    sets = [];
    score = 0;
  };
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    if (x.t === "assert" || x.t === "empty") continue;
    let set: Uint8Array | null;
    if (x.t === "char") {
      set = new Uint8Array(128);
      if (x.cp < 128) set[x.cp] = 1;
    } else if (x.t === "set") set = ascii(x);
    else {
      close();
      continue;
    }
    // a run cut at MAX_RUN goes on in a new one, which does not start the text
    if (sets.length === MAX_RUN) {
      close();
      anchored = false;
    } else if (sets.length === 0) anchored = i === 1 && items[0].t === "assert" && items[0].kind === "bot";
    sets.push(set);
    if (set !== null) {
      let admitted = 0;
      for (let c = 0; c < 128; c++) admitted += set[c];
      score += Math.log2(128 / Math.max(admitted, 1));
    }
  }
  close();
  return best;
}
