import { readAd } from "../../engines/classad/ad-input.js";
import { identText, quoteString, unparseNode } from "../../engines/classad/unparse.js";
import { isJsonObject } from "../../engines/common/json.js";
import { pseudonym } from "./pseudonym.js";

/** Whether the text names any of the attributes as a word (an ad that does not is left as it is, unparsed). */
function mentions(text: string, attributes: ReadonlySet<string>): boolean {
  for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])
    if (attributes.has(word.toLowerCase())) return true;
  return false;
}

/** A JSON object ad with the named attributes' values (any case of the name) replaced by pseudonyms of their JSON. */
async function maskObject(
  ad: Record<string, unknown>,
  attributes: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ad)) {
    out[name] = attributes.has(name.toLowerCase())
      ? await pseudonym(typeof value === "string" ? value : JSON.stringify(value))
      : value;
  }
  return out;
}

/**
 * One ad (ClassAd text in any syntax, JSON text, or a JSON object) with the
 * named attributes' values replaced by pseudonyms (string literals, so an
 * expression comparing two of them still sees equal values as equal). Text ads
 * that name a masked attribute come back in new syntax; the others unchanged.
 * An ad that does not read is replaced by a note, never kept as it is.
 */
export async function maskAd(ad: unknown, attributes: ReadonlySet<string>): Promise<unknown> {
  if (isJsonObject(ad)) return maskObject(ad, attributes);
  if (typeof ad !== "string" || !mentions(ad, attributes)) return ad;
  if (ad.trimStart().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(ad);
      if (isJsonObject(parsed)) return JSON.stringify(await maskObject(parsed, attributes));
    } catch {
      // falls through to the note below
    }
    return '[ masked = "an ad that does not read" ]';
  }
  const read = readAd(ad);
  if (!read.ok) return '[ masked = "an ad that does not read" ]';
  const parts: string[] = [];
  for (const slot of read.ad.attributes()) {
    const text = unparseNode(slot.c.node);
    const value = attributes.has(slot.name.toLowerCase()) ? quoteString(await pseudonym(text)) : text;
    parts.push(`${identText(slot.name)} = ${value}`);
  }
  return `[ ${parts.join("; ")} ]`;
}
