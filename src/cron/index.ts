export {
  refreshSources,
  download,
  type RefreshReport,
  type SourceOutcome,
  type Fetcher,
} from "./refresh-cidr-lists.js";
export { refreshCidrLists, runScheduled } from "./run-scheduled.js";
