import { sha256Hex } from "../bundle/index.js";

const CACHE_HOST = "https://verdict-cache.arbiter.internal";

const HAS_WHITESPACE = /[\t\n\r ]/;
const STRING_OR_WHITESPACE = /"[^"\\]*(?:\\.[^"\\]*)*"|[\t\n\r ]+/g;

/**
 * Valid JSON text with the whitespace between tokens removed, and nothing else
 * changed. Whitespace outside strings is the one difference no reader of JSON
 * can see (JSON.parse, a reviver's source text, a literal-preserving parser all
 * agree), so two texts with equal compact forms are the same request to every
 * engine. Key order, number spelling (`1.0`, `-0`, `1e400`) and string escapes
 * are kept: some engine can tell each of them apart. Only call it on text that
 * parsed as JSON.
 */
export function compactJsonText(text: string): string {
  if (!HAS_WHITESPACE.test(text) || !spaceBetweenTokens(text)) return text;
  return text.replace(STRING_OR_WHITESPACE, (m) => (m.charCodeAt(0) === 34 ? m : ""));
}

/**
 * Whether JSON text holds whitespace outside its strings. A body written by
 * JSON.stringify holds none, while its strings may hold many spaces (a match
 * request's ClassAd texts): one pass over the code units, where the regex
 * replacement called back once per string and copied the text.
 */
function spaceBetweenTokens(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // to the closing quote, an escaped character skipped
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 32 || c === 10 || c === 13 || c === 9) return true;
  }
  return false;
}

/**
 * The shared cache's key of a verdict: the route, the revision and the sha256
 * of the compact request text, so a key is equal only for requests every
 * engine reads identically, and a publish makes every old entry unreachable.
 */
export async function verdictCacheKey(path: string, revision: string, text: string): Promise<Request> {
  const hash = await sha256Hex(compactJsonText(text));
  return new Request(`${CACHE_HOST}${path}/${revision}/${hash}`);
}
