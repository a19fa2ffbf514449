/**
 * `npm run bench:playground`: how long the playground page takes to become usable, on
 * the server `npm start` runs (`wrangler dev`, started here on a free loopback port as
 * the browser tests start it), in headless Chromium. Each round opens the page in a new
 * browser context (an empty cache: a first visit), then loads it again in that context
 * (a reload, with what the first load cached). Read from the page's own marks:
 * - `usable`: the `usable` mark (the first engine's active policy in the editors, in
 *   plain text boxes, the controls wired: Decide works);
 * - `editor`: the CodeMirror module evaluated;
 * - `ready`: the `ready` mark, CodeMirror in place of the text boxes (before the plain
 *   text boxes came first, usable was ready);
 * - `first verdict`: ready, then one Decide, until its verdict is on the page;
 * - `reload`: usable again on a second load in the same context (what it cached).
 * Also printed: the files and bytes (gzipped) a fresh load transfers. The goal
 * (issue 28) is usable under 1 s on a fresh load; it is a figure here, never a test
 * assertion.
 *
 * BENCH_ROUNDS (default 7) rounds after one warm-up round (the Worker's first requests).
 * BENCH_BASELINE=DIR also serves another checkout of Arbiter (built, with its
 * node_modules) and alternates the rounds between the two, so both see the same load of
 * the machine. BENCH_CPU_THROTTLE=N runs Chromium's CPU N times slower (its emulation), as
 * a loaded CI machine or a small laptop would. CHROMIUM_PATH as for the browser tests.
 */
import { gzipSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { startDevServer, type DevServer } from "../test/support/dev-server.js";
import { CHROMIUM, LAUNCH_ARGS } from "../test/support/chromium.js";
import { median } from "./scale/series.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const THROTTLE = Number(process.env.BENCH_CPU_THROTTLE ?? 1);
const BASELINE = process.env.BENCH_BASELINE;

/** One round's figures, in milliseconds after navigation (`kb`: gzipped kilobytes). */
interface Load {
  editor: number;
  usable: number;
  ready: number;
  verdict: number;
  reload: number;
  files: number;
  kb: number;
}

/** Opens the page in `context` and waits until it is usable; its marks, and the files and bytes it transferred. */
async function open(context: BrowserContext, url: string, decide: boolean) {
  const page = await context.newPage();
  if (THROTTLE > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
  }
  const sizes: Array<Promise<number>> = [];
  page.on("response", (r) => {
    if (r.request().resourceType() !== "fetch" && r.status() !== 304)
      sizes.push(
        r.body().then(
          (b) => gzipSync(b).length,
          () => 0,
        ),
      );
  });
  await page.goto(`${url}/`, { waitUntil: "commit" });
  await page.waitForSelector("body[data-ready=true]:not([data-loading])", { timeout: 120_000 });
  if (decide) {
    await page.click("#decide");
    await page.waitForSelector("body[data-decided]", { timeout: 120_000 });
  }
  const marks = (await page.evaluate(`(() => {
    const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? -1;
    const ready = at("ready");
    return { editor: at("editor"), usable: at("usable") < 0 ? ready : at("usable"), ready, verdict: performance.now() };
  })()`)) as { editor: number; usable: number; ready: number; verdict: number };
  const bytes = await Promise.all(sizes);
  await page.close();
  return { ...marks, files: bytes.length, kb: bytes.reduce((a, b) => a + b, 0) / 1024 };
}

/** A fresh load (then one Decide) in a new context, and a reload in that context. */
async function round(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const fresh = await open(context, url, true);
    const again = await open(context, url, false);
    return { ...fresh, reload: again.usable };
  } finally {
    await context.close();
  }
}

/** Prints one server's rounds. */
function report(name: string, loads: Load[]): void {
  const col = (k: keyof Load) => loads.map((l) => Math.round(l[k]));
  const med = (k: keyof Load) => String(Math.round(median(loads.map((l) => l[k])))).padStart(5);
  console.log(
    `${name}: ${loads.length} rounds${THROTTLE > 1 ? `, CPU throttled ${THROTTLE}×` : ""}; median ms after navigation [each round]`,
  );
  console.log(`  usable          ${med("usable")}   [${col("usable").join(", ")}]   goal < 1000`);
  console.log(`  editor module   ${med("editor")}   [${col("editor").join(", ")}]`);
  console.log(`  ready           ${med("ready")}   [${col("ready").join(", ")}]`);
  console.log(`  first verdict   ${med("verdict")}   [${col("verdict").join(", ")}]`);
  console.log(`  usable, reload  ${med("reload")}   [${col("reload").join(", ")}]`);
  console.log(`  transfer        ${loads[0].files} files, ${loads[0].kb.toFixed(1)} KB gzipped (fresh load)`);
}

const servers: Array<{ name: string; server: DevServer; loads: Load[] }> = [];
let browser: Browser | undefined;
try {
  servers.push({ name: "this checkout", server: await startDevServer(120_000), loads: [] });
  if (BASELINE)
    servers.push({
      name: `baseline ${BASELINE}`,
      server: await startDevServer({ timeoutMs: 120_000, root: BASELINE }),
      loads: [],
    });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: LAUNCH_ARGS,
    timeout: 60_000,
  });
  for (const s of servers) await round(browser, s.server.url);
  for (let i = 0; i < ROUNDS; i++)
    for (const s of i % 2 === 0 ? servers : [...servers].reverse())
      s.loads.push(
        await round(browser, s.server.url).catch((e: unknown) => {
          throw new Error(`${s.name}, round ${i + 1}: ${e instanceof Error ? e.message : String(e)}`);
        }),
      );
  console.log(`playground: fresh loads of / on wrangler dev, headless Chromium`);
  for (const s of servers) report(s.name, s.loads);
} finally {
  await browser?.close();
  for (const s of servers) await s.server.stop();
}
