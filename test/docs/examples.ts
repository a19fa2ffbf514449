/**
 * Reads the shell examples of README.md and docs/**.md: every `curl` and `arbiter`
 * command of a ```sh / ```bash block, with the output documented right under it as a
 * `# {...}` comment line, and the blocks marked `<!-- docs-test: skip (reason) -->`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** One runnable example. */
export interface DocExample {
  file: string;
  line: number;
  command: string;
  /** The JSON the docs show as its output, when they show one. */
  output?: string;
  /** Why the example is not run (its block is marked), when it is not. */
  skip?: string;
}

const FENCE = /^(\s*)```\s*([A-Za-z]*)\s*$/;
const SKIP = /<!--\s*docs-test:\s*skip\s*\(([^)]*)\)\s*-->/;
/** A command runs when one of its words is `curl` or `arbiter` (as `npx arbiter`, the bare bin, or `./bin/arbiter.mjs`). */
const RUNNABLE = /(^|[\s|;&(])(curl|arbiter|\.\/bin\/arbiter\.mjs)(\s|$)/;

/** The markdown files holding examples: README.md and everything under docs/. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f))
    .sort();
  return [join(root, "README.md"), ...docs];
}

/** Whether a shell text ends inside a quoted string (so the command goes on on the next line). */
function openQuote(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === null) {
      if (c === "\\") i++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]))) {
        // a comment: the rest of the line does not count
        const end = text.indexOf("\n", i);
        if (end < 0) return false;
        i = end;
      }
    } else if (c === "\\" && quote === '"') i++;
    else if (c === quote) quote = null;
  }
  return quote !== null;
}

/** The examples of one markdown file. */
export function examplesOf(root: string, path: string): DocExample[] {
  const file = relative(root, path);
  const lines = readFileSync(path, "utf8").split("\n");
  const out: DocExample[] = [];
  let pendingSkip: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const skipMark = SKIP.exec(lines[i]);
    if (skipMark) {
      pendingSkip = skipMark[1].trim() || "marked";
      continue;
    }
    const fence = FENCE.exec(lines[i]);
    if (!fence) {
      if (lines[i].trim() !== "") pendingSkip = undefined;
      continue;
    }
    const shell = ["sh", "bash", "shell"].includes(fence[2]);
    const skip = pendingSkip;
    pendingSkip = undefined;
    let j = i + 1;
    // The example a `# {...}` line right under it documents the output of.
    let last: DocExample | undefined;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) {
      const start = j;
      let text = lines[j];
      while ((text.endsWith("\\") || openQuote(text)) && j + 1 < lines.length && !/^\s*```\s*$/.test(lines[j + 1])) {
        j++;
        text += `\n${lines[j]}`;
      }
      j++;
      const trimmed = text.trim();
      if (trimmed.startsWith("#")) {
        const shown = trimmed.replace(/^#\s?/, "");
        if (last !== undefined && last.output === undefined && /^[[{"]/.test(shown)) last.output = shown;
        else last = undefined;
        continue;
      }
      last = undefined;
      if (!shell || trimmed === "" || !RUNNABLE.test(trimmed)) continue;
      last = { file, line: start + 1, command: text, ...(skip !== undefined ? { skip } : {}) };
      out.push(last);
    }
    i = j;
  }
  return out;
}
