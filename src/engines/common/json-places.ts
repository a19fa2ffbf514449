/**
 * Where the members of a JSON text sit: a JSON pointer (`/limits/3/data`) to
 * the `line:column` of its key (object members) or its value (array items),
 * so findings about a JSON policy point into the file the user wrote. One
 * pass over a text that already parsed; only members down to a fixed depth
 * are recorded, so the map stays linear in the text.
 */

/** Places in one JSON text, by pointer. */
export interface JsonPlaces {
  /** `line:column` (1-based) of the member a pointer names, else of its nearest recorded ancestor; "1:1" for the root. */
  place(pointer: string): string;
}

/** Escapes one pointer segment (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

interface Open {
  readonly array: boolean;
  readonly pointer: string;
  index: number;
}

/**
 * Maps the members of a JSON text to their places, down to `maxDepth` levels.
 * When a key repeats, the last one is kept, as JSON.parse keeps the last value.
 * The text must be JSON (a text that is not gives fewer places, never an error).
 */
export function jsonPlaces(text: string, maxDepth = 6): JsonPlaces {
  // built on the first question: most texts are asked nothing
  let built: ((pointer: string) => string) | null = null;
  return {
    place(pointer: string): string {
      built ??= buildPlaces(text, maxDepth);
      return built(pointer);
    },
  };
}

function buildPlaces(text: string, maxDepth: number): (pointer: string) => string {
  const offsets = new Map<string, number>();
  const stack: Open[] = [];
  const record = (pointer: string, at: number) => {
    if (stack.length <= maxDepth) offsets.set(pointer, at);
  };
  let pendingKey: { pointer: string; at: number } | null = null;
  let i = 0;
  const n = text.length;
  const skipString = (from: number): number => {
    let j = from + 1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 92) j += 2;
      else if (c === 34) return j + 1;
      else j++;
    }
    return n;
  };
  /** Called where a value starts: names it after its parent's next index or its key. */
  const valueStart = (at: number): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return "";
    if (top.array) {
      const pointer = `${top.pointer}/${top.index}`;
      record(pointer, at);
      return pointer;
    }
    const key = pendingKey;
    pendingKey = null;
    return key === null ? top.pointer : key.pointer;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      const pointer = valueStart(i);
      stack.push({ array: c === 91, pointer, index: 0 });
      i++;
    } else if (c === 125 || c === 93) {
      stack.pop();
      i++;
    } else if (c === 44) {
      const top = stack[stack.length - 1];
      if (top !== undefined && top.array) top.index++;
      i++;
    } else if (c === 34) {
      const end = skipString(i);
      const top = stack[stack.length - 1];
      let k = end;
      while (
        k < n &&
        (text.charCodeAt(k) === 32 ||
          text.charCodeAt(k) === 10 ||
          text.charCodeAt(k) === 13 ||
          text.charCodeAt(k) === 9)
      )
        k++;
      if (top !== undefined && !top.array && pendingKey === null && text.charCodeAt(k) === 58) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end)) as string;
        } catch {
          key = text.slice(i + 1, end - 1);
        }
        const pointer = `${top.pointer}/${pointerSegment(key)}`;
        record(pointer, i);
        pendingKey = { pointer, at: i };
        i = k + 1;
      } else {
        valueStart(i);
        i = end;
      }
    } else if (c === 32 || c === 10 || c === 13 || c === 9 || c === 58) {
      i++;
    } else {
      // a number, true, false or null
      valueStart(i);
      while (i < n && !",]} \n\r\t".includes(text[i])) i++;
    }
  }
  const lineStarts = [0];
  for (let j = 0; j < n; j++) if (text.charCodeAt(j) === 10) lineStarts.push(j + 1);
  const at = (offset: number): string => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return `${lo + 1}:${offset - lineStarts[lo] + 1}`;
  };
  return (pointer) => {
    for (let p = pointer; p !== ""; p = p.slice(0, p.lastIndexOf("/"))) {
      const o = offsets.get(p);
      if (o !== undefined) return at(o);
    }
    return "1:1";
  };
}
