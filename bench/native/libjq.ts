/**
 * libjq 1.7.1 as a baseline for bench/jq.ts: jq's own C library, built from jq's source by
 * bench/native/build-libjq.sh into `.bench/libjq/`, timed alone by our C program
 * `jq-time` (bench/native/jq-time.c), one process per sample: CPU µs per run of a program
 * on an input (every output drained), or per compile.
 *
 * `LIBJQ=off` skips it. When it cannot be had, `libjq()` says why and the bench prints our
 * figures alone.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** One sample: CPU µs per run (or compile) and the program's first output. */
export interface LibjqSample {
  us: number;
  first: unknown;
}

/** libjq ready to time programs, or why it is not. */
export type Libjq = { ok: true; version: string; time: LibjqTimer } | { ok: false; reason: string };

/** Times `program` on `input` for about `ms` of CPU time in a fresh `jq-time` process. */
export type LibjqTimer = (
  mode: "run" | "compile",
  program: string,
  input: unknown,
  ms: number,
) => LibjqSample;

let cached: Libjq | undefined;

/** Builds libjq and jq-time when missing (a minute the first time) and returns a timer, or why not. */
export function libjq(): Libjq {
  if (cached !== undefined) return cached;
  if (process.env.LIBJQ === "off") return (cached = { ok: false, reason: "LIBJQ=off" });
  if (!existsSync(join(HERE, "../../.bench/libjq/jq-time")))
    console.error("libjq: building libjq 1.7.1 into .bench/ (first use: a minute or more)");
  const r = spawnSync("bash", [join(HERE, "build-libjq.sh")], { encoding: "utf8" });
  if (r.status !== 0) {
    const why =
      (r.stderr ?? "").trim().split("\n").slice(-2).join(" / ") || `build-libjq.sh exited ${r.status}`;
    return (cached = { ok: false, reason: `libjq 1.7.1 cannot be built here (${why})` });
  }
  const lib = r.stdout.trim().split("\n").pop() as string;
  const bin = join(dirname(lib), "jq-time");
  const dir = mkdtempSync(join(tmpdir(), "arbiter-libjq-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const programFile = join(dir, "program.jq");
  const inputFile = join(dir, "input.json");
  let lastProgram: string | undefined;
  let lastInput: string | undefined;
  const time: LibjqTimer = (mode, program, input, ms) => {
    if (program !== lastProgram) writeFileSync(programFile, (lastProgram = program));
    const text = JSON.stringify(input);
    if (text !== lastInput) writeFileSync(inputFile, (lastInput = text));
    const run = spawnSync(bin, [mode, programFile, inputFile, String(ms)], { encoding: "utf8" });
    if (run.status !== 0)
      throw new Error(`libjq's jq-time failed: ${(run.stderr ?? "").trim() || `exit ${run.status}`}`);
    return JSON.parse(run.stdout) as LibjqSample;
  };
  const versionFile = join(dirname(lib), "VERSION");
  const built = existsSync(versionFile) ? readFileSync(versionFile, "utf8").trim() : "jq-1.7.1";
  return (cached = { ok: true, version: `libjq (${built}; -O2), timed in C by jq-time`, time });
}
