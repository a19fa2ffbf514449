/** Runtime types shared by the compiler and builtins: environments, generators, run state. */
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import { keyCount } from "./key-order.js";
import { BudgetError } from "./values.js";

/** Receives one output; returns true to stop the producer (early exit or break). */
export type Emit = (v: Json) => boolean;
/** A path: the keys from the root, or null when the value is not a path. */
export type Path = Json[] | null;
export type PEmit = (v: Json, p: Path) => boolean;
/** A compiled filter in value mode. */
export type Gen = (input: Json, env: Env | null, emit: Emit) => boolean;
/** A compiled filter in path mode: tracks where each output lives in the root. */
export type PGen = (input: Json, path: Path, env: Env | null, emit: PEmit) => boolean;

/** One runtime binding: a variable value, a closure argument or a label token. */
export class Env {
  constructor(
    readonly v: unknown,
    readonly next: Env | null,
  ) {}
}

/** A filter argument captured with the environment of its call site. */
export class Closure {
  constructor(
    readonly arg: ArgInfo,
    readonly env: Env | null,
  ) {}
}

/** A compiled call argument; its path-mode form is compiled on first use. */
export interface ArgInfo {
  node: Node;
  gen: Gen;
  pgen: PGen | null;
  compilePath: () => PGen;
  /** The argument's single-valued evaluator (compile-single.ts), null when it may give other than one value; undefined until asked. */
  val?: ((i: Json, env: Env | null) => Json) | null;
  compileVal: () => ((i: Json, env: Env | null) => Json) | null;
}

/** Per-run mutable state (runs are synchronous, so one module-level record is enough). */
export interface RunState {
  steps: number;
  budget: number;
  breaking: unknown;
  env: Json;
  debug: (msg: Json) => void;
  now: number | undefined;
  keepLiterals: boolean;
  /** Supplies `input`/`inputs` (the CLI's remaining input values); absent in embeddings. */
  input: (() => Json | undefined) | null;
}

export const S: RunState = {
  steps: 0,
  budget: 1_000_000,
  breaking: null,
  env: {},
  debug: () => {},
  now: undefined,
  keepLiterals: false,
  input: null,
};

const BUDGET = new BudgetError();

/** Counts one evaluation step, ending the run when the budget is spent. */
export function step(): void {
  if (++S.steps > S.budget) throw BUDGET;
}

/** Counts `n` steps at once (work proportional to a size, such as padding an array). */
export function charge(n: number): void {
  S.steps += n;
  if (S.steps > S.budget) throw BUDGET;
}

/**
 * The units a new array, object or string costs on top of its contents: allocating
 * a container (and collecting it later) costs about as much as a few steps.
 */
export const ALLOC = 3;

/**
 * The units setting a key into an object at run time costs, beyond the step: a key computed by
 * the program (or new to the object) is interned and finds or grows a hidden class or a hash
 * table: about 1.4 µs in workerd for a key the isolate has not seen (bench:hostile's key rows),
 * where a step is about 0.1 µs.
 */
export const KEY = 16;

/**
 * The units each key of an object copied into a new one costs (a shallow copy of an object
 * of many keys walks a hash table, about 0.3 µs a key in workerd).
 */
export const COPY_KEY = 3;

/**
 * What building, copying or walking a value costs, in budget units: its
 * characters, elements or keys (not nested ones: those were charged when built).
 */
export function sizeOf(v: Json): number {
  if (typeof v === "string") return v.length;
  if (v === null || typeof v !== "object") return 0;
  if (Array.isArray(v)) return v.length;
  return keyCount(v);
}

/** Charges the size of a value built or walked (see {@link sizeOf}) and returns it. */
export function chargeSize<T extends Json>(v: T): T {
  const n = sizeOf(v);
  if (n > 0) charge(n);
  return v;
}

/** Charges a `@format` result: its length and a new string (formats walk what they format). */
export function chargeFormatted(s: Json): Json {
  charge(sizeOf(s) + ALLOC);
  return s;
}

/** Charges a comparison sort of `n` values: n·log2(n) units. */
export function chargeSort(n: number): void {
  if (n > 1) charge(Math.ceil(n * Math.log2(n)));
}

/** Throws the budget error (for loops that count several steps at once). */
export function budgetExceeded(): never {
  throw BUDGET;
}

/** Walks `n` bindings up the environment chain. */
export function up(env: Env | null, n: number): Env | null {
  let e = env;
  for (let i = 0; i < n; i++) e = (e as Env).next;
  return e;
}
