/**
 * `arbiter test`: the shipped policy tests pass, and the command's failure lines,
 * exit codes, --run, formats (json; junit read back by an XML parser) and
 * progress behave as documented.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { differences } from "../../src/cli/test-expect.js";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-test-");
const POLICIES = join(REPO_ROOT, "policies");

/** The cases the shipped test files hold, by file, read independently of the command. */
function shippedCases(): Record<string, { name: string; skip?: string }[]> {
  const out: Record<string, { name: string; skip?: string }[]> = {};
  for (const name of readdirSync(POLICIES).filter((n) => n.endsWith(".test.yaml"))) {
    out[name] = (
      parse(readFileSync(join(POLICIES, name), "utf8")) as { cases: { name: string; skip?: string }[] }
    ).cases;
  }
  return out;
}

const PLACEMENT = readFileSync(join(POLICIES, "placement.yaml"), "utf8");

/** A folder with the default placement policy and the given test file. */
function placementFolder(test: string): string {
  return scratch.folder({ "placement.yaml": PLACEMENT, "my.test.yaml": test });
}

const ONE_PASS_ONE_FAIL = `engine: placement
cases:
  - name: bob lands in root.default
    request: {user: bob, groups: [bob], tags: {namespace: testapp}}
    expect: {queue: root.default}
  - name: sarah's queue, wrongly expected
    request: {user: sarah, groups: [dev_app], tags: {namespace: newapp}}
    expect: {queue: root.newapp.bob, create: true, rule: {index: 1}}
`;

describe("arbiter test over the shipped policies", () => {
  it("runs every case of every policies/*.test.yaml and all pass", async () => {
    const files = shippedCases();
    expect(Object.keys(files).sort()).toEqual([
      "customs.test.yaml",
      "filters.test.yaml",
      "limits.test.yaml",
      "placement.test.yaml",
      "pool.test.yaml",
    ]);
    const all = Object.values(files).flat();
    const skipped = all.filter((c) => c.skip !== undefined).length;
    const r = await run(["test", POLICIES]);
    expect(r.err).toBe("");
    expect(r.out).toBe(
      `${all.length - skipped} passed, 0 failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`,
    );
    expect(r.code).toBe(0);
    // every shipped policy is also linted (no warning: stderr stays empty): a few hundred ms more
  }, 30_000);

  it("runs the files under policies/ when no path is given", async () => {
    const cwd = process.cwd();
    process.chdir(REPO_ROOT);
    try {
      const r = await run(["test", "--format", "json"]);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.out) as { cases: { file: string }[] };
      expect(new Set(report.cases.map((c) => c.file))).toEqual(
        new Set(Object.keys(shippedCases()).map((n) => `policies/${n}`)),
      );
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("job queue steps", () => {
  // Issue 25, item 1: a scheduling pass step answers as POST /v1/queues/{q}/schedule does
  // (test/worker/jobs.test.ts runs the same queue over HTTP): `started` holds only the jobs
  // the pass moved from held to running, never one that was already running.
  it("reports a job already running as not held, not as started", async () => {
    const dir = scratch.folder({
      "filters.json": "[]",
      "q.test.yaml": `engine: jobfilter
cases:
  - name: one slot, one running, one held
    steps:
      - add_filter: {priority: 1, predicates: [[opcode, ["=", OP_ID, OP_X]]], action: [RATE_LIMIT, 1]}
      - submit: {opcodes: [{OP_ID: OP_X}]}
        expect: {job_id: 1, action: ACCEPT, state: running}
      - submit: {opcodes: [{OP_ID: OP_X}]}
        expect: {job_id: 2, action: RATE_LIMITED, state: queued}
      - schedule: [1, 2]
        expect:
          started: []
          rejected: []
          held: [2]
          not_held: {running: [1], finished: [], cancelled: [], expired: []}
          unknown: []
          jobs: [{job_id: 1, state: running}, {job_id: 2, state: queued}]
      - finish: 1
      - schedule: [2, 1, 2, 77]
        expect: {started: [2], held: [], not_held: {finished: [1]}, unknown: [77], jobs: [{job_id: 2, state: running}, {job_id: 1}]}
      - submit: {opcodes: [{OP_ID: OP_X}]}
        expect: {action: RATE_LIMITED}
`,
    });
    const r = await run(["test", dir]);
    expect(r).toEqual({ code: 0, out: "1 passed, 0 failed\n", err: "" });
  });
});

describe("failures", () => {
  it("prints one line per failed case with file, line, case name and every differing field, then the totals, and exits 1", async () => {
    const dir = placementFolder(ONE_PASS_ONE_FAIL);
    const file = join(dir, "my.test.yaml");
    const r = await run(["test", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${file}:6:5: sarah's queue, wrongly expected: queue: expected "root.newapp.bob", got "root.newapp.sarah"; rule.index: expected 1, got 0\n` +
        "1 passed, 1 failed\n",
    );
  });

  it("names the failing step of a stateful case and what its answer held", async () => {
    const dir = scratch.folder({
      "filters.json": "[]",
      "q.test.yaml": `engine: jobfilter
cases:
  - name: a paused queue
    steps:
      - add_filter: {priority: 0, predicates: [[jobid, [">", id, watermark]]], action: PAUSE}
      - submit: {opcodes: [{OP_ID: OP_INSTANCE_STARTUP}]}
        expect: {action: ACCEPT}
      - submit: {opcodes: [{OP_ID: OP_INSTANCE_STARTUP}]}
        expect: {action: PAUSE}
`,
    });
    const r = await run(["test", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${join(dir, "q.test.yaml")}:3:5: a paused queue: steps[1] (submit, 6:9): action: expected "ACCEPT", got "PAUSE"\n0 passed, 1 failed\n`,
    );
  });

  it("fails a step without expectations when its answer is an error", async () => {
    const dir = scratch.folder({
      "customs.json": "{}",
      "pool.test.yaml":
        "engine: customs\ncases:\n  - name: finish an unknown permit\n    steps:\n      - finish: {host: h1, permit: 7}\n",
    });
    const r = await run(["test", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "finish an unknown permit: steps[0] (finish, 5:9): failed with permit_not_found: no permit `7` on host `h1`\n",
    );
  });

  it("fails every case of a policy that does not compile, naming the policy's errors", async () => {
    const dir = scratch.folder({
      "placement.yaml": "partitions:\n  - name: default\n    bogus: 1\n",
      "p.test.yaml":
        "engine: placement\ncases:\n  - name: any\n    request: {user: bob}\n    expect: {rejected: false}\n",
    });
    const r = await run(["test", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${join(dir, "p.test.yaml")}:3:5: any: the policy does not compile: ${join(dir, "placement.yaml")}:3:5: field \`bogus\` not found in partition\n0 passed, 1 failed\n`,
    );
  });

  it("reports skipped cases with their reason and runs none of them", async () => {
    const dir = placementFolder(`engine: placement
cases:
  - name: not yet
    skip: waiting for the namespace queue
    request: {user: bob}
    expect: {queue: root.nowhere}
  - name: bob
    request: {user: bob}
    expect: {queue: root.default}
`);
    const r = await run(["test", dir]);
    expect(r).toEqual({ code: 0, out: "1 passed, 0 failed, 1 skipped\n", err: "" });
  });
});

describe("invalid test files", () => {
  it("exits 2 naming each error at file:line:column and runs nothing", async () => {
    const dir = placementFolder(`engine: placement
cases:
  - name: typo in the request
    request: {usr: bob}
    expect: {queue: root.default}
  - name: typo in the expectation
    request: {user: bob}
    expect: {queu: root.default}
`);
    const file = join(dir, "my.test.yaml");
    const r = await run(["test", dir]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      `${file}:4:5: cases[0].request.user: is required\n` +
        `${file}:4:15: cases[0].request.usr: unknown field (did you mean \`user\`?)\n` +
        `${file}:8:14: cases[1].expect.queu: unknown field (did you mean \`queue\`?)\n` +
        "arbiter test: 1 invalid test file(s); no case was run\n",
    );
  });

  it.each([
    ["a YAML syntax error", "engine: placement\ncases: [\n", /:3:1: /],
    [
      "an unknown engine",
      "engine: yarn\ncases: []\n",
      /:1:1: engine: `yarn` is no engine; it is one of limits, placement, match, customs, jobfilter$/m,
    ],
    ["no cases", "engine: placement\ncases: []\n", /:2:1: cases: Too small/],
    [
      "a step of another engine",
      "engine: customs\ncases:\n  - name: x\n    steps:\n      - submit: {opcodes: []}\n",
      /:5:9: cases\[0\]\.steps\[0\]: `submit` is no step of customs; a step is one of report, allocate, finish, hosts, wait, with an optional expect$/m,
    ],
    [
      "a misspelt engine",
      "engine: placment\ncases: []\n",
      /:1:1: engine: `placment` is no engine \(did you mean `placement`\?\); it is one of /m,
    ],
    [
      "a misspelt case field",
      "engine: placement\ncases:\n  - {name: a, reqest: {user: x}, expect: {rejected: false}}\n",
      /:3:15: cases\[0\]\.reqest: unknown field \(did you mean `request`\?\)$/m,
    ],
    [
      "a misspelt step",
      "engine: customs\ncases:\n  - name: x\n    steps:\n      - alocate: {}\n",
      /:5:9: cases\[0\]\.steps\[0\]: `alocate` is no step of customs \(did you mean `allocate`\?\); a step is one of /m,
    ],
    [
      "two cases with one name",
      "engine: placement\ncases:\n  - {name: a, request: {user: x}, expect: {rejected: false}}\n  - {name: a, request: {user: y}, expect: {rejected: false}}\n",
      /:4:6: cases\[1\]\.name: `a` is also the name of cases\[0\]$/m,
    ],
    [
      "a policy file that is not there",
      "engine: placement\npolicy: nowhere.yaml\ncases:\n  - {name: a, request: {user: x}, expect: {rejected: false}}\n",
      /:2:1: policy: there is no file `nowhere.yaml` beside this test file$/m,
    ],
  ])("%s is an invalid test file", async (_what, text, message) => {
    const dir = placementFolder(text);
    const r = await run(["test", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it("exits 2 when a path holds no test file, or a path does not exist", async () => {
    const empty = scratch.folder({ "placement.yaml": PLACEMENT });
    expect(await run(["test", empty])).toEqual({
      code: 2,
      out: "",
      err: `arbiter test: no *.test.yaml file in ${empty}\n`,
    });
    const missing = join(empty, "nowhere");
    expect(await run(["test", missing])).toEqual({
      code: 2,
      out: "",
      err: `arbiter test: cannot read \`${missing}\`: ENOENT\n`,
    });
  });

  it("exits 2 on a bad --run or --format", async () => {
    expect((await run(["test", POLICIES, "--run", "("])).code).toBe(2);
    expect((await run(["test", POLICIES, "--format", "xml"])).code).toBe(2);
  });
});

describe("--run", () => {
  it("runs only the cases whose name matches", async () => {
    const dir = placementFolder(ONE_PASS_ONE_FAIL);
    expect(await run(["test", dir, "--run", "^bob"])).toEqual({
      code: 0,
      out: "1 passed, 0 failed\n",
      err: "",
    });
    const none = await run(["test", dir, "--run", "nobody"]);
    expect(none).toEqual({
      code: 0,
      out: "0 passed, 0 failed\n",
      err: "arbiter test: no case name matches --run nobody\n",
    });
  });
});

describe("--format json", () => {
  it("lists every case with its status, place and messages", async () => {
    const dir = placementFolder(ONE_PASS_ONE_FAIL);
    const r = await run(["test", dir, "--format", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as {
      passed: number;
      failed: number;
      skipped: number;
      cases: Record<string, unknown>[];
    };
    expect(report).toMatchObject({ passed: 1, failed: 1, skipped: 0 });
    expect(report.cases.map((c) => [c.name, c.status, c.at, c.engine])).toEqual([
      ["bob lands in root.default", "passed", "3:5", "placement"],
      ["sarah's queue, wrongly expected", "failed", "6:5", "placement"],
    ]);
    expect(report.cases[1].messages).toEqual([
      'queue: expected "root.newapp.bob", got "root.newapp.sarah"',
      "rule.index: expected 1, got 0",
    ]);
  });
});

describe("--format junit", () => {
  /** Parses XML strictly: any error throws (a replacement character is only a warning, and legitimate). */
  function parseXml(text: string) {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(`${level}: ${message}`);
      },
    }).parseFromString(text, "text/xml");
  }
  const children = (e: Element, name: string) => Array.from(e.getElementsByTagName(name));

  it("is well-formed JUnit XML with a testsuite per file and a failure per failed case", async () => {
    const dir = placementFolder(ONE_PASS_ONE_FAIL);
    const other = scratch.folder({
      "placement.yaml": PLACEMENT,
      "b.test.yaml":
        "engine: placement\ncases:\n  - {name: skipped one, skip: later, request: {user: x}, expect: {rejected: false}}\n",
    });
    const r = await run(["test", dir, other, "--format", "junit"]);
    expect(r.code).toBe(1);
    expect(r.out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    const root = parseXml(r.out).documentElement!;
    expect(root.tagName).toBe("testsuites");
    expect([
      root.getAttribute("tests"),
      root.getAttribute("failures"),
      root.getAttribute("skipped"),
      root.getAttribute("errors"),
    ]).toEqual(["3", "1", "1", "0"]);
    const suites = children(root, "testsuite");
    expect(
      suites.map((s) => [s.getAttribute("name"), s.getAttribute("tests"), s.getAttribute("failures")]),
    ).toEqual([
      [join(dir, "my.test.yaml"), "2", "1"],
      [join(other, "b.test.yaml"), "1", "0"],
    ]);
    const cases = children(root, "testcase");
    expect(
      cases.map((c) => [
        c.getAttribute("name"),
        c.getAttribute("line"),
        children(c, "failure").length,
        children(c, "skipped").length,
      ]),
    ).toEqual([
      ["bob lands in root.default", "3", 0, 0],
      ["sarah's queue, wrongly expected", "6", 1, 0],
      ["skipped one", "3", 0, 1],
    ]);
    const failure = children(cases[1], "failure")[0];
    expect(failure.getAttribute("message")).toBe(
      'queue: expected "root.newapp.bob", got "root.newapp.sarah"',
    );
    expect(failure.textContent).toBe(
      'queue: expected "root.newapp.bob", got "root.newapp.sarah"\nrule.index: expected 1, got 0',
    );
    for (const c of cases) expect(Number.isFinite(Number(c.getAttribute("time")))).toBe(true);
  });

  it("stays well-formed whatever the case names and answers hold", async () => {
    const name = `<tag a="1"> & 'quotes' \u0001 control, ]]> and a lone \uD800`;
    const dir = placementFolder(
      `engine: placement\ncases:\n  - name: ${JSON.stringify(name)}\n    request: {user: "<&>"}\n    expect: {queue: "]]><x/>"}\n`,
    );
    const r = await run(["test", dir, "--format", "junit"]);
    const c = Array.from(parseXml(r.out).getElementsByTagName("testcase"))[0];
    expect(c.getAttribute("name")).toBe(`<tag a="1"> & 'quotes' \uFFFD control, ]]> and a lone \uFFFD`);
    expect(c.getElementsByTagName("failure")[0].textContent).toContain('expected "]]><x/>"');
  });
});

describe("progress", () => {
  /** An Io whose clock moves 700 ms at every reading. */
  function slowIo(stderrIsTty: boolean) {
    let err = "";
    let t = 0;
    const io: Io = {
      stdout: () => {},
      stderr: (s) => void (err += s),
      readStdin: async () => "",
      isTty: false,
      stdinIsTty: false,
      stderrIsTty,
      env: {},
      clock: () => (t += 700),
    };
    return { io, err: () => err };
  }

  it("shows cases done on a terminal once a run takes more than a second, then clears the line", async () => {
    const { io, err } = slowIo(true);
    expect(await main(["test", POLICIES], io)).toBe(0);
    const total = Object.values(shippedCases()).flat().length;
    expect(err()).toMatch(new RegExp(`^\\r\\x1b\\[K2/${total} cases \\(`));
    expect(err().endsWith("\r\x1b[K")).toBe(true);
  });

  it("writes nothing when stderr is not a terminal", async () => {
    const { io, err } = slowIo(false);
    expect(await main(["test", POLICIES], io)).toBe(0);
    expect(err()).toBe("");
  });
});

describe("test and eval answer alike", () => {
  it.each(["limits", "placement", "pool", "filters"])(
    "the request cases of policies/%s.test.yaml hold for `arbiter eval`'s answers too",
    async (name) => {
      const file = parse(readFileSync(join(POLICIES, `${name}.test.yaml`), "utf8")) as {
        engine: string;
        context?: { local_addresses?: string[] };
        cases: { request?: unknown; expect?: unknown }[];
      };
      const cases = file.cases.filter((c) => c.request !== undefined);
      expect(cases.length).toBeGreaterThan(0);
      const before = process.env.ARBITER_LOCAL_ADDRESSES;
      process.env.ARBITER_LOCAL_ADDRESSES = (file.context?.local_addresses ?? []).join(",");
      let r;
      try {
        r = await run(["eval", file.engine], cases.map((c) => JSON.stringify(c.request)).join("\n"));
      } finally {
        if (before === undefined) delete process.env.ARBITER_LOCAL_ADDRESSES;
        else process.env.ARBITER_LOCAL_ADDRESSES = before;
      }
      expect(r.code).toBe(0);
      const answers = r.out
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown);
      expect(answers).toHaveLength(cases.length);
      answers.forEach((answer, i) => expect(differences(cases[i].expect, answer)).toEqual([]));
    },
  );
});
