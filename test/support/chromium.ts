/**
 * Where Chromium is and how it is launched, for the browser tests (test/browser) and the
 * page's load benchmark (bench/playground-load.ts).
 */
import { existsSync } from "node:fs";

/** Chromium's path: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Whether that Chromium is installed (the suites are skipped, saying why, when not). */
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless, sandbox off (containers), and nothing that would reach the network. */
export const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
