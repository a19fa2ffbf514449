/**
 * Drops whitespace and `#` comments outside character classes, as the
 * "extended" flag of Oniguruma (jq's `x`) and PCRE (ClassAd's `x`) does, since
 * JavaScript regexes have no such flag.
 */
export function stripExtended(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "#") {
      while (i < pattern.length && pattern[i] !== "\n") i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}
