/**
 * ClassAd benchmark: a 31-attribute job ad and a 55-attribute slot ad with
 * the Requirements condor_submit generates. Measures evaluating the job's
 * Requirements, a symmetric match, ranking, and a 2,000-machine /v1/match
 * decision, each against parsing the two ads in the same run.
 * Run directly with `npx tsx bench/classad.ts`.
 */
import { clearExprCache, readAd } from "../src/engines/classad/ad-input.js";
import type { ClassAd } from "../src/engines/classad/classad.js";
import { evalAttr } from "../src/engines/classad/evaluate.js";
import { decideMatch, decideParsedMatch, symmetricMatch } from "../src/engines/classad/match.js";
import { compileMatchPolicy, loadMatchPolicy } from "../src/engines/classad/policy.js";
import { EvalState } from "../src/engines/classad/state.js";
import { measure, printTable, type BenchRow } from "./support.js";

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

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const POOL = 2000;

/** Runs the ClassAd benchmarks and returns their rows (ratios against parsing the two ads cold). */
export async function runClassadBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slotText = slotAd(1);
  const baselineName = "parse job + slot ads (cold)";
  const parseCold = measure(() => {
    clearExprCache();
    return [ad(JOB_AD), ad(slotText)];
  });
  rows.push({ name: baselineName, microsPerOp: parseCold, baselineName, ratio: 1 });
  const parseWarm = measure(() => [ad(JOB_AD), ad(slotText)]);
  rows.push({ name: "parse job + slot ads (expression cache warm)", microsPerOp: parseWarm, baselineName, ratio: parseWarm / parseCold });

  const job = ad(JOB_AD);
  const slot = ad(slotText);
  const st = new EvalState({ now: 1_700_000_000_000, random: Math.random });
  if (evalAttr(job, "requirements", slot, st) !== true || !symmetricMatch(job, slot, st)) throw new Error("fixture ads do not match");

  const reqUs = measure(() => evalAttr(job, "requirements", slot, st));
  rows.push({ name: "evaluate job Requirements vs slot", microsPerOp: reqUs, baselineName, ratio: reqUs / parseCold });
  const symUs = measure(() => symmetricMatch(job, slot, st));
  rows.push({ name: "symmetric match (both Requirements)", microsPerOp: symUs, baselineName, ratio: symUs / parseCold });
  const rankUs = measure(() => evalAttr(job, "rank", slot, st));
  rows.push({ name: "evaluate job Rank vs slot", microsPerOp: rankUs, baselineName, ratio: rankUs / parseCold });

  const compiled = compileMatchPolicy(
    "NEGOTIATOR_PE_STARTD_ONLY_EXPR = Draining =?= true || Memory < 512\nNEGOTIATOR_PE_JOB_ONLY_EXPR = NumJobStarts > 10\nNEGOTIATOR_PE_RESOURCE_EXPR = TARGET.Owner =!= \"mallory\"\nNEGOTIATOR_PE_JOB_EXPR = TARGET.Draining =!= true",
  );
  if (!compiled.ok) throw new Error("bench policy");
  const policy = loadMatchPolicy(compiled.value);
  const texts = Array.from({ length: POOL }, (_, i) => slotAd(i));
  const slots = texts.map(ad);
  const ctx = { now: 1_700_000_000_000, random: Math.random };
  const parsedUs = measure(() => decideParsedMatch(policy, { job, schedd: null, machines: slots }, ctx), 1500);
  rows.push({ name: `match decision over ${POOL} parsed slots (policy on)`, microsPerOp: parsedUs, baselineName, ratio: parsedUs / parseCold });
  rows.push({ name: "  … per slot", microsPerOp: parsedUs / POOL, baselineName, ratio: parsedUs / POOL / parseCold });
  const fullUs = measure(() => decideMatch(policy, { job: JOB_AD, machines: texts }, ctx), 2000);
  rows.push({ name: `/v1/match decision from ${POOL} slot ad texts`, microsPerOp: fullUs, baselineName, ratio: fullUs / parseCold });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runClassadBench();
  printTable("classad: µs per operation, ratio to parsing the job and slot ads (same run)", rows);
  const sym = rows.find((r) => r.name.startsWith("symmetric"));
  if (sym) console.log(`symmetric matches per second: ${Math.round(1e6 / sym.microsPerOp).toLocaleString("en")} (goal: under 5 µs each)`);
}
