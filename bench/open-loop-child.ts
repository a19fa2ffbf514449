/**
 * The open-loop generator's own process (bench/open-loop.ts `openLoopInChild`):
 * runs one open loop with the target, rate, seconds and idle bound given as JSON in its
 * first argument and writes the result as JSON on its standard output.
 */
import { openLoop, type OpenLoopTarget } from "./open-loop.js";

const { target, rate, seconds, idleMs } = JSON.parse(process.argv[2]) as {
  target: OpenLoopTarget;
  rate: number;
  seconds: number;
  idleMs: number;
};
const result = await openLoop(target, rate, seconds, idleMs);
process.stdout.write(JSON.stringify({ ...result, latencies: Array.from(result.latencies) }));
