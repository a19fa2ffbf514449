/**
 * A nesting check run on YAML text before the `yaml` package composes it.
 * The package's composer recurses once per level and, near the end of the
 * stack, can even kill the isolate (a regular expression compiled without
 * room fails as out-of-memory), so depth must be bounded from the token
 * stream, which the package's lexer produces without recursion.
 */
import { CST, Lexer } from "yaml";

/** How deeply a YAML policy may nest, as counted by {@link yamlTooDeep}. */
export const MAX_YAML_DEPTH = 100;

const MARKERS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * The source offset where the text first nests more than `limit` levels, or
 * null. Depth is over-estimated, never under: each indentation level still
 * open, each block indicator (`-`, `?`, `:`) on the current line, each open
 * flow bracket, and each indicator inside a flow collection since its last
 * `,` (the package's parser nests for those too, `[- - - …` included) counts one.
 */
export function yamlTooDeep(source: string, limit = MAX_YAML_DEPTH): number | null {
  let offset = 0;
  let flow = 0;
  let atLineStart = true;
  let indent = 0;
  let indicators = 0;
  const indents: number[] = [];
  // indicators inside the innermost open flow collection since its start or last comma, and the outer ones' counts
  let flowIndicators = 0;
  let outerFlowIndicators = 0;
  const flowStack: number[] = [];
  for (const token of new Lexer().lex(source)) {
    if (MARKERS.has(token)) continue;
    const start = offset;
    offset += token.length;
    switch (CST.tokenType(token)) {
      case "newline":
        atLineStart = true;
        indent = 0;
        indicators = 0;
        continue;
      case "space":
        if (atLineStart) indent = token.length;
        continue;
      case "comment":
        continue;
      case "flow-map-end":
      case "flow-seq-end":
        if (flow > 0) {
          flow--;
          flowIndicators = flowStack.pop() ?? 0;
          outerFlowIndicators -= flowIndicators;
        }
        continue;
      case "comma":
        flowIndicators = 0;
        continue;
      default:
        break;
    }
    if (atLineStart) {
      atLineStart = false;
      if (flow === 0) {
        while (indents.length > 0 && indents[indents.length - 1] >= indent) indents.pop();
        indents.push(indent);
      }
    }
    const type = CST.tokenType(token);
    if (type === "flow-map-start" || type === "flow-seq-start") {
      flow++;
      flowStack.push(flowIndicators);
      outerFlowIndicators += flowIndicators;
      flowIndicators = 0;
    } else if (type === "seq-item-ind" || type === "explicit-key-ind" || type === "map-value-ind") {
      if (flow === 0) indicators++;
      else flowIndicators++;
    }
    if (indents.length + indicators + flow + outerFlowIndicators + flowIndicators > limit) return start;
  }
  return null;
}
