import { sha256Hex } from "../canonical.js";

/** A stable pseudonym of a text: `m_` and the first 12 hex digits of its SHA-256 (a valid YuniKorn and ACL name). */
export async function pseudonym(text: string): Promise<string> {
  return `m_${(await sha256Hex(text)).slice(0, 12)}`;
}
