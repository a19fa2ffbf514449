/**
 * Shared pieces of the limits tests: a fake DNS resolver and CIDR list store
 * built from a case's `context`, and a probe telling whether jq works yet.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { buildCidrSet, type CidrSet } from "../../src/engines/common/cidr.js";
import type { DnsAnswer, DnsResolver, LimitsContext } from "../../src/engines/limits/index.js";
import { compileJqText } from "../../src/engines/limits/jq-bridge.js";
import { httpFetcher } from "../../src/http/url-fetch.js";
import type { FetchFake } from "../support/fetch-fake.js";
import { sharedDataPath } from "../support/shared-data.js";

/** The extra case fields of limits cases (strict like the rest). */
export const limitsCaseExtra = {
  /** Read the policy from ../shared/data/pscheduler/<file> instead of `policy`. */
  policy_file: z.string().optional(),
  /** Set when the case runs jq (identifier, limit, rewrite or priority scripts). */
  needs: z.literal("jq").optional(),
  context: z
    .strictObject({
      local_addresses: z.array(z.string()).optional(),
      /** `"<name> <TYPE>"` → answer; names not listed answer NXDOMAIN. */
      dns: z
        .record(
          z.string(),
          z.strictObject({
            status: z.enum(["ok", "nxdomain", "timeout", "error"]),
            answers: z.array(z.string()).default([]),
          }),
        )
        .optional(),
      no_dns: z.boolean().optional(),
      /** ip-cidr-list-url source → downloaded entries. */
      lists: z.record(z.string(), z.array(z.string())).optional(),
      /** Path on the loopback fetch fake (`{{loopback}}` in the case) → its answer. */
      fetch: z
        .record(
          z.string(),
          z.strictObject({
            status: z.number().optional(),
            body: z.unknown().optional(),
            delay_ms: z.number().optional(),
            echo: z.boolean().optional(),
            location: z.string().optional(),
          }),
        )
        .optional(),
      /** URL fetches allowed per decision (the context's fetch budget). */
      fetch_budget: z.number().optional(),
      explain: z.boolean().optional(),
    })
    .optional(),
};

/** Reads a real configuration from the shared pScheduler data. */
export function sharedPolicyText(file: string): string {
  return readFileSync(sharedDataPath("pscheduler", file), "utf8");
}

/** True once the jq engine compiles and runs a trivial program. */
export function jqAvailable(): boolean {
  const c = compileJqText(".", {});
  if (!c.ok) return false;
  const r = c.value.first({ a: 1 }, 0);
  return r.kind === "value";
}

/** A DnsResolver answering from a table, recording the queries it saw. */
export function fakeDns(
  table: Record<string, { status: DnsAnswer["status"]; answers: string[] }>,
  seen: string[] = [],
): DnsResolver {
  return {
    lookup(name, type) {
      seen.push(`${name} ${type}`);
      const hit = table[`${name} ${type}`];
      return Promise.resolve(
        hit ? { status: hit.status, answers: [...hit.answers] } : { status: "nxdomain", answers: [] },
      );
    },
  };
}

/** Builds the decision context of a case; url-fetch limits reach the loopback fake through the real fetcher. */
export function contextOf(
  c: z.output<z.ZodObject<typeof limitsCaseExtra>>["context"],
  now: number = Date.parse("2026-06-01T12:00:00Z"),
  fake?: FetchFake,
): LimitsContext {
  if (fake !== undefined) fake.routes = c?.fetch ?? {};
  const lists = new Map<string, CidrSet>();
  for (const [source, entries] of Object.entries(c?.lists ?? {})) lists.set(source, buildCidrSet(entries));
  return {
    now,
    explain: c?.explain === true,
    ...(c?.no_dns ? {} : { dns: fakeDns(c?.dns ?? {}) }),
    cidrList: (source) => lists.get(source),
    localAddresses: c?.local_addresses ?? [],
    fetcher: caseFetcher,
    ...(c?.fetch_budget !== undefined ? { fetchBudget: c.fetch_budget } : {}),
  };
}

const caseFetcher = httpFetcher();

/** Replaces `{{loopback}}` by the fetch fake's base URL in every string of a case value. */
export function withLoopback<T>(value: T, base: string): T {
  return JSON.parse(JSON.stringify(value ?? null).replaceAll("{{loopback}}", base)) as T;
}
