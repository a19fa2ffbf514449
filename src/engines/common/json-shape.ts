/**
 * Shape limits on parsed JSON (request bodies, JSON policies): how deep
 * containers nest and how many items one container holds. Checked without
 * recursion before anything recursive (zod, engines) sees the value, so a
 * hostile document is refused by name instead of overflowing the stack.
 */

/** How deep a JSON value may nest (containers inside containers). */
export const MAX_JSON_DEPTH = 100;
/** How many elements one array, or members one object, may hold. */
export const MAX_JSON_ITEMS = 10_000;

/** Limits a JSON value is checked against. */
export interface JsonShapeLimits {
  readonly maxDepth: number;
  readonly maxItems: number;
}

/** The default limits: {@link MAX_JSON_DEPTH} and {@link MAX_JSON_ITEMS}. */
export const JSON_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxItems: MAX_JSON_ITEMS };

/** The limits of JSON policy sources: the same depth, any number of items (long CIDR lists are real). */
export const POLICY_JSON_LIMITS: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxItems: Number.POSITIVE_INFINITY,
};

/** The first place a value breaks a limit: what, where (keys from the root) and the limit. */
export interface JsonShapeViolation {
  readonly kind: "depth" | "items";
  readonly path: readonly (string | number)[];
  readonly limit: number;
}

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly key: string | number;
}

function pathOf(frame: Frame | null): (string | number)[] {
  const out: (string | number)[] = [];
  for (let f = frame; f !== null && f.parent !== null; f = f.parent) out.push(f.key);
  return out.reverse();
}

/**
 * Whether a container and everything in it is within the limits: the usual answer, found by a
 * recursion no deeper than `maxDepth` (it stops there), with no frame or key list made per
 * container. An object's members are read with `for…in`, which also visits inherited enumerable
 * keys: it can only count more than an own-key walk, so a `true` here is always right, and a
 * `false` is checked again by {@link checkJsonShape}'s walk, which names the violation.
 */
function withinShape(value: object, depth: number, maxDepth: number, maxItems: number): boolean {
  if (depth > maxDepth) return false;
  if (Array.isArray(value)) {
    const items = value as unknown[];
    if (items.length > maxItems) return false;
    for (let i = 0; i < items.length; i++) {
      const v = items[i];
      if (typeof v === "object" && v !== null && !withinShape(v, depth + 1, maxDepth, maxItems)) return false;
    }
    return true;
  }
  let n = 0;
  for (const key in value) {
    if (++n > maxItems) return false;
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === "object" && v !== null && !withinShape(v, depth + 1, maxDepth, maxItems)) return false;
  }
  return true;
}

/** The deepest limit {@link withinShape}'s recursion is used for; a deeper one goes straight to the walk. */
const MAX_RECURSIVE_DEPTH = 256;

/** Finds the first container nested too deeply or holding too many items, or null when the value is within limits. */
export function checkJsonShape(
  value: unknown,
  limits: JsonShapeLimits = JSON_SHAPE_LIMITS,
): JsonShapeViolation | null {
  if (typeof value !== "object" || value === null) return null;
  if (limits.maxDepth <= MAX_RECURSIVE_DEPTH && withinShape(value, 1, limits.maxDepth, limits.maxItems))
    return null;
  // past a limit: the walk below finds the first violation and its path
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: "" }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.depth > limits.maxDepth) return { kind: "depth", path: pathOf(frame), limit: limits.maxDepth };
    if (Array.isArray(frame.value)) {
      const items = frame.value as unknown[];
      if (items.length > limits.maxItems)
        return { kind: "items", path: pathOf(frame), limit: limits.maxItems };
      for (let i = items.length - 1; i >= 0; i--) {
        const v = items[i];
        if (typeof v === "object" && v !== null)
          stack.push({ value: v, depth: frame.depth + 1, parent: frame, key: i });
      }
    } else {
      const keys = Object.keys(frame.value);
      if (keys.length > limits.maxItems)
        return { kind: "items", path: pathOf(frame), limit: limits.maxItems };
      for (let i = keys.length - 1; i >= 0; i--) {
        const v = (frame.value as Record<string, unknown>)[keys[i]];
        if (typeof v === "object" && v !== null)
          stack.push({ value: v, depth: frame.depth + 1, parent: frame, key: keys[i] });
      }
    }
  }
  return null;
}

/** How many leading path segments a message shows before eliding the rest. */
const SHOWN_SEGMENTS = 8;

/** Renders a path as users write fields (`task.test.spec[0]`), eliding past a few segments; `body` for the root. */
export function shapeFieldName(path: readonly (string | number)[], root = "body"): string {
  let out = "";
  for (const p of path.slice(0, SHOWN_SEGMENTS))
    out += typeof p === "number" ? `[${p}]` : out === "" ? p : `.${p}`;
  if (path.length > SHOWN_SEGMENTS) out += "…";
  return out === "" ? root : out;
}

/** The JSON pointer of a path (`/task/test/spec/0`), escaping `~` and `/`. */
export function shapePointer(path: readonly (string | number)[]): string {
  return path.map((k) => "/" + String(k).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** A one-line, lower-case description of a violation that names the field and the limit. */
export function describeJsonShape(v: JsonShapeViolation, root = "body"): string {
  const field = shapeFieldName(v.path, root);
  return v.kind === "depth"
    ? `\`${field}\` is nested more than ${v.limit} levels deep (the limit is ${v.limit})`
    : `\`${field}\` holds more than ${v.limit} items (the limit is ${v.limit})`;
}

/** True when no container in `v` sits deeper than `room` levels (the root is level 1); recursion is bounded by `room`. */
function depthWithin(v: object, room: number): boolean {
  if (room === 0) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === "object" && x !== null && !depthWithin(x, room - 1)) return false;
    }
    return true;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === "object" && x !== null && !depthWithin(x, room - 1)) return false;
  }
  return true;
}

/**
 * {@link checkJsonShape} for limits without an item cap, by a walk that allocates nothing while the
 * value is within them (the common case); the violation is then found by the full check.
 */
export function checkJsonDepth(value: unknown, maxDepth: number): JsonShapeViolation | null {
  if (typeof value !== "object" || value === null) return null;
  if (depthWithin(value, maxDepth)) return null;
  return checkJsonShape(value, { maxDepth, maxItems: Number.POSITIVE_INFINITY });
}
