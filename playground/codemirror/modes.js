// @ts-check
/**
 * Stream parsers for the languages CodeMirror has no package for: the HTCondor
 * configuration language with ClassAd expressions (and ClassAds in both forms),
 * jq 1.7.1 programs, and pScheduler's JSON with `#` line comments. Each maps its
 * tokens onto the standard highlighting tags, so one stylesheet colours them all.
 */
import { StreamLanguage } from "@codemirror/language";

/** @typedef {import("@codemirror/language").StringStream} StringStream */

const CLASSAD_WORDS = new Set(["true", "false", "undefined", "error", "is", "isnt", "parent"]);
const CLASSAD_SCOPES = new Set(["my", "target", "other"]);
const CONFIG_WORDS = new Set([
  "if",
  "else",
  "elif",
  "endif",
  "use",
  "include",
  "require_version",
  "defined",
  "version",
]);

/** Reads a double-quoted string whose opening quote was just eaten. @param {StringStream} stream */
function restOfString(stream) {
  let escaped = false;
  let ch;
  while ((ch = stream.next()) !== undefined) {
    if (ch === '"' && !escaped) return;
    escaped = !escaped && ch === "\\";
  }
}

/**
 * The HTCondor configuration language (`NAME = value`, `$(MACRO)`, `if`/`endif`,
 * `use` templates, `#` comments) whose values are ClassAd expressions; also
 * ClassAds themselves (`[ A = 1; B = "x" ]`, the long form `condor_q -l` prints, `//` comments).
 * @type {import("@codemirror/language").StreamParser<{ comment: boolean }>}
 */
const condorParser = {
  name: "htcondor",
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) {
      if (stream.skipTo("*/")) {
        stream.pos += 2;
        state.comment = false;
      } else stream.skipToEnd();
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.sol() && stream.peek() === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.comment = true;
      return "comment";
    }
    if (stream.match(/^\$[A-Za-z]*\(/)) {
      stream.skipTo(")");
      stream.next();
      return "macroName";
    }
    const ch = stream.next();
    if (ch === undefined) return null;
    if (ch === '"') {
      restOfString(stream);
      return "string";
    }
    if (/\d/.test(ch) || (ch === "." && stream.match(/^\d/, false))) {
      stream.match(/^[\d_]*(\.\d+)?([eE][+-]?\d+)?[KMGTP]?B?/i);
      return "number";
    }
    if (/[A-Za-z_]/.test(ch)) {
      stream.match(/^[\w.:]*/);
      const word = stream.current();
      const lower = word.toLowerCase();
      if (CLASSAD_WORDS.has(lower)) return lower === "true" || lower === "false" ? "bool" : "atom";
      if (CLASSAD_SCOPES.has(lower.replace(/\..*/, "")) && word.includes(".")) return "variableName.special";
      if (CONFIG_WORDS.has(lower) && stream.string.slice(0, stream.start).trim() === "") return "keyword";
      // A name followed by `=` (not `==`, `=?=`, `=!=`) is being defined.
      if (stream.match(/^\s*=(?![=?!])/, false) || stream.match(/^\s*:?=(?![=?!])/, false))
        return "propertyName.definition";
      if (stream.match(/^\s*\(/, false)) return "variableName.function";
      return "variableName";
    }
    if (/[=!<>&|+\-*/%?:^~]/.test(ch)) {
      stream.match(/^[=!<>&|?]*/);
      return "operator";
    }
    if (/[[\](){};,]/.test(ch)) return /[;,]/.test(ch) ? "punctuation" : "bracket";
    return null;
  },
  languageData: { commentTokens: { line: "#" } },
};

const JQ_KEYWORDS = new Set([
  "def",
  "if",
  "then",
  "elif",
  "else",
  "end",
  "as",
  "reduce",
  "foreach",
  "try",
  "catch",
  "label",
  "import",
  "include",
  "and",
  "or",
  "not",
  "__loc__",
]);

/**
 * jq programs: `.field` paths, `$variables`, `@formats`, keywords, strings with
 * `\(...)` interpolation (the inner program highlighted too), `#` comments.
 * @type {import("@codemirror/language").StreamParser<{ strings: number[] }>}
 */
const jqParser = {
  name: "jq",
  startState: () => ({ strings: [] }),
  token(stream, state) {
    const depth = state.strings.length;
    // Inside a string (depth marks how many interpolations deep the string opened).
    if (depth > 0 && state.strings[depth - 1] === -1) {
      let escaped = false;
      while (!stream.eol()) {
        const ch = stream.next();
        if (escaped) {
          escaped = false;
          if (ch === "(") {
            state.strings[depth - 1] = 0;
            return "string";
          }
        } else if (ch === "\\") escaped = true;
        else if (ch === '"') {
          state.strings.pop();
          return "string";
        }
      }
      return "string";
    }
    if (stream.eatSpace()) return null;
    const ch = stream.next();
    if (ch === undefined) return null;
    if (ch === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (ch === '"') {
      state.strings.push(-1);
      return "string";
    }
    if (depth > 0) {
      // In an interpolation: count parentheses to find its end.
      if (ch === "(") state.strings[depth - 1]++;
      if (ch === ")") {
        if (state.strings[depth - 1] === 0) {
          state.strings[depth - 1] = -1;
          return "string";
        }
        state.strings[depth - 1]--;
      }
    }
    if (/\d/.test(ch)) {
      stream.match(/^\d*(\.\d*)?([eE][+-]?\d+)?/);
      return "number";
    }
    if (ch === "." && stream.match(/^[A-Za-z_]\w*/)) return "propertyName";
    if (ch === "." && stream.match(/^\./)) return "operator";
    if (ch === "$") {
      stream.match(/^(__loc__|[A-Za-z_][\w:]*)/);
      return "variableName.special";
    }
    if (ch === "@") {
      stream.match(/^\w+/);
      return "meta";
    }
    if (/[A-Za-z_]/.test(ch)) {
      stream.match(/^[\w:]*/);
      const word = stream.current();
      if (JQ_KEYWORDS.has(word)) return "keyword";
      if (word === "true" || word === "false") return "bool";
      if (word === "null") return "null";
      return "variableName.function";
    }
    if (/[|=+\-*/%<>!?,:;]/.test(ch)) {
      stream.match(/^[|=+\-*/%<>!?/]*/);
      return "operator";
    }
    if (/[[\](){}]/.test(ch)) return "bracket";
    return ch === "." ? "operator" : null;
  },
  languageData: { commentTokens: { line: "#" }, closeBrackets: { brackets: ["(", "[", "{", '"'] } },
};

/**
 * JSON with pScheduler's `#` comments (limits.conf): keys apart from string
 * values, numbers, literals, comments.
 * @type {import("@codemirror/language").StreamParser<null>}
 */
const jsoncParser = {
  name: "jsonc",
  token(stream) {
    if (stream.eatSpace()) return null;
    const ch = stream.next();
    if (ch === undefined) return null;
    if (ch === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (ch === '"') {
      restOfString(stream);
      return stream.match(/^\s*:/, false) ? "propertyName" : "string";
    }
    if (/[-\d]/.test(ch)) {
      stream.match(/^\d*(\.\d+)?([eE][+-]?\d+)?/);
      return "number";
    }
    if (/[a-z]/.test(ch)) {
      stream.match(/^[a-z]*/);
      const word = stream.current();
      return word === "null" ? "null" : word === "true" || word === "false" ? "bool" : "invalid";
    }
    if (/[[\]{}]/.test(ch)) return "bracket";
    return /[,:]/.test(ch) ? "punctuation" : "invalid";
  },
  languageData: { commentTokens: { line: "#" } },
};

/** The HTCondor configuration and ClassAd language. */
export const condor = StreamLanguage.define(condorParser);
/** jq programs. */
export const jq = StreamLanguage.define(jqParser);
/** JSON with `#` comments. */
export const jsonc = StreamLanguage.define(jsoncParser);
