/** Recursive-descent parser for jq 1.7.1 programs and modules, following its grammar's precedences. */
import type { Json } from "../engines/common/json.js";
import type { Directive, FuncDef, Node, Pattern, ProgramAst } from "./ast.js";
import { numOf, setKey, type JObj } from "./values.js";
import { JqSyntaxError, tokenize, type Token } from "./lexer.js";
import { bindingName, objectTerm, patterns } from "./parser-terms.js";
import { numberFromText } from "./litnum.js";
import { formatNumber } from "./print.js";
import { keepShape } from "../engines/common/shapes.js";

/** Keywords that start an expression that is not a term in jq's grammar. */
const EXPRESSION_KEYWORDS = new Set(["if", "try", "reduce", "foreach", "label", "def"]);
const ASSIGN_OPS = new Set(["=", "|=", "+=", "-=", "*=", "/=", "%=", "//="]);
const COMPARE_OPS = new Set(["==", "!=", "<", "<=", ">", ">="]);

/** The grammar's left-associative chains, loosest first. */
type Chain = 0 | 1 | 2 | 3 | 4;
const COMMA = 0;
const OR = 1;
const AND = 2;
const ADDITIVE = 3;
const MULTIPLICATIVE = 4;

/** The operator with which token `t` continues chain `c`, or null when the chain ends there. */
function chainLink(c: Chain, t: Token): string | null {
  if (t.t === "kw") return (c === OR && t.v === "or") || (c === AND && t.v === "and") ? t.v : null;
  if (t.t !== "op") return null;
  const v = t.v;
  if (c === COMMA) return v === "," ? v : null;
  if (c === ADDITIVE) return v === "+" || v === "-" ? v : null;
  if (c === MULTIPLICATIVE) return v === "*" || v === "/" || v === "%" ? v : null;
  return null;
}

/** One link of chain `c`: `l op r`. */
function chainNode(c: Chain, op: string, l: Node, r: Node): Node {
  if (c === COMMA) return { k: "comma", l, r };
  if (c === OR) return { k: "or", l, r };
  if (c === AND) return { k: "and", l, r };
  return { k: "binop", op, l, r };
}

/** Parses a whole program (directives, definitions and an optional body). */
export function parseProgram(src: string): ProgramAst {
  const p = new Parser(tokenize(src), src);
  return p.program(false);
}

/** Parses a module: directives and definitions only. */
export function parseModule(src: string): ProgramAst {
  const p = new Parser(tokenize(src), src);
  return p.program(true);
}

/** How many nested grammar levels a program may open (a parenthesis, bracket or pipe stage costs one or two). */
export const MAX_PARSE_DEPTH = 512;

/** The parser state and the expression grammar; object constructions and patterns are in parser-terms.ts. */
export class Parser {
  i = 0;
  constructor(
    readonly toks: Token[],
    readonly src: string,
    /** Levels already open in the enclosing parser (string interpolations parse with a parser of their own). */
    public depth = 0,
  ) {}

  /** Opens one nesting level, refusing programs nested past {@link MAX_PARSE_DEPTH} before the stack runs out. */
  enter(): void {
    if (++this.depth > MAX_PARSE_DEPTH)
      throw new JqSyntaxError(
        `program nested too deeply (more than ${MAX_PARSE_DEPTH} levels)`,
        this.peek().pos,
      );
  }

  peek(): Token {
    return this.toks[this.i];
  }
  next(): Token {
    return this.toks[this.i++];
  }
  isOp(v: string): boolean {
    const t = this.toks[this.i];
    return t.t === "op" && t.v === v;
  }
  isKw(v: string): boolean {
    const t = this.toks[this.i];
    return t.t === "kw" && t.v === v;
  }
  fail(t: Token = this.peek()): never {
    const what =
      t.t === "eof"
        ? "end of file"
        : t.t === "op" || t.t === "kw" || t.t === "ident"
          ? `'${t.v}'`
          : t.t === "var"
            ? `$${t.v}`
            : t.t;
    throw new JqSyntaxError(`syntax error, unexpected ${what}`, t.pos);
  }
  expectOp(v: string): void {
    if (!this.isOp(v)) this.fail();
    this.i++;
  }
  expectKw(v: string): void {
    if (!this.isKw(v)) this.fail();
    this.i++;
  }

  program(moduleOnly: boolean): ProgramAst {
    const directives: Directive[] = [];
    const defs: FuncDef[] = [];
    let meta: Json | null = null;
    if (
      this.isKw("module" as string) ||
      (this.peek().t === "ident" && (this.peek() as { v: string }).v === "module")
    ) {
      meta = this.metadata(this.next().pos);
      this.expectOp(";");
    }
    while (this.isKw("import") || this.isKw("include")) {
      const kw = this.next() as { v: string; pos: number };
      const pathTok = this.next();
      if (pathTok.t !== "str") this.fail(pathTok);
      if (pathTok.parts.length !== 1 || typeof pathTok.parts[0] !== "string")
        throw new JqSyntaxError("Import path must be constant", pathTok.pos);
      const path = pathTok.parts[0];
      let alias: string | null = null;
      let isData = false;
      if (kw.v === "import") {
        this.expectKw("as");
        const a = this.next();
        if (a.t === "ident") alias = a.v;
        else if (a.t === "var") {
          alias = bindingName(this, a);
          isData = true;
        } else this.fail(a);
      }
      const importMeta = this.isOp(";") ? null : this.metadata(kw.pos);
      this.expectOp(";");
      directives.push({
        kind: kw.v as "import" | "include",
        path,
        alias,
        isData,
        meta: importMeta,
        pos: kw.pos,
      });
    }
    while (this.isKw("def")) {
      const save = this.i;
      const d = this.funcDef();
      if (!moduleOnly && this.peek().t !== "eof" && !this.isKw("def")) {
        this.i = save;
        break;
      }
      defs.push(d);
    }
    let body: Node | null = null;
    if (this.peek().t !== "eof") {
      if (moduleOnly) this.fail();
      body = this.pipe();
    }
    if (this.peek().t !== "eof") this.fail();
    return { meta, directives, defs, body };
  }

  /** The constant object after `module` or an import; otherwise jq's error, placed at the keyword. */
  metadata(pos: number): Json {
    const folded = foldConstant(this.pipe());
    if (folded === null) throw new JqSyntaxError("Module metadata must be constant", pos);
    if (folded.v === null || typeof folded.v !== "object" || Array.isArray(folded.v))
      throw new JqSyntaxError("Module metadata must be an object", pos);
    return folded.v;
  }

  funcDef(): FuncDef {
    this.expectKw("def");
    const nameTok = this.next();
    if (nameTok.t !== "ident" && nameTok.t !== "kw") this.fail(nameTok);
    const params: string[] = [];
    if (this.isOp("(")) {
      this.next();
      for (;;) {
        const p = this.next();
        if (p.t === "ident") params.push(p.v);
        else if (p.t === "var") params.push("$" + bindingName(this, p));
        else this.fail(p);
        if (this.isOp(";")) {
          this.next();
          continue;
        }
        this.expectOp(")");
        break;
      }
    }
    this.expectOp(":");
    const body = this.pipe();
    this.expectOp(";");
    return { name: (nameTok as { v: string }).v, params, body };
  }

  pipe(): Node {
    this.enter();
    const n = this.pipeBody();
    this.depth--;
    return n;
  }

  private pipeBody(): Node {
    if (this.isKw("def")) {
      const def = this.funcDef();
      return { k: "funcdef", def, rest: this.pipe() };
    }
    const l = this.comma();
    if (this.isOp("|")) {
      this.next();
      return { k: "pipe", l, r: this.pipe() };
    }
    return l;
  }

  // Each operator of a chain (`1, 1, …`, `1 + 1 + …`, `a // b // …`) makes the tree one level
  // deeper, so it counts as a nesting level: the compiler and the evaluator recurse on the tree.
  // (The chains and nested levels allocate no closures: a program is parsed on every compile.)

  /** One operand of chain `c`: the next tighter level of the grammar. */
  private chainOperand(c: Chain): Node {
    switch (c) {
      case COMMA:
        return this.alt();
      case OR:
        return this.and();
      case AND:
        return this.compare();
      case ADDITIVE:
        return this.multiplicative();
      default:
        return this.unary();
    }
  }

  /** A left-associative chain `x op x op …` of chain `c`'s operands, each link one level deeper than the last. */
  private leftChain(c: Chain): Node {
    let l = this.chainOperand(c);
    let links = 0;
    for (;;) {
      const op = chainLink(c, this.peek());
      if (op === null) break;
      this.next();
      this.enter();
      links++;
      l = chainNode(c, op, l, this.chainOperand(c));
    }
    this.depth -= links;
    return l;
  }

  comma(): Node {
    return this.leftChain(COMMA);
  }

  alt(): Node {
    const l = this.assign();
    if (!this.isOp("//")) return l;
    this.next();
    this.enter();
    const r = this.alt();
    this.depth--;
    return { k: "alt", l, r };
  }

  assign(): Node {
    const l = this.or();
    const t = this.peek();
    if (!(t.t === "op" && ASSIGN_OPS.has(t.v))) return l;
    this.next();
    // jq 1.7.1's grammar: assignments are %nonassoc and bind tighter than `//`, so the right side
    // ends before `//` (`.a = null // 3` is `(.a = null) // 3`) and `. += 1 -= 2` is a syntax error
    this.enter();
    const r = this.or();
    this.depth--;
    const t2 = this.peek();
    if (t2.t === "op" && ASSIGN_OPS.has(t2.v)) this.fail(t2);
    return { k: "assign", op: t.v, l, r };
  }

  or(): Node {
    return this.leftChain(OR);
  }

  and(): Node {
    return this.leftChain(AND);
  }

  compare(): Node {
    const l = this.additive();
    const t = this.peek();
    if (t.t === "op" && COMPARE_OPS.has(t.v)) {
      this.next();
      const r = this.additive();
      const t2 = this.peek();
      if (t2.t === "op" && COMPARE_OPS.has(t2.v)) this.fail(t2);
      return { k: "binop", op: t.v, l, r };
    }
    return l;
  }

  additive(): Node {
    return this.leftChain(ADDITIVE);
  }

  multiplicative(): Node {
    return this.leftChain(MULTIPLICATIVE);
  }

  /** Unary minus has the precedence of binary `-` in jq's grammar: `-0 % 5` is `-(0 % 5)`. */
  unary(): Node {
    if (this.isOp("-")) {
      this.next();
      this.enter();
      const e = this.multiplicative();
      this.depth--;
      return { k: "neg", e };
    }
    return this.postfix(true);
  }

  /**
   * A term with its suffixes; `allowAs` lets `Term as $x | body` bind here. As in jq's grammar,
   * `if`, `try`, `reduce`, `foreach`, `label` and `def` are expressions, not terms: no suffix or
   * `as` may follow them, only `?`, and where a term is required (`termOnly`: reduce/foreach sources,
   * object values) they are refused; the same holds after a `?` that is `try`. With `stopAtTry` a
   * `?` that would be `try` is left to the caller (the body of `try`, a term position).
   */
  postfix(allowAs: boolean, stopAtTry = false, termOnly = false): Node {
    // each suffix (`.a.b…`, `.[0][0]…`, `x?`) makes the tree one level deeper: counted while
    // the chain is read, and given back when it ends
    const depth = this.depth;
    const n = this.postfixChain(allowAs, stopAtTry, termOnly);
    this.depth = depth;
    return n;
  }

  /** What `reduce` and `foreach` share: `SOURCE as PATTERNS (INIT; UPDATE`, up to the `)` or `; EXTRACT)` each ends with. */
  private loopHead(): { src: Node; pats: Pattern[]; init: Node; update: Node } {
    const src = this.postfix(false, true, true);
    this.expectKw("as");
    const pats = patterns(this);
    this.expectOp("(");
    const init = this.pipe();
    this.expectOp(";");
    return { src, pats, init, update: this.pipe() };
  }

  private postfixChain(allowAs: boolean, stopAtTry: boolean, termOnly: boolean): Node {
    const first = this.peek();
    const expression = first.t === "kw" && EXPRESSION_KEYWORDS.has(first.v);
    if (expression && termOnly) this.fail(first);
    let t = this.primary();
    // jq's grammar gives `.a?`, `.[k]?`, `.[a:b]?` and `.[]?` their own rules (INDEX_OPT, EACH_OPT):
    // the `?` right after such a suffix only hides that step's own error; any other `?` is `try`
    let suffix = first.t === "field" || (first.t === "op" && first.v === "." && t.k === "index");
    let term = !expression;
    for (;;) {
      const tok = this.peek();
      if (tok.t === "field" || (tok.t === "op" && (tok.v === "[" || tok.v === "?"))) this.enter();
      if (tok.t === "op" && tok.v === "?") {
        if (term && suffix && (t.k === "index" || t.k === "slice" || t.k === "iterate")) {
          this.next();
          t = { ...t, opt: true };
          suffix = false;
          continue;
        }
        if (stopAtTry) return t;
        this.next();
        t = { k: "try", body: t, handler: null };
        suffix = false;
        term = false;
        continue;
      }
      if (!term) return t;
      if (tok.t === "field") {
        this.next();
        t = { k: "index", target: t, key: { k: "literal", v: tok.v } };
        suffix = true;
      } else if (tok.t === "op" && tok.v === ".") {
        const nx = this.toks[this.i + 1];
        if (nx.t === "str") {
          this.i += 2;
          t = { k: "index", target: t, key: this.strNode(nx, null) };
          suffix = true;
        } else if (nx.t === "op" && nx.v === "[") {
          this.next();
        } else this.fail(nx);
      } else if (tok.t === "op" && tok.v === "[") {
        t = this.bracketSuffix(t);
        suffix = true;
      } else if (allowAs && tok.t === "kw" && tok.v === "as") {
        this.next();
        const pats = patterns(this);
        this.expectOp("|");
        return { k: "bind", src: t, pats, body: this.pipe() };
      } else return t;
    }
  }

  bracketSuffix(t: Node): Node {
    this.expectOp("[");
    if (this.isOp("]")) {
      this.next();
      return { k: "iterate", target: t };
    }
    if (this.isOp(":")) {
      this.next();
      const to = this.pipe();
      this.expectOp("]");
      return { k: "slice", target: t, from: null, to };
    }
    const e = this.pipe();
    if (this.isOp(":")) {
      this.next();
      if (this.isOp("]")) {
        this.next();
        return { k: "slice", target: t, from: e, to: null };
      }
      const to = this.pipe();
      this.expectOp("]");
      return { k: "slice", target: t, from: e, to };
    }
    this.expectOp("]");
    return { k: "index", target: t, key: e };
  }

  strNode(tok: Token & { t: "str" }, fmt: string | null): Node {
    if (tok.parts.length === 1 && typeof tok.parts[0] === "string") return { k: "literal", v: tok.parts[0] };
    const parts = tok.parts.map((p) =>
      typeof p === "string" ? p : new Parser(p, this.src, this.depth).wholeInterp(),
    );
    return { k: "str", parts, fmt };
  }

  /** Parses the token list of one `\(...)` interpolation. */
  wholeInterp(): Node {
    const n = this.pipe();
    if (this.peek().t !== "eof") this.fail();
    return n;
  }

  primary(): Node {
    this.enter();
    const n = this.primaryBody();
    this.depth--;
    return n;
  }

  private primaryBody(): Node {
    const tok = this.next();
    switch (tok.t) {
      case "num":
        return { k: "literal", v: numberFromText(tok.text, formatNumber) };
      case "str":
        return this.strNode(tok, null);
      case "fmt": {
        const nx = this.peek();
        if (nx.t === "str") {
          this.next();
          if (nx.parts.length === 1) return { k: "literal", v: nx.parts[0] as string };
          return {
            k: "str",
            parts: nx.parts.map((p) =>
              typeof p === "string" ? p : new Parser(p, this.src, this.depth).wholeInterp(),
            ),
            fmt: tok.v,
          };
        }
        return { k: "format", name: tok.v };
      }
      case "field":
        return { k: "index", target: { k: "identity" }, key: { k: "literal", v: tok.v } };
      case "var":
        if (tok.v === "__loc__") return { k: "loc", line: Number(lineOf(this.src, tok.pos)) };
        return { k: "var", name: tok.v, pos: tok.pos };
      case "ident":
        return this.callOrBreak(tok);
      case "kw":
        return this.keywordTerm(tok);
      case "op":
        return this.opTerm(tok);
      default:
        return this.fail(tok);
    }
  }

  callOrBreak(tok: Token & { t: "ident" }): Node {
    if (tok.v === "break") {
      const v = this.next();
      if (v.t !== "var") this.fail(v);
      return { k: "break", name: bindingName(this, v), pos: tok.pos };
    }
    if (!this.isOp("(")) {
      if (tok.v === "null") return { k: "literal", v: null };
      if (tok.v === "true") return { k: "literal", v: true };
      if (tok.v === "false") return { k: "literal", v: false };
    }
    const args: Node[] = [];
    if (this.isOp("(")) {
      this.next();
      for (;;) {
        args.push(this.pipe());
        if (this.isOp(";")) {
          this.next();
          continue;
        }
        this.expectOp(")");
        break;
      }
    }
    return { k: "call", name: tok.v, args, pos: tok.pos };
  }

  opTerm(tok: Token & { t: "op" }): Node {
    switch (tok.v) {
      case ".": {
        const nx = this.peek();
        if (nx.t === "str") {
          this.next();
          return { k: "index", target: { k: "identity" }, key: this.strNode(nx, null) };
        }
        return { k: "identity" };
      }
      case "..":
        return { k: "recurse" };
      case "(": {
        const e = this.pipe();
        this.expectOp(")");
        return e;
      }
      case "[": {
        if (this.isOp("]")) {
          this.next();
          return { k: "array", e: null };
        }
        const e = this.pipe();
        this.expectOp("]");
        return { k: "array", e };
      }
      case "{":
        return objectTerm(this);
      case "-":
        return { k: "neg", e: this.postfix(false) };
      default:
        return this.fail(tok);
    }
  }

  keywordTerm(tok: Token & { t: "kw" }): Node {
    switch (tok.v) {
      case "if": {
        const cond = this.pipe();
        this.expectKw("then");
        const then = this.pipe();
        return { k: "if", cond, then, else: this.elseBody() };
      }
      case "try": {
        const body = this.postBody();
        let handler: Node | null = null;
        if (this.isKw("catch")) {
          this.next();
          handler = this.postBody();
        }
        return { k: "try", body, handler };
      }
      case "reduce": {
        const { src, pats, init, update } = this.loopHead();
        this.expectOp(")");
        return { k: "reduce", src, pat: pats.length === 1 ? pats[0] : this.fail(), init, update };
      }
      case "foreach": {
        const { src, pats, init, update } = this.loopHead();
        let extract: Node | null = null;
        if (this.isOp(";")) {
          this.next();
          extract = this.pipe();
        }
        this.expectOp(")");
        return { k: "foreach", src, pat: pats.length === 1 ? pats[0] : this.fail(), init, update, extract };
      }
      case "label": {
        const v = this.next();
        if (v.t !== "var") this.fail(v);
        const name = bindingName(this, v);
        this.expectOp("|");
        return { k: "label", name, body: this.pipe() };
      }
      case "def": {
        this.i--;
        const def = this.funcDef();
        return { k: "funcdef", def, rest: this.pipe() };
      }
      default:
        return this.fail(tok);
    }
  }

  /** The body of `try`/`catch`: a postfix term, binding tighter than any binary operator (and than `?`). */
  postBody(): Node {
    if (this.isOp("-")) {
      this.next();
      return { k: "neg", e: this.postBody() };
    }
    return this.postfix(true, true);
  }

  elseBody(): Node | null {
    if (this.isKw("elif")) {
      this.next();
      const cond = this.pipe();
      this.expectKw("then");
      const then = this.pipe();
      return { k: "if", cond, then, else: this.elseBody() };
    }
    if (this.isKw("else")) {
      this.next();
      const e = this.pipe();
      this.expectKw("end");
      return e;
    }
    this.expectKw("end");
    return null;
  }
}

const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);

/**
 * What jq's parser folds into one constant (block_is_const after gen_const_object, gen_const_array and
 * constant_fold): literals, arrays and objects of constants, and arithmetic or comparison of two
 * constants that does not fail; negation and anything else is not constant. Only an object's value
 * matters to the callers, so other folded results are given as null.
 */
function foldConstant(n: Node): { v: Json } | null {
  switch (n.k) {
    case "literal":
      return { v: n.v };
    case "str":
      return n.fmt === null && n.parts.every((x) => typeof x === "string") ? { v: n.parts.join("") } : null;
    case "array":
    case "object":
      return isConstant(n) &&
        (n.k === "array" || n.entries.every((e) => typeof (e.key as { v?: Json }).v === "string"))
        ? { v: constValue(n) }
        : null;
    case "binop": {
      const l = foldConstant(n.l);
      const r = foldConstant(n.r);
      if (l === null || r === null) return null;
      if (COMPARISONS.has(n.op)) return { v: null };
      const obj = (x: Json): x is JObj => x !== null && typeof x === "object" && !Array.isArray(x);
      if ((n.op === "+" || n.op === "*") && obj(l.v) && obj(r.v)) {
        const o: JObj = {};
        for (const [k, v] of Object.entries(l.v)) setKey(o, k, v);
        for (const [k, v] of Object.entries(r.v)) setKey(o, k, v);
        return { v: o };
      }
      if (typeof l.v === "number" && typeof r.v === "number") return { v: null };
      if (n.op === "+" && (l.v === null || r.v === null || typeof l.v === typeof r.v))
        return obj(l.v) || obj(r.v) ? null : { v: null };
      return null;
    }
    default:
      return null;
  }
}

/** The value of a constant expression (see isConstant): literals, arrays, objects, negation. */
function constValue(n: Node): Json {
  switch (n.k) {
    case "literal":
      return n.v;
    case "neg":
      return -(numOf(constValue(n.e)) as number);
    case "array": {
      const out: Json[] = [];
      const walk = (e: Node): void => {
        if (e.k === "comma") {
          walk(e.l);
          walk(e.r);
        } else out.push(constValue(e));
      };
      if (n.e !== null) walk(n.e);
      return out;
    }
    case "object": {
      const o: JObj = {};
      for (const e of n.entries) setKey(o, String((e.key as { v: Json }).v), constValue(e.value));
      return o;
    }
    default:
      return null;
  }
}

function isConstant(n: Node): boolean {
  if (n.k === "literal") return true;
  if (n.k === "array") return n.e === null || isConstant(n.e);
  if (n.k === "comma") return isConstant(n.l) && isConstant(n.r);
  if (n.k === "neg") return isConstant(n.e);
  if (n.k === "object") return n.entries.every((e) => e.key.k === "literal" && isConstant(e.value));
  return false;
}

/** The 1-based line of a source offset, for `$__loc__`. */
export function lineOf(src: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos; i++) if (src.charCodeAt(i) === 10) line++;
  return line;
}

/** A parser kept alive so that its map, and the optimized code that checks it, outlive each program parsed (engines/common/shapes.ts). */
keepShape(new Parser(tokenize("."), "."));
