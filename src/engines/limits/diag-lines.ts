import { keepShape } from "../common/shapes.js";

/**
 * A decision's diagnostics, built line by line: at every point its `text` is what
 * `lines.join("\n")` gives for the lines added so far. A decision adds about twenty
 * lines and reads the text once; adding each to the text as it comes costs V8 a
 * fraction of an array's pushes and its `join` (docs/performance.md, wt/floor7).
 */
export class DiagLines {
  /** The lines so far, joined with newlines. */
  text = "";
  /** How many lines were added. */
  count = 0;

  add(line: string): void {
    this.text = this.count++ === 0 ? line : `${this.text}\n${line}`;
  }

  /**
   * Adds a line given with the newline that goes before it (`"\n" + line`): one concatenation
   * where {@link add} makes two (each a cons string the decision allocates). The decision's fixed
   * lines are kept in this form.
   */
  addAfterNewline(newlineAndLine: string): void {
    this.text = this.count++ === 0 ? newlineAndLine.slice(1) : this.text + newlineAndLine;
  }

  /** Adds each line of a list, in order. */
  addAll(lines: readonly string[], map?: (line: string) => string): void {
    for (const line of lines) this.add(map === undefined ? line : map(line));
  }
}

// one instance kept for the isolate's life, so that a full collection between decisions does not
// take the class's map and with it the limits route's optimized code (src/engines/common/shapes.ts)
keepShape(new DiagLines()).add("");

/** `list.join(", ")` for the short lists a decision names (identifiers, classifiers). */
export function commaList(list: readonly string[]): string {
  let out = list.length === 0 ? "" : list[0];
  for (let i = 1; i < list.length; i++) out = `${out}, ${list[i]}`;
  return out;
}
