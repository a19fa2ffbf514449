import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

/** One in-process `arbiter` run: exit code and what it wrote. */
export interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `arbiter ARGV` in-process with the given stdin, terminal-ness of stdout and environment. */
export async function run(
  argv: string[],
  stdin = "",
  isTty = false,
  env: Record<string, string> = {},
): Promise<Run> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    readStdin: async () => stdin,
    isTty,
    stdinIsTty: false,
    env,
  };
  const code = await main(argv, io);
  return { code, out, err };
}

/** A scratch folder removed after the file's tests; `file` and `folder` write into it. */
export function scratchSpace(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return {
    root,
    file(name: string, text: string): string {
      const path = join(root, name);
      writeFileSync(path, text);
      return path;
    },
    /** A fresh folder holding the given files (name -> text). */
    folder(files: Record<string, string>): string {
      const dir = mkdtempSync(join(root, "policies-"));
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      return dir;
    },
  };
}
