import { didYouMean } from "../engines/common/did-you-mean.js";
import { readFileSync } from "node:fs";
import { UsageError } from "./args.js";
import { compileCommand } from "./compile-command.js";
import { evalCommand } from "./eval-command.js";
import { processIo, type Io } from "./io.js";
import { publishCommand } from "./publish-command.js";
import { validateCommand } from "./validate-command.js";

export const USAGE = `usage: arbiter COMMAND [options]
       arbiter --version

Commands:
  validate FILE [--engine E] [--quiet]        check one policy source
  lint [ENGINE] FILE [--max-severity S] [--format F] [--ads FILE]
                                              what validation allows but cannot be meant
  diff OLD NEW [--engine E] [--requests FILE] [--format F]
                                              requests two versions of a policy decide differently
  compile [DIR] [-o FILE] [--allow-missing E]  compile a policies folder into a bundle
  publish [--local|--remote] [--allow-missing E] [DIR]
                                              compile and write the bundle to KV through wrangler
  publish [--local|--remote] --reset          drop the published bundle (the embedded one serves)
  eval ENGINE [--policy FILE]                 decide JSON lines from stdin (limits, placement,
                                              match, customs, jobfilter, jq, classad)
  analyze [--policy FILE] [--format text|json]
                                              why a job matches what it does: /v1/match
                                              requests from stdin, as condor_q -better-analyze
  test [PATH...] [--run RE] [--format F]      run policy tests (*.test.yaml; default: policies)
  replay --policy DIR LOG.jsonl               re-decide captured requests under a candidate
                                              folder; the shadow report's counts and examples
  replay --policy DIR --against DIR FILE      compare two policy folders over a request file
  schemas -o DIR [NAME...]                    write the JSON Schemas of the policy formats
  jq [options] PROGRAM [FILE...]              the jq command line, on Arbiter's jq engine
  history [--limit N]                         the kept changes of the active policy (over the API)
  rollback REVISION                           make a kept revision active again (over the API)
  candidate stage ENGINE FILE|show|report|promote|drop
                                              the staged candidate policy (over the API)
  queue list|jobs QUEUE|cancel QUEUE ID        the job queues, a queue's jobs, cancel a job
                                              (over the API, as gnt-job)
  hosts list|remove NAME [--net N]            a network's host pool, remove a host (over the API)
  filter add [options]                        add a job filter rule        (as gnt-filter)
  filter replace [options] UUID               replace or create a rule
  filter delete UUID                          delete a rule
  filter list [options] [UUID...]             list rules
  filter list-fields [options] [FIELD...]     list the fields \`filter list\` can show
  filter info [UUID...]                       show rules in full

Run \`arbiter COMMAND --help\` for a command's options.
`;

const JQ_USAGE = `usage: arbiter jq [OPTIONS] FILTER [FILES...]
       arbiter jq [OPTIONS] --args FILTER [STRINGS...]
       arbiter jq [OPTIONS] --jsonargs FILTER [JSON_TEXTS...]

Runs FILTER on each JSON value of the FILES (\`-\` or none: stdin) with Arbiter's jq 1.7.1
engine, as the jq 1.7.1 command does (no FILTER: \`.\`). Options:
  -n, --null-input          use null as the single input value
  -R, --raw-input           read each line as a string
  -s, --slurp               read all inputs into one array (with -R: one string)
  -c, --compact-output      compact output
  -r, --raw-output          print strings without quotes
      --raw-output0         as -r, with NUL after each output instead of a newline
  -j, --join-output         as -r, without a newline after each output
  -a, --ascii-output        escape every non-ASCII character
  -S, --sort-keys           print object keys sorted
  -C, --color-output        colour the output (default when stdout is a terminal)
  -M, --monochrome-output   no colour
      --tab                 indent with tabs
      --indent N            indent by N spaces (0-7; 0 is compact)
      --stream              read input as [path, leaf] events
      --seq                 print RS (0x1e) before each output
  -f, --from-file FILE      read FILTER from FILE
  -L DIR                    search DIR for modules (import/include)
      --arg NAME V          $NAME = "V"
      --argjson NAME JSON   $NAME = JSON
      --slurpfile NAME FILE $NAME = array of the JSON values in FILE
      --rawfile NAME FILE   $NAME = FILE's text
      --args                the remaining arguments are $ARGS.positional strings
      --jsonargs            the remaining arguments are $ARGS.positional JSON values
  -e, --exit-status         exit status from the last output (1 false/null, 4 none)
  -V, --version             print jq's version
See docs/cli.md. Exit codes: 2 usage or unreadable input file, 3 compile error,
5 runtime error or invalid input.
`;

type Command = (argv: string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  validate: validateCommand,
  compile: compileCommand,
  eval: evalCommand,
  lint: async (argv, io) => (await import("./lint-command.js")).lintCommand(argv, io),
  diff: async (argv, io) => (await import("./diff-command.js")).diffCommand(argv, io),
  analyze: async (argv, io) => (await import("./analyze-command.js")).analyzeCommand(argv, io),
  test: async (argv, io) => (await import("./test-command.js")).testCommand(argv, io),
  schemas: async (argv, io) => (await import("./schemas-command.js")).schemasCommand(argv, io),
  publish: publishCommand,
  replay: async (argv, io) => (await import("./replay-command.js")).replayCommand(argv, io),
  jq: async (argv, io) => {
    if (argv[0] === "--help" || argv[0] === "-h") return (io.stdout(JQ_USAGE), 0);
    const { runJqCommand, wantsStdin } = await import("./jq-command.js");
    const stdin = !io.stdinIsTty && wantsStdin(argv) ? await io.readStdin() : "";
    return runJqCommand(argv, {
      stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      stdinIsTty: io.stdinIsTty,
      stdoutIsTty: io.isTty,
      env: io.env,
    });
  },
  history: async (argv, io) => (await import("./policy-commands.js")).historyCommand(argv, io),
  queue: async (argv, io) => (await import("./queue-commands.js")).queueCommand(argv, io),
  hosts: async (argv, io) => (await import("./hosts-commands.js")).hostsCommand(argv, io),
  rollback: async (argv, io) => (await import("./policy-commands.js")).rollbackCommand(argv, io),
  candidate: async (argv, io) => (await import("./policy-commands.js")).candidateCommand(argv, io),
  filter: async (argv, io) => {
    const { runFilterCommand } = await import("./filter-command.js");
    return runFilterCommand(argv, { stdout: io.stdout, stderr: io.stderr, env: io.env });
  },
};

/** The version in package.json, which `arbiter --version` prints. */
export function version(): string {
  return (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}

/** Runs one `arbiter` invocation and returns its exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V") {
    io.stdout(`arbiter ${version()}\n`);
    return 0;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`arbiter: unknown command \`${name}\`${didYouMean(name, Object.keys(COMMANDS))}\n\n${USAGE}`);
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
