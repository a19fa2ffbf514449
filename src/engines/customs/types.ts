/** The availability verdicts of a host, named as customs names them. */
export type AvailReason =
  "AVAIL_IDLE" | "AVAIL_SWAP" | "AVAIL_LOAD" | "AVAIL_IMPORTS" | "AVAIL_PROC" | "AVAIL_DOWN";

/** Why an available host was still not a candidate for one request. */
export type ExclusionReason =
  "self" | "net" | "arch" | "clients" | "attrs" | "exclusive" | "acl" | "access" | "unknown-client";

/** The signals an eviction hands to the host agent, in delivery order. */
export type EvictSignal = "SIGUSR2" | "SIGXCPU" | "SIGTERM" | "SIGKILL";

/** The idle times a host reports, keyed by idlecrit bit ("1", "2", "4", "8"). */
export type IdleTimes = Partial<Record<"1" | "2" | "4" | "8", number>>;

/**
 * A host after validation and defaulting: configuration and last status in one
 * flat object, as the agent reports it. Thresholds of 0 disable their criterion.
 */
export interface Host {
  readonly name: string;
  readonly address: string;
  readonly net: number;
  readonly arch: number;
  readonly attrs: readonly string[];
  readonly load: number;
  readonly swapFreePct: number;
  readonly jobs: number;
  readonly idleSeconds?: number;
  readonly idle?: IdleTimes;
  readonly freeProcs?: number;
  readonly maxLoad: number;
  readonly minSwapPct: number;
  readonly maxJobs: number;
  readonly minIdleSeconds: number;
  readonly idleCrit: number;
  readonly minFreeProcs: number;
  readonly bias: number;
  readonly evictSeconds: number;
  readonly cpuSeconds: number;
  readonly memoryKb: number;
  readonly nice: number;
  readonly npri: number;
  readonly localJobs: number;
  readonly access: 0 | 1 | 2 | 3;
  readonly users?: Readonly<Record<string, string>>;
  readonly shells?: readonly string[];
  readonly checkSeconds: number;
  readonly clients: "ALL" | readonly string[];
  /** The networks the host is attached to (CIDRs): the start of its access list. */
  readonly networks: readonly string[];
  /** Entries added to the access list: the pool's, then the host's own. */
  readonly allow: readonly string[];
  /** Entries that remove every overlapping entry: the pool's, then the host's own. */
  readonly deny: readonly string[];
  /** Whether the host has SIGXCPU; without it the termination signal is SIGTERM. */
  readonly sigxcpu: boolean;
  /** Epoch ms of the last report; absent in pure evaluations means "just reported". */
  readonly reportedAt?: number;
}

/** A client's request for a host. */
export interface HostRequest {
  readonly client: string;
  readonly net: number;
  readonly fromAddress: string;
  readonly user: string;
  readonly arch?: number;
  readonly attrs?: readonly string[];
  readonly same?: boolean;
  readonly exclusive?: boolean;
  readonly uselocal?: boolean;
}

/** A host's availability as computed from its last report. */
export interface Availability {
  readonly available: boolean;
  /** The customs rating when available, else null. */
  readonly rating: number | null;
  readonly reason?: AvailReason;
  /** Whether the idle criterion failed: the eviction trigger, independent of other criteria. */
  readonly idleFails: boolean;
}

/** The limits handed to the agent for the jobs it imports. */
export interface JobLimits {
  readonly cpuSeconds: number;
  readonly memoryKb: number;
  readonly nice: number;
  readonly npri: number;
}

/** One refusal by an access level 3 host, which customs logs. */
export interface AccessDenial {
  readonly user: string;
  readonly host: string;
  readonly client: string;
}
