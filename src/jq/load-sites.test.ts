import { describe, expect, it } from "vitest";
import { LOAD_SITES, siteOf } from "./key-order.js";

describe("literal keys' load sites", () => {
  it("gives each of the first keys a site of its own and every later key the shared one, a bounded table", () => {
    const keys = Array.from({ length: 3 * LOAD_SITES }, (_, i) => `load-sites-test-${i}`);
    const sites = keys.map(siteOf);
    expect(sites.every((s) => s >= 0 && s < LOAD_SITES)).toBe(true);
    // the same key keeps its site
    expect(keys.map(siteOf)).toEqual(sites);
    // past the table every key shares the last site, and no two keys share any other
    expect(sites.slice(-LOAD_SITES).every((s) => s === LOAD_SITES - 1)).toBe(true);
    const own = sites.filter((s) => s !== LOAD_SITES - 1);
    expect(new Set(own).size).toBe(own.length);
  });
});
