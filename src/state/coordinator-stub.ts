import type { Env } from "../env.js";
import type { PolicyCoordinator } from "./policy-coordinator.js";

/**
 * The coordinator: one object for the whole deployment, the only writer of the
 * pointers. A module of its own, importing the class as a type only, so code
 * that calls the object (and Node tests of it) never loads the Durable Object runtime.
 */
export function coordinatorOf(env: Env): DurableObjectStub<PolicyCoordinator> {
  return env.POLICY_COORDINATOR.get(
    env.POLICY_COORDINATOR.idFromName("bundle"),
  ) as unknown as DurableObjectStub<PolicyCoordinator>;
}
