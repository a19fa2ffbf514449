/**
 * Distinct decision requests for the memory bench: request `i` differs from
 * every other in what a per-isolate cache could key on (requester and
 * destination, user, groups and tags, every ClassAd expression's text and a
 * regular expression pattern), while staying an ordinary, valid request of
 * its route (limits, place and match in turn). Match's machine ads are in the
 * old long form (one `Name = Expr` a line), whose expression texts go through
 * the shared compiled-expression cache, each about 100 characters.
 * MEMORY_PATTERN=const gives every match job the same pattern (`^slot`).
 */
import type { DecisionRequest } from "./http-requests.js";

function address(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** The routes of {@link distinctDecision}, in the order it takes them. */
export const MEMORY_ROUTES = ["limits", "place", "match"] as const;

/**
 * A route of the memory bench: one of {@link MEMORY_ROUTES}, or `match-regex`,
 * a match whose job ad tests a distinct pattern of about 4,900 instructions
 * per request (what the compiled-pattern caches keep: about 0.5 MB each).
 */
export type MemoryRoute = (typeof MEMORY_ROUTES)[number] | "match-regex";

/** Every route MEMORY_ROUTES may name. */
export const ALL_MEMORY_ROUTES: readonly MemoryRoute[] = [...MEMORY_ROUTES, "match-regex"];

function regexDecision(i: number): DecisionRequest {
  return {
    path: "/v1/match",
    body: {
      job: `[ Requirements = regexp("(a{100}){49}q${i}", TARGET.Name) || TARGET.Memory > 0; Owner = "owner" ]`,
      machines: [`[ Name = "slot1"; Memory = 1024; Requirements = true ]`],
    },
  };
}

/**
 * The `k`th request of a run over `routes` in turn: the next distinct request
 * of its route, or with `repeated` always the route's first one (the same
 * shape, so that distinct and repeated runs differ only in distinctness).
 */
export function runDecision(k: number, routes: readonly MemoryRoute[], repeated: boolean): DecisionRequest {
  const route = routes[k % routes.length];
  const nth = repeated ? 0 : Math.floor(k / routes.length);
  if (route === "match-regex") return regexDecision(nth);
  return distinctDecision(3 * nth + MEMORY_ROUTES.indexOf(route));
}

/** The `i`th distinct decision request. */
export function distinctDecision(i: number): DecisionRequest {
  switch (i % 3) {
    case 0:
      return {
        path: "/v1/limits/decide",
        body: {
          requester: address(i),
          task: {
            schema: 1,
            test: {
              type: "throughput",
              spec: { schema: 1, dest: address(i + 1), duration: `PT${(i % 3600) + 1}S` },
            },
          },
        },
      };
    case 1:
      return {
        path: "/v1/place",
        body: { user: `user${i}`, groups: [`user${i}`, `team${i}`], tags: { namespace: `ns${i}` } },
      };
    default:
      return {
        path: "/v1/match",
        body: {
          job: `[ Requirements = TARGET.Memory >= RequestMemory && regexp("${process.env.MEMORY_PATTERN === "const" ? "^slot" : `^slot${i}_`}", TARGET.Name); RequestMemory = ${i % 4096}; Rank = TARGET.Memory + ${i}; Owner = "owner${i}" ]`,
          machines: Array.from(
            { length: 4 },
            (_, k) =>
              `Name = "slot${i}_${k}"\nMemory = ${512 * (k + 1)}\nRequirements = TARGET.Owner != "nobody${i}_${k}" && TARGET.RequestMemory <= MY.Memory && (TARGET.Rank > ${k} || TARGET.Rank < 0)`,
          ),
        },
      };
  }
}
