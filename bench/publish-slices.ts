/**
 * `npx tsx bench/publish-slices.ts`: the CPU a publish of one engine spends in
 * `compileBundle` and the KV text (src/state/policy-coordinator.ts, `compileOn`
 * and `writeBundle`), on top of the embedded bundle, with every engine compiled
 * ("full", as before issue 24's publish item) and with the unchanged engines'
 * entries taken from the base ("reuse"). Per publish: the CPU of all its
 * slices and of the longest one (process.cpuUsage between the pauses, so a
 * loaded machine's waits for a CPU are not counted). Each published source is a
 * shipped policy with trailing blanks, plus the 359-byte limits policy of the
 * hostile `from_entries` row. ROUNDS (default 3) rounds; the first is the
 * process's cold one, so MODE=full or MODE=reuse runs one way only (default
 * both, full first). Needs `node scripts/build-bundle.mjs` first.
 */
import { readFileSync } from "node:fs";
import { compileBundle, jsonBytesSteps, sourcesOf, type Bundle } from "../src/bundle/index.js";
import { finishInSlices } from "../src/engines/common/slices.js";
import { HOSTILE_ROWS } from "../test/hostile/rows.js";

const base = JSON.parse(readFileSync("src/bundle/embedded.generated.json", "utf8")) as Bundle;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MODES = process.env.MODE === "full" ? [false] : process.env.MODE === "reuse" ? [true] : [false, true];
const small = HOSTILE_ROWS.find((r) => r.name.includes("from_entries"))!.policy!.source;
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One publish's slices: total CPU, their number and the longest. */
async function publishOnce(engine: string, source: string, reuse: boolean): Promise<string> {
  const slices: number[] = [];
  let last = cpuMs();
  const pause = async (): Promise<void> => {
    slices.push(cpuMs() - last);
    await new Promise((resume) => setTimeout(resume, 0));
    last = cpuMs();
  };
  const sources = { ...sourcesOf(base), [engine]: source };
  const r = await compileBundle(
    sources,
    new Date(0).toISOString(),
    pause,
    reuse ? { compiler: base.compiler, base } : {},
  );
  if (!r.ok) throw new Error(`${engine}: ${r.error[0].message}`);
  await pause();
  await finishInSlices(jsonBytesSteps(r.value), pause);
  slices.push(cpuMs() - last);
  const total = slices.reduce((a, b) => a + b, 0);
  return `${total.toFixed(1)} ms in ${slices.length} slices, longest ${Math.max(...slices).toFixed(1)}`;
}

console.log(`load ${readFileSync("/proc/loadavg", "utf8").trim()}`);
const cases: [string, string, string][] = [
  ["limits (from_entries row, 359 B)", "limits", small],
  ...Object.entries(base.engines).map(
    ([e, entry]) => [`${e} (shipped + blanks)`, e, `${entry!.source} `] as [string, string, string],
  ),
];
for (let round = 0; round < ROUNDS; round++)
  for (const [name, engine, source] of cases)
    for (const reuse of MODES)
      console.log(
        `round ${round} ${name} ${reuse ? "reuse" : "full "}: ${await publishOnce(engine, `${source}${" ".repeat(round)}`, reuse)}`,
      );
