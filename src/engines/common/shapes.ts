/**
 * One live instance of each class an engine makes per decision and drops after it.
 *
 * V8's optimized code checks the hidden class (map) of the objects it handles and
 * holds those maps weakly. A class whose instances all live within one decision has
 * no instance left when a full collection runs between requests, and V8 then
 * collects the instances' map and throws away every optimized function whose code
 * checked it ("embedded weak objects cleared"): in workerd, 35–39 functions of the
 * match route at every full collection (its whole hot path: lexer, ad reader,
 * evaluation, verdict), which the route then runs unoptimized and recompiles while
 * it answers the backlog the collection's pause left (docs/performance.md,
 * wt/round1). An instance kept here holds its map alive, so the code stays.
 *
 * Keep only instances made as the hot path makes them (the same constructor, the
 * same fields, values of the same kinds), so that they share its map.
 */
const kept: object[] = [];

/** Keeps `instance` (and so its map) alive for the isolate's life; returns it. */
export function keepShape<T extends object>(instance: T): T {
  kept.push(instance);
  return instance;
}

/** The instances kept, for tests. */
export function keptShapes(): readonly object[] {
  return kept;
}
