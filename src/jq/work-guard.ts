/** The charge for native walks over values (see {@link setWorkGuard}); a leaf module, so every walker can import it. */

let workGuard: ((n: number) => void) | null = null;
let walkedNodes = 0;

/**
 * Installs the function that charges native walks over values (printing, comparing, converting
 * literals) — the run's budget while a jq program runs, null outside — and returns the previous
 * one. A value can share its parts (`[., .]` forty times is 2^40 nodes deep in 40 steps), so a walk
 * is charged by the nodes it visits, not by the steps that built the value.
 */
export function setWorkGuard(g: ((n: number) => void) | null): ((n: number) => void) | null {
  const previous = workGuard;
  workGuard = g;
  walkedNodes = 0;
  return previous;
}

/** Counts one node visited by a native walk; every 1,024 are charged to the installed guard. */
export function walked(): void {
  if (workGuard !== null && ++walkedNodes >= 1024) {
    walkedNodes = 0;
    workGuard(1024);
  }
}

/** Counts `n` nodes visited by a native walk at once (as `n` calls of {@link walked}). */
export function walkedMany(n: number): void {
  if (workGuard === null) return;
  walkedNodes += n;
  if (walkedNodes >= 1024) {
    const whole = walkedNodes - (walkedNodes % 1024);
    walkedNodes -= whole;
    workGuard(whole);
  }
}

/** True while a guard is installed (a jq run is going on). */
export function guarding(): boolean {
  return workGuard !== null;
}
