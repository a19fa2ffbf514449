/**
 * libclassad, HTCondor's ClassAd library, run beside our engine in the same
 * bench run through our C++ harness (bench/native/classad-harness.cpp).
 *
 * The harness is `LIBCLASSAD_HARNESS` when set (a built binary); otherwise
 * bench/native/build.sh builds it into `.bench/libclassad/<ref>/` from
 * `HTCONDOR_SRC` (a tree holding src/classad) or from the bare git mirror of
 * htcondor/htcondor (`HTCONDOR_MIRROR`, default
 * /work/.mirror/htcondor+htcondor/repo) at `CLASSAD_REF` (default v23.9.6,
 * the release issue 31's baseline was measured with). `LIBCLASSAD=off` skips
 * it. The benches print the version they compared against. When no harness can be had, `libclassad()` says
 * why and the benches print our figures alone.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A harness that runs, or why there is none. */
export type Libclassad = { ok: true; path: string; version: string } | { ok: false; reason: string };

const HERE = dirname(fileURLToPath(import.meta.url));
let found: Libclassad | undefined;

/** Finds or builds the libclassad harness once per process. */
export function libclassad(): Libclassad {
  found ??= locate();
  return found;
}

function locate(): Libclassad {
  if (process.env.LIBCLASSAD === "off") return { ok: false, reason: "LIBCLASSAD=off" };
  const given = process.env.LIBCLASSAD_HARNESS;
  if (given) {
    if (!existsSync(given)) return { ok: false, reason: `LIBCLASSAD_HARNESS=${given} does not exist` };
    return { ok: true, path: given, version: versionOf(given) };
  }
  const ref = process.env.CLASSAD_REF ?? "v23.9.6";
  if (!existsSync(join(HERE, "../../.bench/libclassad", ref, "classad-harness")))
    console.error(
      `libclassad: building ${ref} and our harness into .bench/ unless built (first use: a few minutes)`,
    );
  const r = spawnSync("bash", [join(HERE, "build.sh")], { encoding: "utf8" });
  if (r.status !== 0) {
    const why = (r.stderr ?? "").trim().split("\n").slice(-3).join(" / ") || `build.sh exited ${r.status}`;
    return { ok: false, reason: `libclassad could not be built here (${why})` };
  }
  const path = r.stdout.trim().split("\n").pop() as string;
  const stamp = join(dirname(path), "VERSION");
  const version = existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : versionOf(path);
  return { ok: true, path, version };
}

function versionOf(path: string): string {
  const r = spawnSync(path, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "unknown version";
}

/** The note a bench prints when libclassad does not run here. */
export function noLibclassadNote(h: Libclassad): string {
  return h.ok ? "" : `libclassad: not run, so no ratio is printed (${h.reason})`;
}

function run(path: string, args: string[]): Map<string, number> {
  const r = spawnSync(path, args, { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0)
    throw new Error(`libclassad harness exited ${r.status}: ${(r.stderr ?? "").trim().slice(-400)}`);
  const out = new Map<string, number>();
  for (const line of r.stdout.split("\n")) {
    const m = /^\s*(\S+)\s+([0-9.]+)\s*$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Ad texts written to a scratch directory for the harness; `dispose` removes them. */
export interface AdFiles {
  job: string;
  slot: string;
  machines: string;
  dispose(): void;
}

/** Writes the job ad, one slot ad and the machine ads (old long form, separated by blank lines). */
export function writeAdFiles(job: string, slot: string, machines: readonly string[] = []): AdFiles {
  const dir = mkdtempSync(join(tmpdir(), "libclassad-"));
  const files = { job: join(dir, "job.ad"), slot: join(dir, "slot.ad"), machines: join(dir, "machines.ads") };
  writeFileSync(files.job, `${job}\n`);
  writeFileSync(files.slot, `${slot}\n`);
  writeFileSync(files.machines, machines.join("\n\n") + "\n");
  return { ...files, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** libclassad's CPU µs per operation: parse, parse-cached, requirements, symmetric, rank. */
export function libclassadOps(path: string, files: AdFiles): Map<string, number> {
  return run(path, ["--ops", files.job, files.slot]);
}

/** libclassad's CPU µs for one job against the first N machines, the negotiator's loop, per size. */
export function libclassadMatch(path: string, files: AdFiles, sizes: readonly number[]): number[] {
  const out = run(path, [files.job, files.machines, ...sizes.map(String)]);
  return sizes.map((n) => {
    const v = out.get(String(n));
    if (v === undefined) throw new Error(`libclassad harness printed no figure for N = ${n}`);
    return v;
  });
}
