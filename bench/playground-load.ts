/**
 * `npm run bench:playground`: how long the playground page takes to become usable on a
 * fresh load of the server `npm start` runs (`wrangler dev`, started here on a free
 * loopback port as the browser tests start it), in headless Chromium. Each round opens
 * the page in a new browser context (an empty cache, as a first visit) and reads the
 * page's own marks: `ready` (the editors made, the first engine's active policy in them,
 * the controls wired: what test/browser/editor.test.ts prints) and, on the way, `editor`
 * (the CodeMirror module evaluated), and `verdict`: ready plus one Decide, the first
 * verdict on the page. Also printed: the bytes the page transferred (gzipped sizes
 * of its files) and, with BENCH_CPU_THROTTLE=N, the same on a CPU N times slower (Chromium's
 * emulation), the way a loaded CI machine or a small laptop sees it.
 * The goal (issue 28) is usable under 1 s; it is a figure here, never a test assertion.
 *
 * BENCH_ROUNDS (default 7) rounds after one warm-up round (the Worker's first requests);
 * CHROMIUM_PATH as for the browser tests.
 */
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { startDevServer } from "../test/support/dev-server.js";
import { CHROMIUM, LAUNCH_ARGS } from "../test/browser/helpers.js";
import { median } from "./scale/series.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const THROTTLE = Number(process.env.BENCH_CPU_THROTTLE ?? 1);

/** One fresh load's figures, in milliseconds after navigation (bytes for `kb`). */
interface Load {
  html: number;
  editor: number;
  ready: number;
  verdict: number;
  files: number;
  kb: number;
}

/** Loads the page once in a new context and reads its marks. */
async function load(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    if (THROTTLE > 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    }
    const sizes: Array<Promise<number>> = [];
    page.on("response", (r) => {
      if (r.request().resourceType() !== "fetch")
        sizes.push(
          r.body().then(
            (b) => gzipSync(b).length,
            () => 0,
          ),
        );
    });
    await page.goto(`${url}/`, { waitUntil: "commit" });
    await page.waitForSelector("body[data-ready=true]:not([data-loading])", { timeout: 120_000 });
    await page.click("#decide");
    await page.waitForSelector("#verdict-line", { timeout: 120_000 });
    const marks = (await page.evaluate(`(() => {
      const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? -1;
      const nav = performance.getEntriesByType("navigation")[0];
      return { html: nav ? nav.responseEnd : -1, editor: at("editor"), ready: at("ready"), verdict: performance.now() };
    })()`)) as Pick<Load, "html" | "editor" | "ready" | "verdict">;
    const bytes = await Promise.all(sizes);
    return { ...marks, files: bytes.length, kb: bytes.reduce((a, b) => a + b, 0) / 1024 };
  } finally {
    await context.close();
  }
}

const server = await startDevServer(120_000);
let browser: Browser | undefined;
try {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, timeout: 60_000 });
  await load(browser, server.url);
  const loads: Load[] = [];
  for (let i = 0; i < ROUNDS; i++) loads.push(await load(browser, server.url));
  const col = (k: keyof Load) => loads.map((l) => Math.round(l[k]));
  const med = (k: keyof Load) => Math.round(median(loads.map((l) => l[k])));
  console.log(`playground: fresh loads of ${server.url}/ (wrangler dev), ${ROUNDS} rounds${THROTTLE > 1 ? `, CPU throttled ${THROTTLE}×` : ""}`);
  console.log(`  html received   median ${med("html")} ms   [${col("html").join(", ")}]`);
  console.log(`  editor module   median ${med("editor")} ms   [${col("editor").join(", ")}]`);
  console.log(`  usable (ready)  median ${med("ready")} ms   [${col("ready").join(", ")}]   goal < 1000 ms`);
  console.log(`  first verdict   median ${med("verdict")} ms   [${col("verdict").join(", ")}]   (ready, then one Decide)`);
  console.log(`  transfer        ${loads[0].files} files, ${loads[0].kb.toFixed(1)} KB gzipped`);
} finally {
  await browser?.close();
  await server.stop();
}
