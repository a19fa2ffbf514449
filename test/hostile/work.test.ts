// Issue 12's hostile decisions (test/hostile/rows.ts) sent through the Worker at an
// attacker input of 30 and of 10,000 characters: each answer arrives, is the documented
// verdict or error, and /healthz is answered meanwhile. How long they take is measured by
// `npm run bench:hostile`, never asserted here.
import { describe, expect, it } from "vitest";
import { HOSTILE_ROWS } from "./rows.js";
import { hostile, publish } from "./support.js";

describe("hostile decisions end with their documented answer", () => {
  for (const row of HOSTILE_ROWS) {
    const test = row.awaiting ? it.skip : it;
    test(row.awaiting ? `${row.name} (${row.awaiting})` : row.name, async () => {
      if (row.policy) await publish(row.policy.engine, row.policy.source);
      for (const n of [30, 10_000]) {
        const r = row.request(n);
        const a = await hostile(r.method, r.path, r.body);
        expect(row.check(a.status, a.body), `n = ${n}`).toBeNull();
      }
    });
  }
});
