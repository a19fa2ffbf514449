import fc from "fast-check";

/**
 * Every property test runs from one fixed seed, so a test that passed on a commit passes on it
 * again and a failure names the same counterexample on every machine. fast-check otherwise draws
 * a new seed per run: a property with a count threshold (at least N cases of some kind) then
 * fails by chance now and then. Exploring new seeds is the fuzzer's job (`npm run fuzz`);
 * `FC_SEED=<n>` runs the suite from another seed. A test that names its own seed keeps it.
 */
const fromEnv = typeof process === "undefined" ? undefined : process.env.FC_SEED;
const seed = fromEnv !== undefined && /^-?\d+$/.test(fromEnv) ? Number(fromEnv) : 20261128;

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
