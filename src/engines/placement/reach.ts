/**
 * Which queue paths a placement rule can produce, as patterns of path levels:
 * a literal level, `*` (any one level: a user name) or `**` (any levels: a
 * provided or tag name, which may be a whole `root.` path). Used by lint to
 * find configured queues no rule can place into; the same patterns tell a
 * semantic diff which queue names a rule chain can reach.
 */
import type { RuleData } from "./types.js";

/** One level of a path pattern: a lower-cased literal, `*` or `**`. */
export type Level = string;

/** The path patterns a rule's candidate queue can take (each starting at `root`). */
export function rulePatterns(rule: RuleData): Level[][] {
  switch (rule.kind) {
    case "provided":
    case "tag":
      // a name that starts with `root.` is taken as a whole path; any other goes one level under the parent
      return [["root", "**"]];
    case "user":
      return underParent(rule, ["*"]);
    case "fixed":
      return rule.qualified ? [rule.value.split(".")] : underParent(rule, rule.value.split("."));
  }
}

function underParent(rule: RuleData, child: Level[]): Level[][] {
  if (rule.parent === null) return [["root", ...child]];
  return rulePatterns(rule.parent).map((p) => [...p, ...child]);
}

/** Whether a lower-cased path (`root.a.b`) fits a pattern; `**` takes one level or more. */
export function pathFits(path: readonly string[], pattern: readonly Level[]): boolean {
  const fits = (i: number, j: number): boolean => {
    if (j === pattern.length) return i === path.length;
    const level = pattern[j];
    if (level === "**") {
      for (let k = i + 1; k <= path.length; k++) if (fits(k, j + 1)) return true;
      return false;
    }
    if (i === path.length) return false;
    return (level === "*" || level === path[i]) && fits(i + 1, j + 1);
  };
  return fits(0, 0);
}
