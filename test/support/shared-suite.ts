/** A `describe` for suites that read ../shared/data: with the data absent it registers one skipped test saying so. */
import { describe, it } from "vitest";
import { haveSharedData, SHARED_DATA_ABSENT } from "./shared-data.js";

/** Runs `body` as a describe block when the shared data is present; otherwise skips it visibly, without running `body`. */
export function describeShared(name: string, body: () => void): void {
  if (haveSharedData) describe(name, body);
  else describe(name, () => it.skip(SHARED_DATA_ABSENT, () => {}));
}
