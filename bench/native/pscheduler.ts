/**
 * pScheduler's own LimitProcessor (its Python package, run by Debian's python3)
 * beside our limits engine in the same bench run. Its `pyjq` calls are answered
 * by our ctypes shim (bench/native/pyjq/) over libjq 1.7.1 built from jq's
 * source (bench/native/build-libjq.sh); bench/native/build-pscheduler.sh
 * prepares it all in `.bench/`. The processor runs in one long-lived child
 * process (bench/native/pscheduler-limits.py) that the bench asks for CPU-time
 * samples between its own, one JSON line each way.
 *
 * `PSCHEDULER=off` skips it. When it cannot be had, `pscheduler()` says why and
 * the bench prints our figures alone.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** A running LimitProcessor, or why there is none. */
export type Pscheduler =
  { ok: true; version: string; processor: PschedulerProcess } | { ok: false; reason: string };

/** One pScheduler LimitProcessor in a child process, answering one command at a time. */
export class PschedulerProcess {
  private readonly waiting: ((line: string) => void)[] = [];
  private stderr = "";

  /** Wraps a started child; `ready` resolves when the processor has loaded its limits file. */
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    createInterface({ input: child.stdout }).on("line", (line) => this.waiting.shift()?.(line));
    child.on("exit", (code) => {
      for (const w of this.waiting.splice(0))
        w(JSON.stringify({ error: `exited ${code}: ${this.stderr.trim()}` }));
    });
  }

  /** The next line the child prints, parsed. */
  private next(): Promise<Record<string, unknown>> {
    return new Promise((resolve) =>
      this.waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>)),
    );
  }

  /** Waits for the processor to have loaded; throws with its stderr when it could not. */
  async ready(): Promise<void> {
    const r = await this.next();
    if (r.ready !== true)
      throw new Error(`pScheduler's LimitProcessor did not start: ${String(r.error ?? "")}`);
  }

  /** Sends one command and returns its answer; throws when the child reports an error. */
  async ask(cmd: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = this.next();
    this.child.stdin.write(`${JSON.stringify(cmd)}\n`);
    const r = await answer;
    if (r.error !== undefined) throw new Error(`pScheduler's LimitProcessor: ${String(r.error)}`);
    return r;
  }

  /** Ends the child process. */
  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

/** What build-libjq.sh wrote of the library's source beside it, or "1.7.1" from an older build. */
function libjqBuild(lib: string): string {
  const file = join(dirname(lib), "VERSION");
  return existsSync(file) ? readFileSync(file, "utf8").trim() : "1.7.1";
}

/**
 * Prepares and starts pScheduler's LimitProcessor on `limitsFile` (a path), or says why it
 * cannot run here.
 */
export async function pscheduler(limitsFile: string): Promise<Pscheduler> {
  if (process.env.PSCHEDULER === "off") return { ok: false, reason: "PSCHEDULER=off" };
  if (!existsSync(join(HERE, "../../.bench/libjq/libjq.so")))
    console.error("pscheduler: building libjq 1.7.1 into .bench/ (first use: a few minutes)");
  const r = spawnSync("bash", [join(HERE, "build-pscheduler.sh")], { encoding: "utf8" });
  if (r.status !== 0) {
    const why =
      (r.stderr ?? "").trim().split("\n").slice(-2).join(" / ") || `build-pscheduler.sh exited ${r.status}`;
    return { ok: false, reason: `pScheduler's LimitProcessor cannot run here (${why})` };
  }
  const [libjq, pythonRoot, jqLibrary, ...version] = (r.stdout.trim().split("\n").pop() as string).split(" ");
  const python = process.env.PSCHEDULER_PYTHON ?? "/usr/bin/python3";
  const loop = join(dirname(libjq), "jq-loop.so");
  const child = spawn(
    python,
    [join(HERE, "pscheduler-limits.py"), limitsFile, jqLibrary, ...(existsSync(loop) ? [loop] : [])],
    {
      env: { ...process.env, PYJQ_LIBJQ: libjq, PYTHONPATH: `${join(HERE, "pyjq")}:${pythonRoot}` },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const processor = new PschedulerProcess(child);
  try {
    await processor.ready();
  } catch (e) {
    processor.close();
    return { ok: false, reason: (e as Error).message };
  }
  return {
    ok: true,
    version: `pScheduler ${version.join(" ")}, libjq (${libjqBuild(libjq)}) through our ctypes pyjq shim`,
    processor,
  };
}
