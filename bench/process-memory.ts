/**
 * Where a workerd process's resident memory lies, for `npm run bench:memory`:
 * its mappings from /proc/<pid>/smaps grouped into V8's reservations and the
 * rest, and (with MEMORY_MALLOC=1, gdb and ptrace rights) what its allocator,
 * tcmalloc, says it has handed out and what it only holds on to.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Resident bytes of one process by kind of mapping. */
export interface ResidentSplit {
  /** All resident bytes (the sum of every mapping's Rss). */
  rss: number;
  /**
   * Anonymous memory inside reservations of 4 GiB or more (consecutive
   * anonymous mappings taken together): V8's pointer-compression cage, where
   * every isolate's JavaScript heap lives, and its other large reservations.
   */
  v8: number;
  /** Other anonymous memory: tcmalloc's regions (workerd's C++ objects, buffers), stacks. */
  otherAnon: number;
  /** Named mappings: the workerd binary, shared libraries (and a few kB of [stack], [vdso]). */
  files: number;
}

const RESERVATION = 4 * 1024 * 1024 * 1024;

/** Groups a process's mappings (Linux /proc only; undefined elsewhere). */
export function residentSplit(pid: number): ResidentSplit | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  } catch {
    return undefined;
  }
  const split: ResidentSplit = { rss: 0, v8: 0, otherAnon: 0, files: 0 };
  // consecutive anonymous mappings, merged: [start, end, resident bytes]
  const spans: Array<[bigint, bigint, number]> = [];
  let current: { start: bigint; end: bigint; anonymous: boolean } | undefined;
  for (const line of text.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head !== null) {
      const name = head[3];
      current = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), anonymous: name === "" };
      if (current.anonymous) {
        const last = spans.at(-1);
        if (last !== undefined && last[1] === current.start) last[1] = current.end;
        else spans.push([current.start, current.end, 0]);
      }
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss === null || current === undefined) continue;
    const bytes = Number(rss[1]) * 1024;
    split.rss += bytes;
    if (current.anonymous) (spans.at(-1) as [bigint, bigint, number])[2] += bytes;
    else split.files += bytes;
  }
  for (const [start, end, bytes] of spans) {
    if (end - start >= BigInt(RESERVATION)) split.v8 += bytes;
    else split.otherAnon += bytes;
  }
  return split;
}

/** What tcmalloc reports of its own memory, in bytes. */
export interface MallocFigures {
  /** Handed out to workerd and not yet freed ("generic.current_allocated_bytes"). */
  inUse: number;
  /** Resident memory tcmalloc has from the system, in use or kept free for reuse ("generic.physical_memory_used"). */
  resident: number;
  /** Its estimate of the most it ever had in use at once ("generic.peak_memory_usage", from its samples). */
  peakInUse: number;
}

const PROPERTIES = {
  inUse: "generic.current_allocated_bytes",
  resident: "generic.physical_memory_used",
  peakInUse: "generic.peak_memory_usage",
} as const;

/**
 * Asks the workerd process's tcmalloc for its figures through gdb (the
 * process stops for a few seconds while gdb reads its symbols). Undefined
 * when gdb is missing, may not attach, or the binary has no such functions.
 */
export function mallocFigures(pid: number): MallocFigures | undefined {
  const args = ["-p", String(pid), "-batch", "-nx", "-ex", "set $arbiter_v = (unsigned long *) malloc(8)"];
  for (const [key, name] of Object.entries(PROPERTIES))
    args.push(
      "-ex",
      `call (char) MallocExtension_Internal_GetNumericProperty("${name}", ${name.length}, $arbiter_v)`,
      "-ex",
      `printf "arbiter ${key} %lu\\n", *$arbiter_v`,
    );
  args.push("-ex", "call (void) free($arbiter_v)");
  const run = spawnSync("gdb", args, { encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0 || typeof run.stdout !== "string") return undefined;
  const out: Partial<MallocFigures> = {};
  for (const m of run.stdout.matchAll(/^arbiter (\w+) (\d+)$/gm))
    out[m[1] as keyof MallocFigures] = Number(m[2]);
  return out.inUse !== undefined && out.resident !== undefined && out.peakInUse !== undefined
    ? (out as MallocFigures)
    : undefined;
}

/**
 * Asks the workerd process's tcmalloc to hand its free pages back to the
 * system (`ReleaseMemoryToSystem`), through gdb: the RSS left after it is
 * what is in use or cached per CPU, the rest was the allocator's high-water
 * mark. False when gdb could not.
 */
export function releaseFreeMemory(pid: number): boolean {
  const run = spawnSync(
    "gdb",
    [
      "-p",
      String(pid),
      "-batch",
      "-nx",
      "-ex",
      "call (void) MallocExtension_Internal_ReleaseMemoryToSystem(~0UL)",
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  return run.status === 0;
}
