/**
 * The native pscheduler module functions (src/jq/modules-native.ts) must give exactly what
 * their jq definitions (src/jq/modules.ts) give: the reference runs the same jq source passed
 * as a user module, which is never replaced by natives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json } from "../../src/engines/common/json.js";
import { BUDGET_MESSAGE, compileJq, type RunResult } from "../../src/jq/index.js";
import { BUILTIN_MODULES } from "../../src/jq/modules.js";

const MODULES = ["pscheduler/iso8601", "pscheduler/si"] as const;
const REFERENCE: Record<string, string> = Object.fromEntries(MODULES.map((m) => [m, BUILTIN_MODULES[m]]));

function runBoth(program: string, input: Json): { native: RunResult; reference: RunResult } {
  const go = (modules?: Record<string, string>): RunResult => {
    const c = compileJq(program, modules ? { modules } : {});
    if (!c.ok) throw new Error(`${program}: ${c.error[0].message}`);
    return c.value.run(input);
  };
  return { native: go(), reference: go(REFERENCE) };
}

function same(program: string, input: Json): RunResult {
  const { native, reference } = runBoth(program, input);
  expect({ program, input, r: native }).toEqual({ program, input, r: reference });
  return native;
}

const DURATIONS = [
  "PT1M5S",
  "P1W2D",
  "P1W",
  "P2W3DT4H5M6.25S",
  "pt1.5s",
  "Pt1.S",
  "P",
  "PT",
  "PT5S\n",
  "PT5S\r",
  "P\nT5S",
  "PT5S\n\n",
  "",
  "\n",
  "x",
  "PT-1S",
  "P1Y",
  "P1M",
  "PT1H1H",
  "PT99999999999999999999S",
  "P" + "9".repeat(400) + "D",
  "PT0.1S",
  "PT0.30000000000000004S",
  "P1DT",
  "P1D",
  "PT1,5S",
  " PT1S",
  "PT1S ",
  "pT1h2M3s",
  "ＰT1S",
  "PT1S\u2028",
  "P1W1D",
  "P01W02DT03H04M05.060S",
  "PT1.",
  "PT.5S",
  "PT5H1S",
  "PT1M1H",
  "PT1S1S",
  "PT1H2M3.25S",
  "P1W2DT",
  "P1D1W",
  "P1WD",
  "P1.5D",
  "PT1.5H",
  "PT1.5M",
  "P5",
  "PT5",
  "PT1H2",
  "p1w2dt3h4m5s",
  "P1D" + "T".repeat(2),
  "P0.5W1D",
  "PT" + "1".repeat(20) + ".5S",
];
const SI_NUMBERS = [
  "10Mi",
  "1.5k",
  "1.5ki",
  "50Mb",
  "50MB",
  "1",
  "1.",
  ".5",
  "0",
  "007k",
  "1e3",
  "1E3",
  "2G",
  "2g",
  "3Yi",
  "3yi",
  "4z",
  "4Zi",
  "5k\n",
  "5k\r",
  "5 k",
  " 5k",
  "",
  "k",
  "1.25Ti",
  "123456789012345678901234567890",
  "1.999999999999999999999k",
  "-5",
  "+5",
];
const OTHER_VALUES: Json[] = [null, true, false, 0, 5, -3.7, 1e300, [], ["PT1S"], {}, { d: "PT1S" }];

const ARGS = [
  ".",
  ".d",
  ".invalid",
  ".n",
  "(.d, .e)",
  "(.d, 5)",
  "(5, .d)",
  "empty",
  ".[]?",
  "(.d | ascii_downcase)",
  "tostring",
];

describe("native iso::duration_as_seconds equals its jq definition", () => {
  const prog = (arg: string) => `import "pscheduler/iso8601" as iso; [iso::duration_as_seconds(${arg})]`;
  it("on listed strings and other values, with several argument shapes", { timeout: 30_000 }, () => {
    for (const s of [...DURATIONS, ...OTHER_VALUES]) {
      for (const arg of ARGS) {
        same(prog(arg), s);
        same(prog(arg), { d: s, e: "PT2S", invalid: s });
      }
    }
    expect(same(prog("."), "PT1M5S").outputs).toEqual([[65]]);
    expect(same(prog('"P1W"'), null).error).toBe("Invalid ISO 8601 duration 'P1W'");
    expect(same(prog(".d"), { d: "PX" }).error).toBe("Invalid ISO 8601 duration 'null'");
    // well formed, but past the regex's input limit
    expect(same(prog("."), `P${"1".repeat(100_000)}D`).error).toBe(
      "Regex failure: input longer than 100000 characters",
    );
  });
  it("in comparisons, try/catch, path mode and with include", () => {
    for (const s of DURATIONS) {
      same(`import "pscheduler/iso8601" as iso; iso::duration_as_seconds(.) < 5`, s);
      same(`import "pscheduler/iso8601" as iso; try iso::duration_as_seconds(.) catch "caught: \\(.)"`, s);
      same(`import "pscheduler/iso8601" as iso; [path(iso::duration_as_seconds(.))]`, s);
      same(`include "pscheduler/iso8601"; [duration_as_seconds(.)]`, s);
    }
  });
  it("on generated strings", () => {
    const chars = fc.constantFrom(..."PTWDHMSptwdhms0123456789.\n\r -xY".split(""));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 14 }), (s) => {
        same(`import "pscheduler/iso8601" as iso; [iso::duration_as_seconds(.)]`, s);
      }),
      { numRuns: 400 },
    );
  });
});

describe("native si::as_integer equals its jq definition", () => {
  const prog = (arg: string) => `import "pscheduler/si" as si; [si::as_integer(${arg})]`;
  it("on listed strings and other values, with several argument shapes", { timeout: 30_000 }, () => {
    for (const s of [...SI_NUMBERS, ...OTHER_VALUES]) {
      for (const arg of [...ARGS, ".b", "(.n, .d)"]) {
        same(prog(arg), s);
        same(prog(arg), { d: s, e: "2k", n: 7, invalid: s });
      }
    }
    expect(same(prog("."), "10Mi").outputs).toEqual([[10485760]]);
    expect(same(prog("."), "50Mb").error).toBe("Invalid SI Number '50mb'");
  });
  it("keeps number literals of numeric arguments", () => {
    const c = compileJq(`import "pscheduler/si" as si; si::as_integer(100000000000000000001)`);
    if (!c.ok) throw new Error(c.error[0].message);
    expect(c.value.run(null, { keepLiterals: true }).outputs.map((v) => JSON.stringify(v))).toEqual(
      (() => {
        const r = compileJq(`import "pscheduler/si" as si; si::as_integer(100000000000000000001)`, {
          modules: REFERENCE,
        });
        if (!r.ok) throw new Error(r.error[0].message);
        return r.value.run(null, { keepLiterals: true }).outputs.map((v) => JSON.stringify(v));
      })(),
    );
  });
  it("on generated strings", () => {
    const chars = fc.constantFrom(..."0123456789.kmgtpezyiKMGTPEZYIb \n-".split(""));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 10 }), (s) => {
        same(`import "pscheduler/si" as si; [si::as_integer(.)]`, s);
      }),
      { numRuns: 400 },
    );
  });
});

const TIMESTAMPS = [
  "2020-01-02T03:04:05+01:30",
  "2020-01-02T03:04:05-01:30",
  "2020-01-02T03:04:05-00:00",
  "2015-03-05T10:00:00.5Z",
  "2015-3-5T10:00Z",
  "2015-03-05",
  "2015-03-05T10:00",
  "2015-03-05T10:00-05",
  "2015-03-05T10:00+0530",
  "20150305",
  "nope",
  "",
  "2015-03-05T1:2:3Z",
  "99999999999999999999-1-1",
  "0000-00-00T00:00:00+00:00",
  "2015-03-05 10:00Z",
  "2015-03-05t10:00z",
  "2015-03-05T10:00:00Zjunk",
  "\n2015-03-05",
  "2015-03-05\n",
];

describe("native iso::timestamp_parsed equals its jq definition", () => {
  const prog = (arg: string) => `import "pscheduler/iso8601" as iso; [iso::timestamp_parsed(${arg})]`;
  it("on listed strings and other values, with several argument shapes", { timeout: 30_000 }, () => {
    for (const s of [...TIMESTAMPS, ...OTHER_VALUES]) {
      for (const arg of [...ARGS, '("nope", .)', '(., "2001-02-03")']) {
        same(prog(arg), s);
        same(prog(arg), { d: s, e: "2001-02-03T04:05Z", invalid: s });
      }
    }
    expect(same(prog("."), "2020-01-02T03:04-01:30").outputs).toEqual([
      [{ year: 2020, month: 1, day: 2, hour: 3, minute: 4, offset_hr: -1, offset_min: 30 }],
    ]);
    expect(same(prog("."), "x").error).toBe("Invalid timestamp 'x'");
  });
  it("keeps number literals beyond 2^53 as tonumber does", () => {
    const text = (modules?: Record<string, string>) => {
      const c = compileJq(
        `import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.) | .year`,
        modules ? { modules } : {},
      );
      if (!c.ok) throw new Error(c.error[0].message);
      return c.value
        .run("123456789012345678901-1-1", { keepLiterals: true })
        .outputs.map((v) => JSON.stringify(v));
    };
    expect(text()).toEqual(text(REFERENCE));
  });
  it("on generated strings", () => {
    const chars = fc.constantFrom(..."0123456789-:+TZtz .\n".split(""));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 26 }), (s) => {
        same(`import "pscheduler/iso8601" as iso; [iso::timestamp_parsed(.)]`, s);
        same(`import "pscheduler/iso8601" as iso; [iso::timestamp_parsed(.)]`, "2020-" + s);
      }),
      { numRuns: 400 },
    );
  });
});

describe("native si::multiplier equals its jq definition", () => {
  it("on every prefix, unknown ones and non-string keys, literals kept", () => {
    for (const p of [
      "k",
      "m",
      "g",
      "t",
      "p",
      "e",
      "z",
      "y",
      "ki",
      "mi",
      "gi",
      "ti",
      "pi",
      "ei",
      "zi",
      "yi",
      "K",
      "x",
      "",
      "toString",
      "__proto__",
      null,
      1,
      [],
      {},
      true,
    ]) {
      same(`import "pscheduler/si" as si; [si::multiplier(.)]`, p);
      same(`import "pscheduler/si" as si; [si::multiplier(.[]?)]`, [p, "k"]);
      const text = (modules?: Record<string, string>) => {
        const c = compileJq(`import "pscheduler/si" as si; si::multiplier(.)`, modules ? { modules } : {});
        if (!c.ok) throw new Error(c.error[0].message);
        const r = c.value.run(p, { keepLiterals: true });
        return [r.error, r.outputs.map((v) => JSON.stringify(v))];
      };
      expect(text()).toEqual(text(REFERENCE));
    }
  });
});

describe("the built-in modules use the natives", () => {
  it("a call costs one evaluation step instead of the jq body's several", () => {
    for (const [program, input] of [
      [`import "pscheduler/iso8601" as iso; iso::duration_as_seconds(.)`, "PT1M5S"],
      [`import "pscheduler/si" as si; si::as_integer(.)`, "10Mi"],
      [`import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.)`, "2020-01-02T03:04:05+01:30"],
    ] as const) {
      const native = compileJq(program);
      const reference = compileJq(program, { modules: REFERENCE });
      if (!native.ok || !reference.ok) throw new Error("does not compile");
      expect(native.value.run(input, { maxSteps: 1 }).error).toBeUndefined();
      expect(reference.value.run(input, { maxSteps: 1 }).error).toBe(BUDGET_MESSAGE);
    }
  });
});
