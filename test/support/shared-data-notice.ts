/** Vitest global setup of the Node projects: prints the one line saying the conformance data is absent, once per run. */
import { haveSharedData, SHARED_DATA_ABSENT } from "./shared-data.js";

/** Prints the notice before the tests start when ../shared/data is missing (once, though two projects set it up). */
export default function setup(): void {
  if (haveSharedData || process.env.ARBITER_SHARED_DATA_NOTICE_SHOWN) return;
  process.env.ARBITER_SHARED_DATA_NOTICE_SHOWN = "1";
  console.warn(`\n⚠ ${SHARED_DATA_ABSENT}\n`);
}
