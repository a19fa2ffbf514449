export { refreshCidrLists, refreshSources, download, type RefreshReport, type SourceOutcome, type Fetcher } from "./refresh-cidr-lists.js";
export { runScheduled } from "./run-scheduled.js";
