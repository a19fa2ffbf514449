/**
 * A heap profile of a workerd process from its own allocator, for
 * `npm run bench:memory` (MEMORY_PROFILE): workerd links Google's tcmalloc,
 * which samples allocations (one every `interval` bytes allocated, with the
 * allocating stack) and can report the sampled allocations still live. gdb
 * lowers the interval and takes that report; each sample stands for `sum`
 * bytes of live memory. The report is walked by a 17-byte callback written
 * into the process (tcmalloc hands each sample to a function), copied out,
 * and its return addresses are named from the workerd binary's symbol table.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One stack of live sampled allocations: the bytes they stand for and the frames, innermost first. */
export interface ProfileStack {
  bytes: number;
  count: number;
  frames: string[];
}

/** Bytes copied per sample: more than tcmalloc's Profile::Sample up to its last stack slot. */
const RECORD = 0x300;

/** x86-64: copy RECORD bytes from the sample (rsi) to the cursor *rdi, advance the cursor, return. */
const CALLBACK = [
  0x49,
  0x89,
  0xf8,
  0x49,
  0x8b,
  0x38,
  0xb9,
  RECORD & 0xff,
  RECORD >> 8,
  0x00,
  0x00,
  0xf3,
  0xa4,
  0x49,
  0x89,
  0x38,
  0xc3,
];

function gdb(pid: number, commands: string[]): string | undefined {
  const args = ["-p", String(pid), "-batch", "-nx"];
  for (const c of commands) args.push("-ex", c);
  const run = spawnSync("gdb", args, { encoding: "utf8", timeout: 180_000 });
  return run.status === 0 && typeof run.stdout === "string" ? run.stdout : undefined;
}

/** Sets tcmalloc's heap sampling interval in bytes (its default is 2 MiB); false when gdb could not. */
export function setSamplingInterval(pid: number, bytes: number): boolean {
  const out = gdb(pid, [
    `call (void) MallocExtension_Internal_SetProfileSamplingInterval(${bytes})`,
    `printf "arbiter interval %ld\\n", (long) MallocExtension_Internal_GetProfileSamplingInterval()`,
  ]);
  return out !== undefined && new RegExp(`^arbiter interval ${bytes}$`, "m").test(out);
}

/** The executable's symbols (functions), sorted by address, with the process's load address. */
function symbolTable(pid: number): { base: bigint; starts: bigint[]; names: string[] } {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  let base = 0n;
  for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-[0-9a-f]+ \S+ 0+ \S+ \S+\s+(.*)$/.exec(line);
    if (m !== null && m[2] === exe) {
      base = BigInt(`0x${m[1]}`);
      break;
    }
  }
  const nm = spawnSync("nm", ["-n", "-C", exe], { encoding: "utf8", maxBuffer: 1 << 30 });
  const starts: bigint[] = [];
  const names: string[] = [];
  for (const line of nm.stdout.split("\n")) {
    const m = /^([0-9a-f]+) [tTwW] (.*)$/.exec(line);
    if (m === null) continue;
    starts.push(BigInt(`0x${m[1]}`));
    names.push(m[2]);
  }
  return { base, starts, names };
}

function nameOf(table: { base: bigint; starts: bigint[]; names: string[] }, address: bigint): string {
  const at = address - table.base;
  let lo = 0;
  let hi = table.starts.length - 1;
  if (hi < 0 || at < table.starts[0]) return `0x${address.toString(16)}`;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table.starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return table.names[lo].replace(/\(.*$/, "").slice(0, 160);
}

/** The process's executable mappings (the binary's text, libc's, V8's generated code). */
function executableRanges(pid: number): Array<[bigint, bigint]> {
  const out: Array<[bigint, bigint]> = [];
  for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) ..x/.exec(line);
    if (m !== null) out.push([BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)]);
  }
  return out;
}

/** A sample's depth and stack: the first int in 1..64 followed by that many code addresses. */
function stackOf(record: Buffer, isCode: (a: bigint) => boolean): bigint[] | undefined {
  for (let off = 24; off < 96; off += 4) {
    const depth = record.readInt32LE(off);
    if (depth < 1 || depth > 64) continue;
    const start = Math.ceil((off + 4) / 8) * 8;
    if (start + 8 * depth > RECORD) continue;
    const stack = Array.from({ length: depth }, (_, i) => record.readBigUInt64LE(start + 8 * i));
    if (stack.every(isCode)) return stack;
  }
  return undefined;
}

/**
 * The process's live sampled allocations grouped by stack, largest first
 * (undefined when gdb could not take them). The process stops meanwhile.
 */
export function heapProfile(pid: number): ProfileStack[] | undefined {
  const dir = mkdtempSync(join(tmpdir(), "arbiter-profile-"));
  const file = join(dir, "samples.bin");
  try {
    const out = gdb(pid, [
      "set $code = (unsigned char *) mmap(0, 4096, 7, 0x22, -1, 0)",
      `set {unsigned char[${CALLBACK.length}]} $code = {${CALLBACK.join(",")}}`,
      "set $p = (void *) MallocExtension_Internal_SnapshotCurrent(0)",
      "set $buf = (char *) malloc(256 << 20)",
      "set $cell = (char **) malloc(8)",
      "set *$cell = $buf",
      "set $vt = *(void ***) $p",
      "call (void) ((void (*)(void *, void *, void *)) $vt[2])($p, $cell, $code)",
      `printf "arbiter samples %lu\\n", (*$cell - $buf) / ${RECORD}`,
      `dump binary memory ${file} $buf *$cell`,
      "call (void) ((void (*)(void *)) $vt[1])($p)",
      "call (void) free($buf)",
      "call (void) free($cell)",
      "call (int) munmap($code, 4096)",
    ]);
    if (out === undefined || !/^arbiter samples \d+$/m.test(out)) return undefined;
    const data = readFileSync(file);
    const table = symbolTable(pid);
    const code = executableRanges(pid);
    const isCode = (a: bigint) => code.some(([lo, hi]) => a >= lo && a < hi);
    const byStack = new Map<string, ProfileStack>();
    for (let at = 0; at + RECORD <= data.length; at += RECORD) {
      const record = data.subarray(at, at + RECORD);
      const bytes = Number(record.readBigInt64LE(0));
      const count = Number(record.readBigInt64LE(8));
      const stack = stackOf(record, isCode);
      const frames = stack === undefined ? ["(stack not found)"] : stack.map((a) => nameOf(table, a));
      const key = frames.join("\n");
      const known = byStack.get(key);
      if (known === undefined) byStack.set(key, { bytes, count, frames });
      else {
        known.bytes += bytes;
        known.count += count;
      }
    }
    return [...byStack.values()].sort((a, b) => b.bytes - a.bytes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Frames that say nothing about the owner (the allocator, operator new, kj's heap helpers). */
const PLUMBING =
  /^(tcmalloc::|operator new|malloc|calloc|realloc|posix_memalign|aligned_alloc|absl::|std::__1::__libcpp_allocate|kj::_::HeapArrayDisposer|kj::heapArray|kj::Vector<.*>::setCapacity|0x)/;

/** A stack's first frames past the allocator, for a one-line summary. */
export function ownerFrames(stack: ProfileStack, n = 6): string[] {
  const frames = stack.frames.filter((f) => !PLUMBING.test(f));
  return frames.slice(0, n);
}

/**
 * The stacks whose live bytes grew most between two profiles (after - before),
 * keyed by their owner frames, largest growth first.
 */
export function profileGrowth(
  before: readonly ProfileStack[],
  after: readonly ProfileStack[],
  depth = 12,
): Array<{ bytes: number; frames: string[] }> {
  const sums = new Map<string, number>();
  const add = (list: readonly ProfileStack[], sign: number) => {
    for (const s of list) {
      const key = ownerFrames(s, depth).join("\n");
      sums.set(key, (sums.get(key) ?? 0) + sign * s.bytes);
    }
  };
  add(before, -1);
  add(after, 1);
  return [...sums.entries()]
    .map(([key, bytes]) => ({ bytes, frames: key.split("\n") }))
    .sort((a, b) => b.bytes - a.bytes);
}
