/**
 * The A/B harness's row groups, one an engine: `npm run bench:ab` measures each
 * group in a process of its own every round (bench/ab/run.ts), so a row's
 * figures never depend on the fixtures or the code state another engine's rows
 * left in the heap. bench/ab/rows.ts builds the rows of one group.
 */
export const ROW_GROUPS = ["placement", "limits", "classad", "customs", "jobfilter", "jq"] as const;
export type RowGroup = (typeof ROW_GROUPS)[number];
