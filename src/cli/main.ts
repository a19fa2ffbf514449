import { UsageError } from "./args.js";
import { compileCommand } from "./compile-command.js";
import { evalCommand } from "./eval-command.js";
import { processIo, type Io } from "./io.js";
import { publishCommand } from "./publish-command.js";
import { validateCommand } from "./validate-command.js";

export const USAGE = `usage: arbiter COMMAND [options]

Commands:
  validate FILE [--engine E]     check a policy source
  compile [DIR] [-o FILE]        compile a policies folder into a bundle
  eval ENGINE [--policy FILE]    decide JSON lines from stdin (limits, placement, match,
                                 customs, jobfilter, jq, classad)
  publish [--local|--remote]     compile and write the bundle to KV through wrangler
  jq [options] PROGRAM [FILE…]   the jq command line, on Arbiter's jq engine
  filter add|replace|delete|list|info   manage job-queue filters of a running service

Run \`arbiter COMMAND --help\` for a command's options.
`;

const JQ_USAGE = `usage: arbiter jq [OPTIONS] FILTER [FILES...]

Runs FILTER on each JSON value of the FILES (or stdin) with Arbiter's jq 1.7.1
engine, as the jq command does for these options:
  -c            compact output        -r   raw strings        -j   raw, no newlines
  -n            null input            -s   slurp into an array
  -e            exit status from the last output (1 if false/null, 4 if none)
  --arg NAME V  $NAME = "V"           --argjson NAME JSON   $NAME = JSON
  --tab         indent with tabs      --indent N            indent by N spaces
Exit codes: 2 usage, 3 compile error, 5 runtime error.
`;

type Command = (argv: string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  validate: validateCommand,
  compile: compileCommand,
  eval: evalCommand,
  publish: publishCommand,
  jq: async (argv, io) => {
    if (argv.includes("--help") || argv.includes("-h")) return io.stdout(JQ_USAGE), 0;
    const { runJqCommand } = await import("./jq-command.js");
    return runJqCommand(argv, { stdin: argv.includes("--help") || io.stdinIsTty ? "" : await io.readStdin(), stdout: io.stdout, stderr: io.stderr });
  },
  filter: async (argv, io) => {
    const { FILTER_USAGE, runFilterCommand } = await import("./filter-command.js");
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") return io.stdout(FILTER_USAGE), argv.length === 0 ? 2 : 0;
    return runFilterCommand(argv, { stdout: io.stdout, stderr: io.stderr, env: io.env });
  },
};

/** Runs one `arbiter` invocation and returns its exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`arbiter: unknown command \`${name}\`\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${e.message.endsWith("\n") ? e.message : e.message + "\n"}`);
      return 2;
    }
    throw e;
  }
}
