import { describe, expect, it } from "vitest";
import { limitsEngine, loadLimitsText, urlSources, validateLimitsText } from "./engine.js";
import { pyRepr } from "./python-text.js";

const base = { schema: 1, identifiers: [], classifiers: [], limits: [], applications: [] };

describe("validateLimitsText", () => {
  it("answers like pscheduler validate-limits", () => {
    expect(validateLimitsText(JSON.stringify(base))).toEqual({
      valid: true,
      text: "Limit configuration is valid.",
    });
    const bad = validateLimitsText(JSON.stringify({ ...base, classifiers: [{ name: "c" }] }));
    expect(bad).toEqual({
      valid: false,
      pointer: "/classifiers/0",
      message:
        "classifier \"c\": Invalid limit configuration: At /classifiers/0: 'description' is a required property",
      text: "Limit configuration is invalid:\nclassifier \"c\": Invalid limit configuration: At /classifiers/0: 'description' is a required property",
      place: { line: 1, column: 45 },
    });
  });
  it("places an error beyond pScheduler's text, never a JSON syntax error (whose text places it)", () => {
    const text =
      '{"schema": 1, "identifiers": [],\n "classifiers": [],\n "limits": [{"name": "x", "description": "x", "type": "pass-fail", "data": 7}],\n "applications": []}';
    const bad = validateLimitsText(text);
    expect(bad).toMatchObject({
      valid: false,
      message: 'limit "x": JSON provided must be a dictionary.',
      place: { line: 3, column: 76 },
    });
    expect(validateLimitsText("{\n ]")).toMatchObject({ valid: false, place: null });
  });
  it("reports unparsable JSON", () => {
    const r = validateLimitsText("{");
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.message).toMatch(/^Invalid limit configuration: /);
  });
});

describe("limitsEngine", () => {
  it("compiles to plain JSON data that loads again", () => {
    const source = JSON.stringify({
      ...base,
      "#": "comment",
      limits: [
        { name: "a", description: "a", type: "test-type", data: { types: ["rtt"] } },
        { name: "b", description: "b", clone: "a", data: { types: ["trace"] }, invert: true },
      ],
    });
    const r = limitsEngine.compile(source);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const data = JSON.parse(JSON.stringify(r.value));
    expect(data.config["#"]).toBeUndefined();
    expect(data.config.limits[1]).toEqual({
      name: "b",
      description: "b",
      type: "test-type",
      data: { types: ["trace"] },
      invert: true,
    });
    expect(limitsEngine.load(data).limits.map((l) => l.name)).toEqual(["a", "b"]);
  });
  it("stores an ip-cidr-list as packed ranges that load without the CIDR text", () => {
    const list = {
      name: "list",
      description: "l",
      type: "ip-cidr-list",
      data: { cidrs: ["192.0.2.0/24", "2001:db8::/32"] },
    };
    const source = JSON.stringify({
      ...base,
      identifiers: [...base.identifiers, list],
      classifiers: [{ name: "c", description: "c", identifiers: ["list"] }],
    });
    const r = limitsEngine.compile(source);
    if (!r.ok) throw new Error(r.error[0].message);
    const data = JSON.parse(JSON.stringify(r.value));
    const index = String(base.identifiers.length);
    expect(data.config.identifiers[index].data.cidrs).toEqual([]);
    expect(data.cidr_ranges[index].n).toBe(2);
    const hints = (requester: string) => ({ requester });
    const policy = limitsEngine.load(data);
    const ident = policy.identifiers[Number(index)];
    const state = { ctx: {} as never, usedOutside: false, ttlSeconds: Infinity, fetches: 0 };
    expect(ident.evaluate(hints("192.0.2.7"), state)).toBe(true);
    expect(ident.evaluate(hints("2001:db8:1::1"), state)).toBe(true);
    expect(ident.evaluate(hints("198.51.100.1"), state)).toBe(false);
  });
  it("still loads a bare configuration stored by earlier bundles", () => {
    const list = { name: "list", description: "l", type: "ip-cidr-list", data: { cidrs: ["192.0.2.0/24"] } };
    const config = { ...base, identifiers: [list], classifiers: [] };
    const policy = limitsEngine.load(JSON.parse(JSON.stringify(config)));
    expect(
      policy.identifiers[0].evaluate(
        { requester: "192.0.2.9" },
        { ctx: {} as never, usedOutside: false, ttlSeconds: Infinity, fetches: 0 },
      ),
    ).toBe(true);
  });
  it("gives errors a code and a JSON pointer", () => {
    const r = limitsEngine.compile(
      JSON.stringify({ ...base, identifiers: [{ name: "x", description: "x", type: "nope", data: {} }] }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error[0]).toEqual({
        code: "limits_invalid_identifier",
        message: "Identifier 'x' has unsupported type 'nope'",
        at: "/identifiers/0/type",
      });
  });
});

describe("urlSources", () => {
  it("lists the ip-cidr-list-url identifiers with their timing", () => {
    const r = loadLimitsText(
      JSON.stringify({
        ...base,
        identifiers: [
          {
            name: "u",
            description: "u",
            type: "ip-cidr-list-url",
            data: { source: "https://x.example/list", update: "P1D", retry: "PT10M", "fail-state": true },
          },
        ],
      }),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(urlSources(r.value)).toEqual([
      { source: "https://x.example/list", updateSeconds: 86400, retrySeconds: 600, failState: true },
    ]);
  });
});

describe("pyRepr", () => {
  it("renders JSON the way Python prints it", () => {
    expect(pyRepr({ x: [1, "y", true, null], "it's": 2.5 })).toBe(`{'x': [1, 'y', True, None], "it's": 2.5}`);
  });
});
