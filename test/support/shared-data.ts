/**
 * Where the conformance material lives (`../shared/data` beside the checkout:
 * jq's test files, HTCondor's ClassAd vectors, real pScheduler configurations),
 * and what tests and benchmarks do when it is absent: skip, saying so in one line.
 * Pure node:fs/node:path so benchmarks can import it too.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

/** The shared conformance data directory beside the checkout. */
export const SHARED_DATA = resolve(import.meta.dirname, "../../../shared/data");

/** True when `../shared/data` exists beside the checkout. */
export const haveSharedData = existsSync(SHARED_DATA);

/** The one line printed (and used as the skip reason) when the data is absent. */
export const SHARED_DATA_ABSENT =
  `conformance data absent (no ${SHARED_DATA}): its suites are skipped; ` +
  "to run them, put the shared-data directory beside the checkout as ../shared";

/** The absolute path of a file in the shared data. */
export function sharedDataPath(...parts: string[]): string {
  return resolve(SHARED_DATA, ...parts);
}

/** A shared data file's text, or undefined when the shared data is absent. */
export function readSharedData(...parts: string[]): string | undefined {
  return haveSharedData ? readFileSync(sharedDataPath(...parts), "utf8") : undefined;
}
