import type { z } from "zod";

/** How many schema nodes one lookup may visit, so a deep or recursive schema costs a bounded amount. */
const MAX_VISITS = 256;

interface Def {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: Node;
  element?: Node;
  in?: Node;
  out?: Node;
  options?: Node[];
  valueType?: Node;
  left?: Node;
  right?: Node;
  getter?: () => Node;
}
type Node = { _zod: { def: Def } };

/**
 * The property names the objects of `schema` at `path` accept: the candidates
 * for a did-you-mean on an unrecognised key. Best effort and bounded: wrappers,
 * arrays, unions, records and pipes are looked through; anything else ends
 * the walk.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let visits = 0;
  const unwrap = (node: Node, out: Node[]): void => {
    if (++visits > MAX_VISITS) return;
    const def = node._zod.def;
    switch (def.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
      case "nonoptional":
        if (def.innerType) unwrap(def.innerType, out);
        return;
      case "pipe":
        if (def.in) unwrap(def.in, out);
        return;
      case "lazy":
        if (def.getter) unwrap(def.getter(), out);
        return;
      case "union":
        for (const o of def.options ?? []) unwrap(o, out);
        return;
      case "intersection":
        if (def.left) unwrap(def.left, out);
        if (def.right) unwrap(def.right, out);
        return;
      default:
        out.push(node);
    }
  };
  let nodes: Node[] = [];
  unwrap(schema as unknown as Node, nodes);
  for (const step of path) {
    const next: Node[] = [];
    for (const node of nodes) {
      const def = node._zod.def;
      if (def.type === "object" && typeof step === "string" && def.shape && step in def.shape)
        unwrap(def.shape[step] as Node, next);
      else if (def.type === "array" && typeof step === "number" && def.element) unwrap(def.element, next);
      else if (def.type === "record" && def.valueType) unwrap(def.valueType, next);
    }
    nodes = next;
  }
  const keys = new Set<string>();
  for (const node of nodes) {
    const def = node._zod.def;
    if (def.type === "object" && def.shape) for (const k of Object.keys(def.shape)) keys.add(k);
  }
  return [...keys];
}
