/** Object constructions `{...}` and destructuring patterns, parsed for Parser. */
import type { Node, Pattern } from "./ast.js";
import type { Token } from "./lexer.js";
import { lineOf, type Parser } from "./parser.js";

/** Parses `{...}` after its opening brace: keys, `$var` / `$__loc__` / string shorthands, `key: value`. */
export function objectTerm(p: Parser): Node {
  const entries: Array<{ key: Node; value: Node; fromKey?: boolean }> = [];
  if (p.isOp("}")) {
    p.next();
    return { k: "object", entries };
  }
  for (;;) {
    const tok = p.next();
    let key: Node;
    let shorthand: Node | null = null;
    let fromKey = false;
    if (tok.t === "ident" || tok.t === "kw") {
      key = { k: "literal", v: tok.v };
      shorthand = { k: "index", target: { k: "identity" }, key };
    } else if (tok.t === "var") {
      if (tok.v === "__loc__") {
        if (p.isOp(":")) p.fail();
        key = { k: "literal", v: "__loc__" };
        shorthand = { k: "loc", line: Number(lineOf(p.src, tok.pos)) };
      } else if (p.isOp(":")) {
        key = { k: "var", name: tok.v, pos: tok.pos };
      } else {
        key = { k: "literal", v: tok.v };
        shorthand = { k: "var", name: tok.v, pos: tok.pos };
      }
    } else if (tok.t === "str") {
      key = p.strNode(tok, null);
      shorthand = { k: "index", target: { k: "identity" }, key };
      fromKey = true;
    } else if (tok.t === "fmt" && p.peek().t === "str") {
      p.i--;
      key = p.primary();
      shorthand = { k: "index", target: { k: "identity" }, key };
      fromKey = true;
    } else if (tok.t === "num") {
      key = { k: "literal", v: tok.v };
    } else if (tok.t === "op" && tok.v === "(") {
      key = p.pipe();
      p.expectOp(")");
    } else return p.fail(tok);
    let value: Node;
    if (p.isOp(":")) {
      p.next();
      value = objVal(p);
    } else {
      if (shorthand === null) p.fail();
      value = shorthand;
    }
    entries.push(fromKey && value === shorthand ? { key, value, fromKey } : { key, value });
    if (p.isOp(",")) {
      p.next();
      // jq 1.7.1's grammar (MkDict: MkDictPair ',' MkDict, MkDict may be empty) allows `{a: 1,}`
      if (!p.isOp("}")) continue;
    }
    p.expectOp("}");
    return { k: "object", entries };
  }
}

/** An object value: a term or `-term`, optionally piped (`{a: .b | length}`). */
export function objVal(p: Parser): Node {
  let l: Node;
  if (p.isOp("-")) {
    p.next();
    l = { k: "neg", e: p.postfix(false, true, true) };
  } else l = p.postfix(false, true, true);
  if (p.isOp("|")) {
    p.next();
    return { k: "pipe", l, r: objVal(p) };
  }
  return l;
}

/** The name of a `$name` binding; `$__loc__` is a token of its own in jq's grammar and binds nothing. */
export function bindingName(p: Parser, tok: Token & { t: "var" }): string {
  if (tok.v === "__loc__") p.fail(tok);
  return tok.v;
}

/** Destructuring patterns separated by `?//`. */
export function patterns(p: Parser): Pattern[] {
  const pats = [pattern(p)];
  while (p.isOp("?//")) {
    p.next();
    pats.push(pattern(p));
  }
  return pats;
}

/** One destructuring pattern: `$x`, `[...]` or `{...}`. */
export function pattern(p: Parser): Pattern {
  p.enter();
  const out = patternBody(p);
  p.depth--;
  return out;
}

function patternBody(p: Parser): Pattern {
  const tok = p.next();
  if (tok.t === "var") return { k: "pvar", name: bindingName(p, tok) };
  if (tok.t === "op" && tok.v === "[") {
    const elems: Pattern[] = [];
    if (p.isOp("]")) p.fail();
    for (;;) {
      elems.push(pattern(p));
      if (p.isOp(",")) {
        p.next();
        continue;
      }
      p.expectOp("]");
      return { k: "parray", elems };
    }
  }
  if (tok.t === "op" && tok.v === "{") {
    const entries: Array<{ key: Node; keyVar: string | null; val: Pattern | null }> = [];
    for (;;) {
      const kt = p.next();
      let key: Node;
      let keyVar: string | null = null;
      if (kt.t === "var") {
        keyVar = bindingName(p, kt);
        key = { k: "literal", v: keyVar };
      } else if (kt.t === "ident" || kt.t === "kw")
        // every keyword may be an object key
        key = { k: "literal", v: kt.v };
      else if (kt.t === "str") key = p.strNode(kt, null);
      else if (kt.t === "op" && kt.v === "(") {
        key = p.pipe();
        p.expectOp(")");
      } else return p.fail(kt);
      let val: Pattern | null = null;
      if (p.isOp(":")) {
        p.next();
        val = pattern(p);
      } else if (keyVar === null) p.fail();
      entries.push({ key, keyVar, val });
      if (p.isOp(",")) {
        p.next();
        continue;
      }
      p.expectOp("}");
      return { k: "pobject", entries };
    }
  }
  return p.fail(tok);
}
