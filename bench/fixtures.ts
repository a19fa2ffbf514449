/**
 * The fixtures of the in-process benchmarks, in a module that imports no engine
 * code: the engine benches and the A/B harness (bench/ab/) share them, and the
 * harness bundles them with each tree it compares.
 */
import type { Json } from "../src/engines/common/json.js";
import type { FilterRule, Job } from "../src/engines/jobfilter/index.js";
import { BUILTIN_MODULES } from "../src/jq/modules.js";

/** pScheduler's iso8601 library as jq text (the definitions our native `iso::` functions replace). */
const ISO8601_TEXT = BUILTIN_MODULES["pscheduler/iso8601"];

/** A job ad as `condor_q -l` prints it (31 attributes). */
export const JOB_AD = `MyType = "Job"
TargetType = "Machine"
ClusterId = 4242
ProcId = 0
GlobalJobId = "submit.example.org#4242.0#1700000000"
Owner = "alice"
User = "alice@example.org"
AcctGroup = "physics"
Cmd = "/home/alice/bin/simulate"
Arguments = "--events 100000 --seed 7"
Iwd = "/home/alice/run7"
JobUniverse = 5
JobStatus = 1
JobPrio = 0
NumJobStarts = 0
QDate = 1700000000
RequestCpus = 1
RequestMemory = 2048
RequestDisk = 1048576
DiskUsage = 1024
ImageSize = 4096
ShouldTransferFiles = "YES"
WhenToTransferOutput = "ON_EXIT"
TransferInput = "input.dat,config.yaml"
Out = "run7.out"
Err = "run7.err"
UserLog = "/home/alice/run7/run7.log"
LeaveJobInQueue = false
OnExitRemove = true
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)
Rank = TARGET.Memory + TARGET.Mips`;

/** A partitionable-slot ad as the startd advertises it (55 attributes). */
export function slotAd(i: number): string {
  return `MyType = "Machine"
TargetType = "Job"
Name = "slot1@node${i}.example.org"
Machine = "node${i}.example.org"
Arch = "X86_64"
OpSys = "LINUX"
OpSysAndVer = "AlmaLinux9"
OpSysMajorVer = 9
UidDomain = "example.org"
FileSystemDomain = "example.org"
HasFileTransfer = true
HasPerFileEncryption = true
HasJobDeferral = true
HasCheckpointing = false
HasVM = false
HasDocker = ${i % 3 === 0}
HasSingularity = true
Cpus = ${4 + (i % 8)}
TotalCpus = 32
Memory = ${8192 + (i % 16) * 1024}
TotalMemory = 131072
Disk = ${50000000 + i}
TotalDisk = 900000000
Mips = ${20000 + (i % 100)}
KFlops = 2500000
LoadAvg = 0.25
TotalLoadAvg = 8.5
CondorLoadAvg = 0.0
KeyboardIdle = 86400
ConsoleIdle = 86400
State = "Unclaimed"
Activity = "Idle"
EnteredCurrentState = 1699990000
EnteredCurrentActivity = 1699990000
SlotType = "Partitionable"
SlotID = 1
PartitionableSlot = true
SlotWeight = Cpus
Start = true
IsOwner = false
Rank = 0.0
CurrentRank = 0.0
NumPids = 0
JobStarts = ${i % 50}
RecentJobStarts = 0
StartdIpAddr = "<10.0.${(i >> 8) & 255}.${i & 255}:9618>"
MyAddress = "<10.0.${(i >> 8) & 255}.${i & 255}:9618>"
CondorVersion = "$CondorVersion: 24.0.1 2024-01-01 $"
CondorPlatform = "$CondorPlatform: X86_64-AlmaLinux_9 $"
DetectedCpus = 32
DetectedMemory = 131072
Draining = false
AcceptedWhileDraining = false
MachineResources = "Cpus Memory Disk Swap"
Requirements = START && (TARGET.RequestMemory <= MY.Memory) && (TARGET.RequestCpus <= MY.Cpus)`;
}

/** The negotiator policy of the 2,000-machine match rows. */
export const CLASSAD_POLICY =
  'NEGOTIATOR_PE_STARTD_ONLY_EXPR = Draining =?= true || Memory < 512\nNEGOTIATOR_PE_JOB_ONLY_EXPR = NumJobStarts > 10\nNEGOTIATOR_PE_RESOURCE_EXPR = TARGET.Owner =!= "mallory"\nNEGOTIATOR_PE_JOB_EXPR = TARGET.Draining =!= true';

/** A realistic chain: drains, opcode filters, regexes, reason filters and rate limits; none but the last matches the probe job. */
export function chain(size = 50): FilterRule[] {
  const rules: FilterRule[] = [];
  for (let i = 0; i < size - 1; i++) {
    const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    const kind = i % 5;
    const predicates: FilterRule["predicates"] =
      kind === 0
        ? [["jobid", ["&", [">", "id", "watermark"], ["<", "id", 10]]]]
        : kind === 1
          ? [["opcode", ["==", "OP_ID", `OP_NEVER_${i}`]]]
          : kind === 2
            ? [["opcode", ["&", ["=~", "instance_name", `^db${i}\\.`], ["?", "force"]]]]
            : kind === 3
              ? [["reason", ["=~", "reason", `maintenance ticket ${i}$`]]]
              : [["opcode", ["|", ["=[]", "tags", `team-${i}`], [">", "beparams.memory", 1_000_000 + i]]]];
    const action: FilterRule["action"] = kind === 4 ? ["RATE_LIMIT", 5] : kind === 0 ? "PAUSE" : "REJECT";
    rules.push({ uuid, watermark: 100, priority: i, predicates, action, reason_trail: [] });
  }
  rules.push({
    uuid: "ffffffff-0000-4000-8000-000000000000",
    watermark: 100,
    priority: 999,
    predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"]]],
    action: ["RATE_LIMIT", 10],
    reason_trail: [],
  });
  return rules;
}

/** The probe job: OP_INSTANCE_REPLACE_DISKS, matched by the chain's last rule only. */
export function job(id: number): Job {
  return {
    id,
    opcodes: [
      {
        OP_ID: "OP_INSTANCE_REPLACE_DISKS",
        instance_name: `web${id}.example.com`,
        force: false,
        tags: ["web", "prod"],
        beparams: { memory: 4096 },
        reason: [["gnt:client:gnt-instance", "replace-disks", 1_700_000_000_000_000_000]],
      },
    ],
  };
}

/** A larger configuration: 20 teams with 10 queues each, filters, ACLs and a five-rule chain. */
export function largePlacement(): string {
  const lines = [
    "partitions:",
    "  - name: default",
    "    defaultqueue: root.default",
    "    placementrules:",
    "      - {name: provided, filter: {type: deny, groups: [guests]}}",
    "      - {name: user, create: false, parent: {name: tag, value: team}}",
    '      - {name: user, create: true, filter: {users: ["^svc-"]}, parent: {name: fixed, value: services}}',
    "      - {name: tag, value: namespace, create: true, parent: {name: fixed, value: dynamic}}",
    "      - {name: fixed, value: root.default}",
    "    queues:",
    "      - name: root",
    "        queues:",
    '          - {name: default, submitacl: "*"}',
    '          - {name: services, parent: true, submitacl: "*"}',
    '          - {name: dynamic, parent: true, submitacl: " dev"}',
  ];
  for (let t = 0; t < 20; t++) {
    lines.push(
      `          - name: team${t}`,
      "            parent: true",
      '            adminacl: " admins"',
      "            queues:",
    );
    for (let q = 0; q < 10; q++) lines.push(`              - {name: q${q}, submitacl: "u${q} g${t}"}`);
  }
  return lines.join("\n") + "\n";
}

/** The placement example. */
export const SEED_PLACEMENT_REQUEST = {
  user: "sarah",
  groups: ["sarah", "dev_app"],
  queue: "my_special_queue",
  tags: { namespace: "newapp" },
  existingQueues: [{ path: "root.newapp", leaf: false }],
};

/** A request that walks the large policy's ACLs. */
export const LARGE_PLACEMENT_REQUEST = {
  applicationId: "app-0001",
  user: "carol",
  groups: ["staff", "dev", "g7"],
  queue: "does-not-exist",
  tags: { namespace: "ml.training", team: "team7" },
  existingQueues: [
    { path: "root.team7.carol", leaf: true },
    { path: "root.dynamic.other", leaf: true, draining: true },
  ],
};

/**
 * A placement policy of `n` rules written by `rule(i)` (flow-style YAML), then a fixed
 * `root.default` fallback; root holds `default` and the extra `queues` lines.
 */
export function placementWithRules(
  n: number,
  rule: (i: number) => string,
  queues: string[] = [],
  header: string[] = [],
): string {
  const lines = [...header, "partitions:", "  - name: default", "    placementrules:"];
  for (let i = 0; i < n; i++) lines.push(`      - ${rule(i)}`);
  lines.push(
    "      - {name: fixed, value: root.default}",
    "    queues:",
    "      - name: root",
    "        queues:",
    '          - {name: default, submitacl: "*"}',
    ...queues.map((q) => `          - ${q}`),
  );
  return lines.join("\n") + "\n";
}

/** A rule of the hard shape: a regex without a literal prefix, groups, and a parent. */
export const hardRule = (i: number) =>
  `{name: user, create: true, filter: {type: allow, users: ["^.*-t${i}[a-z]+$"], groups: [g${i}, h${i}]}, parent: {name: fixed, value: users}}`;

/** A placement policy with n rules, each with its own filter regexp that the request's user ("carol") does not match. */
export function manyRules(n: number): string {
  return placementWithRules(
    n,
    (i) =>
      `{name: fixed, value: root.q${i}, create: true, filter: {type: allow, users: ["^team${i}-[a-z]+$"]}}`,
  );
}

/** A throughput task for the toolkit default limits (passes, with one rewrite change). */
export const LIMITS_REQUEST = {
  requester: "203.0.113.9",
  server: "192.0.2.1",
  task: {
    schema: 1,
    test: {
      type: "throughput",
      spec: { schema: 1, source: "192.0.2.1", dest: "ps.example.net", duration: "PT2S", parallel: 4 },
    },
    schedule: { repeat: "PT4H", slip: "PT1H" },
    tools: ["iperf3"],
  },
};

/** A deterministic, varied pool: loads, swap, idle times, attributes, access lists and levels. */
export function rawHosts(n: number): object[] {
  const hosts: object[] = [
    { name: "ws0", address: "10.0.0.1", load: 0, swapFreePct: 50, jobs: 0, idleSeconds: 1000 },
  ];
  for (let i = 1; i < n; i++) {
    hosts.push({
      name: `h${i}`,
      address: `10.${(i >> 8) & 255}.${i & 255}.2`,
      load: (i % 13) / 20,
      swapFreePct: 20 + (i % 60),
      jobs: i % 3,
      idleSeconds: 600 + (i % 17) * 60,
      freeProcs: 5 + (i % 30),
      attrs: i % 4 === 0 ? ["fastdisk", "x86"] : i % 4 === 1 ? ["hugemem"] : ["x86"],
      allow: i % 5 === 0 ? ["192.168.0.0/16", "10.0.0.0/8"] : ["10.0.0.0/8", "2001:db8::/32"],
      deny: i % 7 === 0 ? ["10.0.0.13"] : [],
      access: i % 9 === 0 ? 2 : 0,
      users: { alice: "/bin/sh" },
      shells: ["/bin/sh"],
      bias: i % 11,
    });
  }
  return hosts;
}

/** The customs allocation request. */
export const CUSTOMS_REQUEST = {
  client: "ws0",
  net: 0,
  fromAddress: "10.0.0.20",
  user: "alice",
  attrs: ["x86", "!sparc", "OR", "hugemem"],
};

/**
 * A jq script with pScheduler's library as jq text instead of our native `iso::` / `si::`:
 * each `import "pscheduler/<m>" as <alias>;` is replaced by the module's definitions,
 * renamed `<alias>_<name>` (as jq-web, which has no modules, needs them too).
 */
export function libraryAsText(src: string, modules: Record<string, string>): string {
  const aliases: string[] = [];
  const out = src.replace(/import "([^"]+)" as (\w+);/g, (_m, name: string, alias: string) => {
    aliases.push(alias);
    let text = modules[name];
    const names = new Set([...text.matchAll(/def (\w+)/g)].map((m) => m[1]));
    for (const n of names) text = text.replace(new RegExp(`\\b${n}\\(`, "g"), `${alias}_${n}(`);
    return text;
  });
  return aliases.reduce((s, a) => s.split(`${a}::`).join(`${a}_`), out);
}

export const REWRITER_DEFS = [
  "def classifiers: .__REWRITER_PRIVATE__.classifiers;",
  "def classifiers_has($v): classifiers | contains([$v]);",
  "def change($msg): .__REWRITER_PRIVATE__.changed = true | if $msg == null then . else .__REWRITER_PRIVATE__.diags += [$msg | tostring] end;",
  "def hint($name): .__REWRITER_PRIVATE__.hints[$name];",
  'def reject($msg): error("Task rejected: " + ($msg | tostring));',
].join("\n");

export const TOOLKIT_REWRITE = [
  'import "pscheduler/iso8601" as iso;',
  REWRITER_DEFS,
  ".",
  "| .test.type as $testtype",
  '| if ( ["idle", "idlebgm", "latency", "latencybg", "throughput" ] | contains([$testtype]) )',
  "    and .test.spec.duration != null",
  "    and iso::duration_as_seconds(.test.spec.duration) < 5",
  '  then .test.spec.duration = "PT5S" | change("Bumped duration to 5-second minimum")',
  "  else . end",
].join("\n");

export const THROUGHPUT_LIMITS = [
  'import "pscheduler/iso8601" as iso;',
  'if .test.type != "throughput" then true',
  'elif .test.spec.parallel != null and .test.spec.parallel > 6 then "Throughput may only have six or fewer parallel streams."',
  'elif .test.spec.duration != null and iso::duration_as_seconds(.test.spec.duration) > 60 then "Duration for throughput must be 60 seconds or less."',
  'elif .test.spec.udp == true and (.test.spec.bandwidth == null or .test.spec.bandwidth > 50000000) then "UDP throughput bandwidth must be less than 50 Mb/s"',
  "else true end",
].join("\n");

export const CLASSIFIERS_HAS = [
  REWRITER_DEFS,
  'if classifiers_has("hostiles") then reject("hostile requester") else classifiers_has("friendlies") end',
].join("\n");

export const CIDR_TRANSFORM =
  '[.prefixes[] | select(.region != "blocked" and (.ip_prefix | test("^[0-9.]+/[0-9]+$"))) | .ip_prefix] | unique';

export const ISO_COMPARE =
  'import "pscheduler/iso8601" as iso; iso::duration_as_seconds(.test.spec.duration) <= iso::duration_as_seconds($max)';

export const TASK: Json = {
  schema: 1,
  test: {
    type: "throughput",
    spec: { schema: 1, source: "192.0.2.1", dest: "ps.example.net", duration: "PT2S", parallel: 4 },
  },
  schedule: { slip: "PT5M" },
  tools: ["iperf3"],
  __REWRITER_PRIVATE__: {
    classifiers: ["default", "friendlies"],
    changed: false,
    diags: [],
    hints: { requester: "192.0.2.1" },
  },
};

export const CIDRS: Json = {
  prefixes: Array.from({ length: 5000 }, (_, i) => ({
    ip_prefix: `10.${(i >> 8) & 255}.${i & 255}.0/24`,
    region: i % 10 === 0 ? "blocked" : `region-${i % 7}`,
  })),
};

export const COMPILE_20 = [
  'import "pscheduler/iso8601" as iso;',
  'import "pscheduler/si" as si;',
  "def classifiers: .__REWRITER_PRIVATE__.classifiers;",
  "def classifiers_has($v): classifiers | contains([$v]);",
  "def change($msg): .__REWRITER_PRIVATE__.changed = true",
  "  | if $msg == null then . else .__REWRITER_PRIVATE__.diags += [$msg | tostring] end;",
  ".",
  "| .test.type as $testtype",
  '| if (["idle", "idlebgm", "latency", "latencybg", "throughput"] | contains([$testtype]))',
  "    and .test.spec.duration != null",
  "    and iso::duration_as_seconds(.test.spec.duration) < 5",
  '  then .test.spec.duration = "PT5S" | change("Bumped duration to 5-second minimum")',
  "  else . end",
  "| if .test.spec.bandwidth != null",
  '    and si::as_integer(.test.spec.bandwidth) > si::as_integer("1G")',
  '  then .test.spec.bandwidth = "1G" | change("Capped bandwidth")',
  "  else . end",
  '| if classifiers_has("hostiles") then error("Task rejected") else . end',
  '| .schedule.slip //= "PT5M"',
  "| .",
].join("\n");

/** The capture pScheduler's `duration_as_seconds` runs (its library as jq text), on an upper-cased duration. */
export const ISO_CAPTURE =
  'ascii_upcase | capture("^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))$")';

export const REGEX_CAPTURE = 'capture("^(?<n>[0-9]+)(?<u>[kmgt]i?)?$"; "i")';
export const REGEX_MATCH = '[match("(?<v>[0-9]+)(?<u>[HMS])"; "g") | .captures | map(.offset)]';
export const REGEX_TWO = '[test("^P[0-9]+D$"), test("^PT[0-9]+S$"), (capture("^P(?<d>[0-9]+)D$") | .d)]';

/** A jq program, its input and `$args`, as a benchmark row runs it. */
export interface JqCase {
  readonly name: string;
  readonly program: string;
  readonly input: Json;
  readonly args?: Record<string, Json>;
}

const OBJECTS_200: Json = Array.from({ length: 200 }, (_, i) => ({
  id: i,
  name: `n${i}`,
  tags: ["a", "b"],
  size: i * 3,
}));
const KEYS_20: Json = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, i]));

/** The jq rows: the engine bench's scripts, then object building and updating (the paths key order touches). */
export const JQ_CASES: readonly JqCase[] = [
  { name: "toolkit default rewrite", program: TOOLKIT_REWRITE, input: TASK },
  { name: "throughput jq limits", program: THROUGHPUT_LIMITS, input: TASK },
  { name: "classifiers_has check", program: CLASSIFIERS_HAS, input: TASK },
  { name: "CIDR-list transform (5,000 entries)", program: CIDR_TRANSFORM, input: CIDRS },
  { name: "iso::duration_as_seconds comparison", program: ISO_COMPARE, input: TASK, args: { max: "PT1M" } },
  { name: "regex: capture, named groups", program: REGEX_CAPTURE, input: "25Ki" },
  { name: "regex: iso8601 duration capture", program: ISO_CAPTURE, input: "PT2S" },
  {
    name: "toolkit default rewrite, iso8601 as jq text",
    program: libraryAsText(TOOLKIT_REWRITE, { "pscheduler/iso8601": ISO8601_TEXT }),
    input: TASK,
  },
  { name: "regex: match, group offsets", program: REGEX_MATCH, input: "PT10M30S" },
  { name: "regex: two patterns alternating", program: REGEX_TWO, input: "P2D" },
  {
    name: ".x += {…}",
    program: '.schedule += {"slip": "PT10M", "until": "2026-07-01T00:00:00Z"}',
    input: TASK,
  },
  {
    name: "object construction {a: .x, …}",
    program: "{type: .test.type, dest: .test.spec.dest, tools: .tools, n: (.tools | length)}",
    input: TASK,
  },
  { name: "build 200 objects", program: "[.[] | {id, name, big: (.size > 300)}]", input: OBJECTS_200 },
  { name: "with_entries over 20 keys", program: "with_entries(.value += 1)", input: KEYS_20 },
  {
    name: "reduce setting 200 keys",
    program: 'reduce range(200) as $i ({}; .["k\\($i)"] = $i)',
    input: null,
  },
  { name: "tojson of 200 objects", program: "tojson", input: OBJECTS_200 },
  { name: ".[] |= update of 200 objects", program: ".[] |= (.size += 1)", input: OBJECTS_200 },
];
