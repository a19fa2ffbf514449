/**
 * Reads the examples of README.md and docs/**.md: every `curl` and `arbiter` command
 * of a ```sh / ```bash block, with the output documented right under it as a `# {...}`
 * comment line, and the blocks marked `<!-- docs-test: skip (reason) -->`; and the
 * requests shown as JSON blocks, which carry a marker on the line before their fence:
 *
 * - `<!-- docs-test: request METHOD PATH -->`: the block is the body of that request;
 * - `<!-- docs-test: METHOD PATH answers -->`: a request without a body, the block its answer;
 * - `<!-- docs-test: answer -->`: the block is the answer of the page's last request;
 * - `<!-- docs-test: not a request (reason) -->`: a policy file, a shape, a fragment.
 *
 * Every JSON block must carry one (`unmarkedJsonBlocks`), so a new request example
 * cannot be left out of the test by accident.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** One runnable example: a shell command, or a request shown as JSON. */
export interface DocExample {
  file: string;
  line: number;
  /** The shell command; for a JSON request, `METHOD PATH` (for the test's title). */
  command: string;
  /** A request shown as JSON blocks rather than as a command. */
  request?: { method: string; path: string; body?: string };
  /** The JSON the docs show as its output, when they show one. */
  output?: string;
  /** Why the example is not run (its block is marked), when it is not. */
  skip?: string;
}

const FENCE = /^(\s*)```\s*([A-Za-z]*)\s*$/;
const SKIP = /<!--\s*docs-test:\s*skip\s*\(([^)]*)\)\s*-->/;
const MARK = /<!--\s*docs-test:\s*(.*?)\s*-->/;
const REQUEST_MARK = /^request\s+(GET|POST|PUT|DELETE)\s+(\/\S*)$/;
const ANSWERS_MARK = /^(GET|POST|PUT|DELETE)\s+(\/\S*)\s+answers$/;
const OTHER_MARK = /^(answer|not a request\s*\([^)]+\)|skip\s*\([^)]*\))$/;
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
  let mark: string | undefined;
  /** The page's last JSON request, which an `answer` block documents the answer of. */
  let lastRequest: DocExample | undefined;
  for (let i = 0; i < lines.length; i++) {
    const skipMark = SKIP.exec(lines[i]);
    if (skipMark) {
      pendingSkip = skipMark[1].trim() || "marked";
      mark = undefined;
      continue;
    }
    const marked = MARK.exec(lines[i]);
    if (marked) {
      mark = marked[1];
      continue;
    }
    const fence = FENCE.exec(lines[i]);
    if (!fence) {
      if (lines[i].trim() !== "") {
        pendingSkip = undefined;
        mark = undefined;
      }
      continue;
    }
    if (fence[2] === "json" && mark !== undefined) {
      let end = i + 1;
      while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
      const text = lines.slice(i + 1, end).join("\n");
      const request = REQUEST_MARK.exec(mark);
      const answers = ANSWERS_MARK.exec(mark);
      if (request || answers) {
        const [, method, path] = (request ?? answers)!;
        lastRequest = {
          file,
          line: i + 1,
          command: `${method} ${path}`,
          request: { method, path, ...(request ? { body: text } : {}) },
          ...(answers ? { output: text } : {}),
        };
        out.push(lastRequest);
      } else if (mark === "answer") {
        if (lastRequest === undefined || lastRequest.output !== undefined)
          throw new Error(`${file}:${i + 1}: an answer block with no request before it`);
        lastRequest.output = text;
      }
      mark = undefined;
      i = end;
      continue;
    }
    mark = undefined;
    const shell = ["sh", "bash", "shell"].includes(fence[2]);
    const skip = pendingSkip;
    pendingSkip = undefined;
    let j = i + 1;
    // The example a `# {...}` line right under it documents the output of.
    let last: DocExample | undefined;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) {
      const start = j;
      let text = lines[j];
      while (
        (text.endsWith("\\") || openQuote(text)) &&
        j + 1 < lines.length &&
        !/^\s*```\s*$/.test(lines[j + 1])
      ) {
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

/** The JSON blocks of a file that carry no docs-test marker (`file:line` each), or a marker the test does not know. */
export function unmarkedJsonBlocks(root: string, path: string): string[] {
  const file = relative(root, path);
  const lines = readFileSync(path, "utf8").split("\n");
  const out: string[] = [];
  let inside = false;
  let mark: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]);
    if (inside) {
      if (/^\s*```\s*$/.test(lines[i])) inside = false;
      continue;
    }
    if (fence) {
      inside = true;
      if (
        fence[2] === "json" &&
        (mark === undefined || !(REQUEST_MARK.test(mark) || ANSWERS_MARK.test(mark) || OTHER_MARK.test(mark)))
      ) {
        out.push(`${file}:${i + 1}${mark === undefined ? "" : ` (unknown marker \`${mark}\`)`}`);
      }
      mark = undefined;
      continue;
    }
    const marked = MARK.exec(lines[i]);
    if (marked) mark = marked[1];
    else if (lines[i].trim() !== "") mark = undefined;
  }
  return out;
}
