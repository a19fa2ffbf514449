/** The jq syntax tree the parser produces and the compiler consumes. */
import type { Json } from "../engines/common/json.js";

export type Node =
  | { k: "identity" }
  | { k: "recurse" }
  | { k: "literal"; v: Json }
  | { k: "str"; parts: Array<string | Node>; fmt: string | null }
  | { k: "format"; name: string }
  /** `opt`: a `?` right after the suffix, hiding only this step's own error (jq's INDEX_OPT / EACH_OPT). */
  | { k: "index"; target: Node; key: Node; opt?: boolean }
  | { k: "slice"; target: Node; from: Node | null; to: Node | null; opt?: boolean }
  | { k: "iterate"; target: Node; opt?: boolean }
  | { k: "pipe"; l: Node; r: Node }
  | { k: "comma"; l: Node; r: Node }
  | { k: "neg"; e: Node }
  | { k: "binop"; op: string; l: Node; r: Node }
  | { k: "and"; l: Node; r: Node }
  | { k: "or"; l: Node; r: Node }
  | { k: "alt"; l: Node; r: Node }
  | { k: "assign"; op: string; l: Node; r: Node }
  | { k: "array"; e: Node | null }
  /** `fromKey`: the value is `.[key]` of the key's own value (jq's `{"\(x)"}` shorthand evaluates the key once). */
  | { k: "object"; entries: Array<{ key: Node; value: Node; fromKey?: boolean }> }
  | { k: "try"; body: Node; handler: Node | null }
  | { k: "if"; cond: Node; then: Node; else: Node | null }
  | { k: "reduce"; src: Node; pat: Pattern; init: Node; update: Node }
  | { k: "foreach"; src: Node; pat: Pattern; init: Node; update: Node; extract: Node | null }
  | { k: "bind"; src: Node; pats: Pattern[]; body: Node }
  | { k: "label"; name: string; body: Node }
  | { k: "break"; name: string; pos: number }
  | { k: "funcdef"; def: FuncDef; rest: Node }
  | { k: "call"; name: string; args: Node[]; pos: number }
  | { k: "var"; name: string; pos: number }
  | { k: "loc"; line: number };

export interface FuncDef {
  name: string;
  /** Parameter names; `$name` parameters keep their `$`. */
  params: string[];
  body: Node;
}

export type Pattern =
  | { k: "pvar"; name: string }
  | { k: "parray"; elems: Pattern[] }
  | { k: "pobject"; entries: Array<{ key: Node; keyVar: string | null; val: Pattern | null }> };

export interface Directive {
  kind: "import" | "include";
  path: string;
  alias: string | null;
  isData: boolean;
  /** The import's constant metadata object (`import "x" as y {search: "./"};`), or null. */
  meta: Json | null;
  pos: number;
}

export interface ProgramAst {
  /** The `module {...};` metadata object, or null. */
  meta: Json | null;
  directives: Directive[];
  defs: FuncDef[];
  body: Node | null;
}

/** The key of `.k` (the input indexed by a string literal, without `?`), or null for any other node. */
export function inputFieldKey(n: Node): string | null {
  return n.k === "index" &&
    !n.opt &&
    n.target.k === "identity" &&
    n.key.k === "literal" &&
    typeof n.key.v === "string"
    ? n.key.v
    : null;
}
