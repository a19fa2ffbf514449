/**
 * JSON work over a whole bundle, as resumable work (engines/common/slices.ts):
 * the copy that makes a compile's output exactly what KV will hold, the
 * canonical text its revision hashes, and the text KV stores (both as UTF-8
 * bytes, encoded a slice at a time). Each of these,
 * done in one go over a policy of 7,000 placement rules (about 3 MB of
 * JSON), took 20–250 ms in one turn of the event loop; these walk the value
 * without recursion and yield every SLICE_UNITS nodes or characters.
 */
import { Pace, type Steps } from "../engines/common/slices.js";

type Container = Record<string, unknown> | unknown[];

/** One container being walked: its keys (null for an array) and the next index. */
interface Frame {
  readonly from: Container;
  readonly keys: readonly string[] | null;
  i: number;
}

function circular(): TypeError {
  return new TypeError("Converting circular structure to JSON");
}

/** Whether JSON.stringify writes the value as JSON of its own making (toJSON, boxed primitives) rather than as an array or object. */
function special(v: object): boolean {
  return (
    typeof (v as { toJSON?: unknown }).toJSON === "function" ||
    v instanceof Number ||
    v instanceof String ||
    v instanceof Boolean ||
    v instanceof BigInt
  );
}

/** Whether a value is left out of a JSON object (JSON.stringify skips these keys, and writes null for them in arrays). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  // "__proto__" is an own key in JSON.parse's output, never the prototype
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}

/**
 * The value JSON.parse(JSON.stringify(value)) gives, made without the text
 * and a slice at a time; throws as JSON.stringify does on a circular value or
 * a BigInt. An undefined value (or a function) stands for null at the top.
 */
export function* jsonCopySteps(value: unknown, pace: Pace = new Pace()): Steps<unknown> {
  const stack: { frame: Frame; out: Container }[] = [];
  const open = new Set<object>();
  /** The copy of a value that is not omitted: a leaf's copy, or a new container whose frame is pushed. */
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") {
      if (typeof v === "number") return Number.isFinite(v) ? v + 0 : null;
      if (typeof v === "bigint" || omitted(v)) return JSON.parse(JSON.stringify([v]))[0];
      return v;
    }
    if (special(v)) return JSON.parse(JSON.stringify([v]))[0];
    if (open.has(v)) throw circular();
    open.add(v);
    const array = Array.isArray(v);
    const out: Container = array ? [] : {};
    stack.push({ frame: { from: v as Container, keys: array ? null : Object.keys(v), i: 0 }, out });
    return out;
  };
  const top = copy(value);
  while (stack.length > 0) {
    const { frame, out } = stack[stack.length - 1];
    if (pace.spend()) yield;
    if (frame.keys === null) {
      const from = frame.from as unknown[];
      if (frame.i < from.length) {
        const v = from[frame.i++];
        (out as unknown[]).push(omitted(v) ? null : copy(v));
        continue;
      }
    } else if (frame.i < frame.keys.length) {
      const key = frame.keys[frame.i++];
      const v = (frame.from as Record<string, unknown>)[key];
      if (!omitted(v)) setKey(out as Record<string, unknown>, key, copy(v));
      continue;
    }
    open.delete(frame.from);
    stack.pop();
  }
  return top === undefined ? null : top;
}

/** How the text of a value is written: JSON.stringify's way, or canonicalJson's (bundle/canonical.ts). */
interface Writing {
  /** Object keys sorted (canonical) or in their own order. */
  readonly sorted: boolean;
  /** Whether an object's key is written at all. */
  keep(v: unknown): boolean;
  /** Whether the value is written as an array or object of its own keys (else as a leaf). */
  walked(v: unknown): v is Container;
  /** A leaf's text. */
  leaf(v: unknown): string;
}

const AS_JSON: Writing = {
  sorted: false,
  keep: (v) => !omitted(v),
  walked: (v): v is Container => v !== null && typeof v === "object" && !special(v),
  leaf: (v) => JSON.stringify(v) ?? "null",
};

const CANONICAL: Writing = {
  sorted: true,
  keep: (v) => v !== undefined,
  walked: (v): v is Container => v !== null && typeof v === "object",
  leaf: (v) => JSON.stringify(v) ?? "null",
};

/**
 * UTF-8 bytes written a piece at a time: each slice's text is encoded at the
 * checkpoint, so no text of megabytes is ever flattened or encoded in one go.
 */
class Utf8Out {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;
  private readonly encoder = new TextEncoder();

  /** Appends a text's UTF-8 bytes. */
  add(text: string): void {
    // at most 3 bytes per UTF-16 unit
    const need = this.length + text.length * 3;
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.length += this.encoder.encodeInto(text, this.bytes.subarray(this.length)).written;
  }

  /** The bytes written (a view, not a copy: copying megabytes would be one piece again). */
  done(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Writes a value's text as UTF-8 a slice at a time (characters written and nodes visited are the units). */
function* writeSteps(value: unknown, how: Writing, pace: Pace): Steps<Uint8Array> {
  const out = new Utf8Out();
  let text = "";
  /** Characters written since the last count (charged at the next node). */
  let owed = 0;
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** Writes a leaf, or opens a container (pushing its frame). */
  const write = (v: unknown): void => {
    if (!how.walked(v)) {
      const t = how.leaf(v);
      text += t;
      owed += t.length;
      return;
    }
    if (open.has(v)) throw circular();
    open.add(v);
    if (Array.isArray(v)) {
      text += "[";
      stack.push({ from: v, keys: null, i: 0 });
      return;
    }
    const keys = Object.keys(v).filter((k) => how.keep(v[k]));
    if (how.sorted) keys.sort();
    text += "{";
    stack.push({ from: v, keys, i: 0 });
  };
  write(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const due = pace.spend(1 + owed);
    owed = 0;
    if (due) {
      out.add(text);
      text = "";
      yield;
    }
    if (frame.keys === null) {
      const from = frame.from as unknown[];
      if (frame.i < from.length) {
        if (frame.i > 0) text += ",";
        write(from[frame.i++]);
        continue;
      }
      text += "]";
    } else {
      if (frame.i < frame.keys.length) {
        if (frame.i > 0) text += ",";
        const key = frame.keys[frame.i++];
        text += `${JSON.stringify(key)}:`;
        owed += key.length;
        write((frame.from as Record<string, unknown>)[key]);
        continue;
      }
      text += "}";
    }
    open.delete(frame.from);
    stack.pop();
  }
  out.add(text);
  return out.done();
}

/** The UTF-8 bytes of JSON.stringify(value), a slice at a time, for a value it writes as text (an object, array or other JSON value). */
export function jsonBytesSteps(value: unknown, pace: Pace = new Pace()): Steps<Uint8Array> {
  return writeSteps(value, AS_JSON, pace);
}

/** The UTF-8 bytes of canonicalJson(value) (bundle/canonical.ts), a slice at a time. */
export function canonicalJsonSteps(value: unknown, pace: Pace = new Pace()): Steps<Uint8Array> {
  return writeSteps(value, CANONICAL, pace);
}
