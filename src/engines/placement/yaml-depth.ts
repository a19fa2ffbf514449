/**
 * A nesting check run on YAML tokens as the `yaml` package's lexer produces
 * them, before its parser and composer see them. The composer recurses once
 * per level and, near the end of the stack, can even kill the isolate (a
 * regular expression compiled without room fails as out-of-memory), so depth
 * must be bounded from the token stream, which the lexer produces without
 * recursion. `readYaml` feeds the gauge the same tokens it gives the parser,
 * so the text is lexed once.
 */
import { CST, Lexer } from "yaml";

/** How deeply a YAML policy may nest, as counted by {@link DepthGauge}. */
export const MAX_YAML_DEPTH = 100;

const MARKERS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * Counts nesting token by token. Depth is over-estimated, never under: each
 * indentation level still open, each block indicator (`-`, `?`, `:`) on the
 * current line, each open flow bracket, and each indicator inside a flow
 * collection since its last `,` (the package's parser nests for those too,
 * `[- - - …` included) counts one.
 */
export class DepthGauge {
  /** The source offset of the next token. */
  offset = 0;
  private flow = 0;
  private atLineStart = true;
  private indent = 0;
  private indicators = 0;
  private readonly indents: number[] = [];
  // indicators inside the innermost open flow collection since its start or last comma, and the outer ones' sum
  private flowIndicators = 0;
  private outerFlowIndicators = 0;
  private readonly flowStack: number[] = [];

  constructor(private readonly limit = MAX_YAML_DEPTH) {}

  /** Takes the next lexer token; true when it nests past the limit (it starts at `offset - token.length`). */
  feed(token: string): boolean {
    if (MARKERS.has(token)) return false;
    this.offset += token.length;
    const type = CST.tokenType(token);
    switch (type) {
      case "newline":
        this.atLineStart = true;
        this.indent = 0;
        this.indicators = 0;
        return false;
      case "space":
        if (this.atLineStart) this.indent = token.length;
        return false;
      case "comment":
        return false;
      case "flow-map-end":
      case "flow-seq-end":
        if (this.flow > 0) {
          this.flow--;
          this.flowIndicators = this.flowStack.pop() ?? 0;
          this.outerFlowIndicators -= this.flowIndicators;
        }
        return false;
      case "comma":
        this.flowIndicators = 0;
        return false;
      default:
        break;
    }
    if (this.atLineStart) {
      this.atLineStart = false;
      if (this.flow === 0) {
        while (this.indents.length > 0 && this.indents[this.indents.length - 1] >= this.indent)
          this.indents.pop();
        this.indents.push(this.indent);
      }
    }
    if (type === "flow-map-start" || type === "flow-seq-start") {
      this.flow++;
      this.flowStack.push(this.flowIndicators);
      this.outerFlowIndicators += this.flowIndicators;
      this.flowIndicators = 0;
    } else if (type === "seq-item-ind" || type === "explicit-key-ind" || type === "map-value-ind") {
      if (this.flow === 0) this.indicators++;
      else this.flowIndicators++;
    }
    return (
      this.indents.length + this.indicators + this.flow + this.outerFlowIndicators + this.flowIndicators >
      this.limit
    );
  }
}

/** The source offset where the text first nests more than `limit` levels, or null. */
export function yamlTooDeep(source: string, limit = MAX_YAML_DEPTH): number | null {
  const gauge = new DepthGauge(limit);
  for (const token of new Lexer().lex(source)) {
    const before = gauge.offset;
    if (gauge.feed(token)) return before;
  }
  return null;
}
