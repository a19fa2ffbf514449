/**
 * Insertion order of object keys. jq keeps every object's keys in the order they were first set,
 * but a JavaScript object lists array-index-like keys ("0", "12") first, in numeric order. Objects
 * are plain JavaScript objects; one that holds such a key also carries its key order in a hidden
 * (symbol-keyed, non-enumerable) array, so the common object pays one failed property lookup and
 * code outside the engine still sees ordinary JSON objects.
 */

type Obj = { [key: string]: unknown };

const ORDER = Symbol("jq key order");

/**
 * False until some object gets a key-order record: until then no lookup is needed at all, so a
 * process that never meets an index-like key pays nothing.
 */
let recorded = false;

type Ordered = Obj & { [ORDER]?: string[] };

/** True for keys a JavaScript object would list before the others ("0", "7", "4294967294"). */
export function isIndexKey(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (c === 48) return k.length === 1;
  if (k.length > 10) return false;
  for (let i = 1; i < k.length; i++) {
    const d = k.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return k.length < 10 || Number(k) <= 4294967294;
}

/** The recorded key order of an object, or undefined when its own key order is insertion order. */
export function orderOf(o: Obj): string[] | undefined {
  return recorded ? (o as Ordered)[ORDER] : undefined;
}

/** An object's keys in insertion order; the array may be the object's own record: do not change it. */
export function keysOf(o: Obj): readonly string[] {
  const ord = recorded ? (o as Ordered)[ORDER] : undefined;
  return ord === undefined ? Object.keys(o) : ord;
}

/** How many keys an object has, without listing them when its record already does (index-like keys would each be made a string). */
export function keyCount(o: Obj): number {
  const ord = recorded ? (o as Ordered)[ORDER] : undefined;
  return ord === undefined ? Object.keys(o).length : ord.length;
}

function record(o: Obj, order: string[]): void {
  recorded = true;
  Object.defineProperty(o, ORDER, { value: order, writable: true, configurable: true, enumerable: false });
}

/** `o[k] = v` as an own data property, which a plain store of `__proto__` would not make (it sets the prototype). */
function defineOwn(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Sets `o[k] = v` (an own data property, `__proto__` included) and records the key's place. */
export function setOrderedKey(o: Obj, k: string, v: unknown): void {
  buildKey(o, k, v, recorded ? (o as Ordered)[ORDER] : undefined);
}

/**
 * Adds a key to an object whose record the caller tracks (`ord`, undefined while there is none, as
 * for an object being built), sparing the lookup; returns the record afterwards.
 */
export function buildKey(o: Obj, k: string, v: unknown, ord: string[] | undefined): string[] | undefined {
  if (ord !== undefined) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) ord.push(k);
  } else if (isIndexKey(k) && !Object.prototype.hasOwnProperty.call(o, k)) {
    ord = Object.keys(o);
    ord.push(k);
    record(o, ord);
  }
  if (k === "__proto__") defineOwn(o, k, v);
  else o[k] = v;
  return ord;
}

/** A shallow copy with the same keys in the same order. */
export function copyOrdered<T extends Obj>(o: T): T {
  const ord = recorded ? (o as Ordered)[ORDER] : undefined;
  // spread defines own data properties (so `__proto__` stays a plain key); the record is not copied
  if (ord === undefined) return { ...o };
  // the record's symbol-keyed property sends a spread down V8's generic path (several times slower):
  // copy key by key in the recorded order instead
  const r: Obj = {};
  for (let j = 0; j < ord.length; j++) {
    const k = ord[j];
    if (k === "__proto__") defineOwn(r, k, o[k]);
    else r[k] = o[k];
  }
  record(r, ord.slice());
  return r as T;
}

/** Empties `o` and its record (for objects being rebuilt in place). */
export function clearOrdered(o: Obj): void {
  for (const k of Object.keys(o)) delete o[k];
  delete (o as Ordered)[ORDER];
}

/**
 * `o[k] = v` through one of eight store sites picked by the key's position `j`: a loop that
 * adds keys one by one through a single site sees a new hidden class at each key and goes
 * megamorphic (V8's generic keyed store); a site per position sees one class per object
 * shape. `__proto__` is defined as an own key like any other; the caller keeps any key-order record.
 */
export function storeAt(o: Obj, j: number, k: string, v: unknown): void {
  if (k === "__proto__") {
    defineOwn(o, k, v);
    return;
  }
  switch (j & 7) {
    case 0:
      o[k] = v;
      return;
    case 1:
      o[k] = v;
      return;
    case 2:
      o[k] = v;
      return;
    case 3:
      o[k] = v;
      return;
    case 4:
      o[k] = v;
      return;
    case 5:
      o[k] = v;
      return;
    case 6:
      o[k] = v;
      return;
    default:
      o[k] = v;
  }
}

/** `o[k]` through one of eight load sites picked by the key's position `j` (see {@link storeAt}). */
export function loadAt(o: Obj, j: number, k: string): unknown {
  switch (j & 7) {
    case 0:
      return o[k];
    case 1:
      return o[k];
    case 2:
      return o[k];
    case 3:
      return o[k];
    case 4:
      return o[k];
    case 5:
      return o[k];
    case 6:
      return o[k];
    default:
      return o[k];
  }
}

/** How many keyed load sites {@link loadSite} has; the last is shared by every key past the first ones. */
export const LOAD_SITES = 32;

/** Literal keys given their own load site, in the order first compiled (at most LOAD_SITES − 1 entries). */
const keySites = new Map<string, number>();

/**
 * The load site of a literal key (`.k` in a program), chosen once when the key is compiled: each of
 * the first 31 distinct keys of the isolate has a site of its own, later keys share the last one.
 * A keyed load site that sees one key keeps V8's fast per-shape load; one site for every key
 * (what a single `o[k]` in a shared helper is) goes megamorphic, a generic lookup per read.
 */
export function siteOf(k: string): number {
  const s = keySites.get(k);
  if (s !== undefined) return s;
  if (keySites.size >= LOAD_SITES - 1) return LOAD_SITES - 1;
  const n = keySites.size;
  keySites.set(k, n);
  return n;
}

/** `o[k]` through the load site {@link siteOf} chose for `k`. */
export function loadSite(o: Obj, s: number, k: string): unknown {
  switch (s) {
    case 0:
      return o[k];
    case 1:
      return o[k];
    case 2:
      return o[k];
    case 3:
      return o[k];
    case 4:
      return o[k];
    case 5:
      return o[k];
    case 6:
      return o[k];
    case 7:
      return o[k];
    case 8:
      return o[k];
    case 9:
      return o[k];
    case 10:
      return o[k];
    case 11:
      return o[k];
    case 12:
      return o[k];
    case 13:
      return o[k];
    case 14:
      return o[k];
    case 15:
      return o[k];
    case 16:
      return o[k];
    case 17:
      return o[k];
    case 18:
      return o[k];
    case 19:
      return o[k];
    case 20:
      return o[k];
    case 21:
      return o[k];
    case 22:
      return o[k];
    case 23:
      return o[k];
    case 24:
      return o[k];
    case 25:
      return o[k];
    case 26:
      return o[k];
    case 27:
      return o[k];
    case 28:
      return o[k];
    case 29:
      return o[k];
    case 30:
      return o[k];
    default:
      return o[k];
  }
}

/** `o[k] = v` through the store site of `k`'s load site `s` ({@link siteOf}; −1 or the shared one for any other key). */
function storeSite(o: Obj, s: number, k: string, v: unknown): void {
  switch (s) {
    case 0:
      o[k] = v;
      return;
    case 1:
      o[k] = v;
      return;
    case 2:
      o[k] = v;
      return;
    case 3:
      o[k] = v;
      return;
    case 4:
      o[k] = v;
      return;
    case 5:
      o[k] = v;
      return;
    case 6:
      o[k] = v;
      return;
    case 7:
      o[k] = v;
      return;
    case 8:
      o[k] = v;
      return;
    case 9:
      o[k] = v;
      return;
    case 10:
      o[k] = v;
      return;
    case 11:
      o[k] = v;
      return;
    case 12:
      o[k] = v;
      return;
    case 13:
      o[k] = v;
      return;
    case 14:
      o[k] = v;
      return;
    case 15:
      o[k] = v;
      return;
    case 16:
      o[k] = v;
      return;
    case 17:
      o[k] = v;
      return;
    case 18:
      o[k] = v;
      return;
    case 19:
      o[k] = v;
      return;
    case 20:
      o[k] = v;
      return;
    case 21:
      o[k] = v;
      return;
    case 22:
      o[k] = v;
      return;
    case 23:
      o[k] = v;
      return;
    case 24:
      o[k] = v;
      return;
    case 25:
      o[k] = v;
      return;
    case 26:
      o[k] = v;
      return;
    case 27:
      o[k] = v;
      return;
    case 28:
      o[k] = v;
      return;
    case 29:
      o[k] = v;
      return;
    case 30:
      o[k] = v;
      return;
    default:
      o[k] = v;
  }
}

/**
 * A shallow copy of `o` with `o[k] = v` set, as {@link copyOrdered} then {@link setOrderedKey}
 * make it; `s` is `k`'s load site ({@link siteOf}) or −1.
 */
export function copySet(o: Obj, k: string, s: number, v: unknown): Obj {
  if (s < 0 || (recorded && (o as Ordered)[ORDER] !== undefined) || isIndexKey(k)) {
    const r = copyOrdered(o);
    setOrderedKey(r, k, v);
    return r;
  }
  // A clone through a spread site of its own keeps V8's fast clone (a monomorphic site clones the
  // shape at once), but the clone shares the original's hidden class: storing a value of another
  // kind in it (an object of another shape, a number of another representation) changes that class
  // for every object having it, and an input kept across runs then pays a migration on every copy
  // (`.schedule += {…}` ran 1.7× slower so; spread sites by key count, docs/performance.md session 47,
  // made it twice as slow). So only a store of the kind the key already holds takes
  // it: a string over a string, a boolean over a boolean, null over null, or (a literal path's outer
  // copies) the clone just made of the value the key holds. Anything else copies through the shared
  // spread of copyOrdered, as before.
  const old = loadSite(o, s, k);
  if (
    typeof old === "string"
      ? typeof v === "string"
      : typeof old === "boolean"
        ? typeof v === "boolean"
        : old === null
          ? v === null
          : old !== undefined && old === cloneSource && v === cloneMade
  ) {
    const r = spreadSite(o, s);
    storeSite(r, s, k, v);
    cloneSource = o;
    cloneMade = r;
    return r;
  }
  const r = copyOrdered(o);
  storeSite(r, s, k, v);
  return r;
}

/** The last clone {@link copySet} made through a spread site, and what it cloned (see {@link forgetClone}). */
let cloneSource: unknown = undefined;
let cloneMade: unknown = undefined;

/** Drops {@link copySet}'s reference to its last clone (at the end of a run: it keeps no value alive). */
export function forgetClone(): void {
  cloneSource = undefined;
  cloneMade = undefined;
}

/** `{ ...o }` through one of 32 spread sites, picked by the load site {@link siteOf} chose for the key being set. */
function spreadSite(o: Obj, s: number): Obj {
  switch (s) {
    case 0:
      return { ...o };
    case 1:
      return { ...o };
    case 2:
      return { ...o };
    case 3:
      return { ...o };
    case 4:
      return { ...o };
    case 5:
      return { ...o };
    case 6:
      return { ...o };
    case 7:
      return { ...o };
    case 8:
      return { ...o };
    case 9:
      return { ...o };
    case 10:
      return { ...o };
    case 11:
      return { ...o };
    case 12:
      return { ...o };
    case 13:
      return { ...o };
    case 14:
      return { ...o };
    case 15:
      return { ...o };
    case 16:
      return { ...o };
    case 17:
      return { ...o };
    case 18:
      return { ...o };
    case 19:
      return { ...o };
    case 20:
      return { ...o };
    case 21:
      return { ...o };
    case 22:
      return { ...o };
    case 23:
      return { ...o };
    case 24:
      return { ...o };
    case 25:
      return { ...o };
    case 26:
      return { ...o };
    case 27:
      return { ...o };
    case 28:
      return { ...o };
    case 29:
      return { ...o };
    case 30:
      return { ...o };
    default:
      return { ...o };
  }
}
