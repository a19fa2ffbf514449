// @ts-check
/**
 * The five engines as the page offers them: what each is, its policy format,
 * and an example request that the default policies (policies/) decide.
 */

/**
 * @typedef {{
 *   name: string,
 *   title: string,
 *   format: string,
 *   comments: boolean,
 *   language: string,
 *   requestHelp: string,
 *   example: unknown,
 *   program?: string,
 * }} EngineInfo
 */

/** @type {EngineInfo[]} */
export const ENGINES = [
  {
    name: "limits",
    title: "limits: may this pScheduler task run?",
    format: "pScheduler limits.conf (JSON with # comments)",
    comments: true,
    language: "jsonc",
    requestHelp: "The body of POST /v1/limits/decide: the task, and the requester's address.",
    example: {
      requester: "203.0.113.7",
      task: {
        schema: 1,
        test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } },
      },
    },
  },
  {
    name: "placement",
    title: "placement: which YuniKorn queue?",
    format: "YuniKorn queues.yaml",
    comments: false,
    language: "yaml",
    requestHelp: "The body of POST /v1/place: the user, groups and tags of an application.",
    example: { user: "sarah", groups: ["sarah", "test_app", "dev_app"], tags: { namespace: "newapp" } },
  },
  {
    name: "match",
    title: "match: which HTCondor machine takes the job?",
    format: "HTCondor configuration (NEGOTIATOR_PE_* expressions)",
    comments: false,
    language: "condor",
    requestHelp: "The body of POST /v1/match: a job ad and machine ads (ClassAd text).",
    example: {
      job: '[ Owner = "alice"; RequestMemory = 1024; Requirements = TARGET.Memory >= MY.RequestMemory; Rank = TARGET.Memory ]',
      machines: [
        '[ Name = "slot1@big"; Memory = 4096; Cpus = 8; Requirements = TARGET.Owner =!= "bob" ]',
        '[ Name = "slot1@small"; Memory = 768; Cpus = 2; Requirements = true ]',
        '[ Name = "slot1@tiny"; Memory = 256; Cpus = 1; Requirements = true ]',
      ],
    },
  },
  {
    name: "customs",
    title: "customs: which host takes the remote job?",
    format: "customs pool settings (JSON)",
    comments: false,
    language: "json",
    requestHelp:
      "The pool's host reports in scan order and the allocation request (the client is one of the hosts); decided on a copy of the pool made from them.",
    example: {
      hosts: [
        { name: "build1", address: "10.0.0.11", load: 0.05, swapFreePct: 70, jobs: 0, idleSeconds: 5400 },
        { name: "build2", address: "10.0.0.12", load: 0.2, swapFreePct: 55, jobs: 1, idleSeconds: 1800 },
        { name: "build3", address: "10.0.0.13", load: 1.4, swapFreePct: 40, jobs: 0, idleSeconds: 60 },
        { name: "desk7", address: "10.0.0.70", load: 0.3, swapFreePct: 50, jobs: 0, idleSeconds: 0 },
      ],
      request: { client: "desk7", fromAddress: "10.0.0.70", user: "alice" },
    },
  },
  {
    name: "jobfilter",
    title: "jobfilter: may this Ganeti job start now?",
    format: "Ganeti filter rules (JSON list)",
    comments: false,
    language: "json",
    requestHelp:
      "The job to submit, and the jobs running in the queue (each holds a slot); decided on a copy of the queue made from them.",
    example: {
      job: {
        id: 42,
        opcodes: [
          {
            OP_ID: "OP_INSTANCE_STARTUP",
            instance_name: "web1",
            reason: [["gnt:user", "maintenance done", 1700000000000000000]],
          },
        ],
      },
      queue: { running: [{ id: 40, opcodes: [{ OP_ID: "OP_INSTANCE_REBOOT", instance_name: "db1" }] }] },
    },
  },
  {
    name: "jq",
    title: "jq: run a jq 1.7.1 program",
    format: "jq 1.7.1 program, as arbiter jq runs it",
    comments: false,
    language: "jq",
    requestHelp: "The input: JSON values, one after another (standard input of arbiter jq).",
    program:
      "# Which tests ask for more than 30 seconds?\n.tasks[]\n| select(.duration > 30)\n| {test, dest, over: (.duration - 30)}\n",
    example: {
      tasks: [
        { test: "throughput", dest: "192.0.2.1", duration: 60 },
        { test: "latency", dest: "192.0.2.2", duration: 10 },
      ],
    },
  },
];

/** The engine a name names, or the first one. @param {string | null | undefined} name */
export function engineInfo(name) {
  return ENGINES.find((e) => e.name === name) ?? ENGINES[0];
}

/**
 * JSON text for people: a value that fits on its line (within `width`
 * columns) stays on one line, anything longer is laid out one member a line.
 * @param {unknown} value
 * @param {string} [indent] the indentation of the value's line
 * @param {number} [used] columns already taken on the value's first line
 * @param {number} [width]
 * @returns {string}
 */
export function prettyJson(value, indent = "", used = 0, width = 64) {
  const flat = oneLine(value);
  if (value === null || typeof value !== "object" || used + flat.length <= width) return flat;
  const inner = indent + "  ";
  // A list's items may take a longer line each: a table of hosts or jobs reads best one item a line.
  if (Array.isArray(value))
    return `[\n${value.map((v) => inner + prettyJson(v, inner, inner.length, width + 48)).join(",\n")}\n${indent}]`;
  const members = Object.entries(value).map(([k, v]) => {
    const head = `${inner}${JSON.stringify(k)}: `;
    return head + prettyJson(v, inner, head.length, width);
  });
  return `{\n${members.join(",\n")}\n${indent}}`;
}

/** @param {unknown} value @returns {string} */
function oneLine(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(oneLine).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`)
    .join(", ")}}`;
}

/** An engine's example request as the editor shows it. @param {EngineInfo} engine */
export function exampleText(engine) {
  return prettyJson(engine.example) + "\n";
}
