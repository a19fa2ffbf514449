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
  if (!HAS_WHITESPACE.test(text)) return text;
  return text.replace(STRING_OR_WHITESPACE, (m) => (m.charCodeAt(0) === 34 ? m : ""));
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
