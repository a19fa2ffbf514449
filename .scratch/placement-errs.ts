import { readFileSync } from "node:fs";
import { parse } from "/work/wt/cli/node_modules/yaml/dist/index.js";
import { compilePlacement } from "/work/wt/cli/src/engines/placement/index.js";
for (const file of ["config-errors.yaml", "limits-on-work.yaml"]) {
  const cases = parse(readFileSync(`/work/wt/cli/test/cases/placement/${file}`, "utf8")) as { note: string; policy: unknown; want_error?: { at?: string } }[];
  cases.forEach((c, i) => {
    if (!c.want_error || typeof c.want_error !== "object" || !("at" in c.want_error)) return;
    const src = typeof c.policy === "string" ? c.policy : JSON.stringify(c.policy);
    const r = compilePlacement(src);
    console.log(`${file} #${i} ${c.note}\n  want ${c.want_error.at}\n  got ${JSON.stringify(r.ok ? null : r.error)}`);
    if (typeof c.policy === "string") console.log(c.policy.split("\n").map((l, n) => `   ${n + 1}| ${l}`).join("\n"));
  });
}
