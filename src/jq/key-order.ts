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
