import { describe, expect, it } from "vitest";
import { limitsEngine } from "./engine.js";

const pass = { name: "throughput-defualt-time", description: "d", type: "pass-fail", data: { pass: true } };
const everybody = { name: "everybody", description: "e", type: "always", data: {} };

function compileError(policy: unknown): { code: string; message: string; suggestion?: string } {
  const r = limitsEngine.compile(JSON.stringify(policy));
  if (r.ok) throw new Error("the policy compiled");
  return r.error[0]!;
}

describe("did-you-mean in limits messages", () => {
  it("keeps pScheduler's text, names the application and suggests the limit", () => {
    const e = compileError({
      schema: 1,
      identifiers: [everybody],
      classifiers: [{ name: "default", description: "c", identifiers: ["everybody"] }],
      limits: [pass],
      applications: [
        {
          description: "Defaults",
          classifier: "default",
          apply: [{ require: "all", limits: ["throughput-default-time"] }],
        },
      ],
    });
    expect(e.code).toBe("limits_unknown_reference");
    expect(e.message).toMatch(/^Unknown limits: throughput-default-time/);
    expect(e.message).toContain(
      'limit "throughput-default-time" is referred to by application 0 ("Defaults")',
    );
    expect(e.message).toContain("did you mean `throughput-defualt-time`?");
    expect(e).toMatchObject({ suggestion: "throughput-defualt-time" });
  });

  it("suggests the classifier an application meant", () => {
    const e = compileError({
      schema: 1,
      identifiers: [everybody],
      classifiers: [{ name: "default", description: "c", identifiers: ["everybody"] }],
      limits: [pass],
      applications: [
        { classifier: "defualt", apply: [{ require: "all", limits: ["throughput-defualt-time"] }] },
      ],
    });
    expect(e.message).toMatch(/^Unknown classifiers: defualt/);
    expect(e.message).toContain("did you mean `default`?");
  });

  it("suggests the identifier a classifier meant", () => {
    const e = compileError({
      schema: 1,
      identifiers: [everybody],
      classifiers: [{ name: "default", description: "c", identifiers: ["everybodi"] }],
      limits: [],
      applications: [],
    });
    expect(e.message).toBe(
      'classifier "default": Unknown identifiers: everybodi (did you mean `everybody`?)',
    );
    expect(e).toMatchObject({ suggestion: "everybody" });
  });
});
