/** Vitest global setup of the node project: prints the one line saying the conformance data is absent, once per run. */
import { haveSharedData, SHARED_DATA_ABSENT } from "./shared-data.js";

/** Prints the notice before the tests start when ../shared/data is missing. */
export default function setup(): void {
  if (!haveSharedData) console.warn(`\n⚠ ${SHARED_DATA_ABSENT}\n`);
}
