/** Where a command reads and writes, so tests can run commands in-process. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  isTty: boolean;
  stdinIsTty: boolean;
  /** Whether stderr is a terminal (progress lines go there); false when not said. */
  stderrIsTty?: boolean;
  env: Record<string, string | undefined>;
  /** Milliseconds from some start, for progress timing; performance.now when not said. */
  clock?: () => number;
}

/** The process's own streams. */
export function processIo(): Io {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    isTty: Boolean(process.stdout.isTTY),
    stdinIsTty: Boolean(process.stdin.isTTY),
    stderrIsTty: Boolean(process.stderr.isTTY),
    env: process.env,
  };
}
