/** libm-style math builtins (jq 1.7.1 exposes C99 math functions by name). */
import type { Json } from "../engines/common/json.js";
import { def0, defC } from "./builtins-define.js";
import { charge } from "./runtime.js";
import { desc, fail, numOf } from "./values.js";

function num(v: Json): number {
  if (typeof v === "number") return v;
  const n = numOf(v);
  return typeof n === "number" ? n : fail(`${desc(v)} number required`);
}

function roundHalfEven(x: number): number {
  if (!isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61503916999185,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function tgamma(x: number): number {
  if (x === Infinity) return Infinity;
  // poles: +/-0 give +/-infinity, negative integers NaN; past 171.62 the result overflows
  if (x === 0) return 1 / x;
  if (Number.isInteger(x) && x < 0) return NaN;
  if (x > 171.62437695630272) return Infinity;
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * tgamma(1 - x));
  if (Number.isInteger(x) && x <= 171) {
    let r = 1;
    for (let k = 2; k < x; k++) r *= k;
    return r;
  }
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let k = 1; k < 9; k++) a += LANCZOS[k] / (z + k);
  // t^(z+1/2) overflows before the product does: take it in two halves
  const half = Math.pow(t, (z + 0.5) / 2);
  return Math.sqrt(2 * Math.PI) * half * (half * Math.exp(-t)) * a;
}

/** The Euler–Mascheroni constant: lgamma(x) = -log|x| - γx + O(x²) near 0. */
const EULER_GAMMA = 0.5772156649015329;

function lgamma(x: number): number {
  if (x === Infinity || x === -Infinity) return Infinity;
  if (Number.isInteger(x) && x <= 0) return Infinity;
  // near 0 the reflection below would divide by sin(πx), which underflows for subnormals
  if (Math.abs(x) < 1e-10) return -Math.log(Math.abs(x)) - EULER_GAMMA * x;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  if (x < 100) return Math.log(Math.abs(tgamma(x)));
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let k = 1; k < 9; k++) a += LANCZOS[k] / (z + k);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const F64 = new DataView(new ArrayBuffer(8));

/** frexp by the bits: a mantissa in [0.5, 1) and the exponent, exact for subnormals too. */
function frexpBits(x: number): [number, number] {
  if (x === 0 || !isFinite(x)) return [x, 0];
  F64.setFloat64(0, x);
  let hi = F64.getUint32(0);
  let e = (hi >>> 20) & 0x7ff;
  if (e === 0) {
    F64.setFloat64(0, x * 2 ** 54);
    hi = F64.getUint32(0);
    e = ((hi >>> 20) & 0x7ff) - 54;
  }
  F64.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return [F64.getFloat64(0), e - 1022];
}

const CBRT_SCALE = [
  1 / 1.5874010519681996,
  1 / 1.2599210498948732,
  1,
  1.2599210498948732,
  1.5874010519681996,
];

/**
 * cbrt rounded as glibc's: a degree-6 polynomial guess for the cube root of the frexp mantissa,
 * one rational (Halley) refinement, then the exponent's third. JavaScript's Math.cbrt rounds
 * differently (27 | cbrt is 3 there, 3.0000000000000004 in jq on glibc).
 */
function cbrt(x: number): number {
  if (x === 0 || !isFinite(x)) return x + x;
  const [m, e] = frexpBits(Math.abs(x));
  const u =
    0.35489576504391986 +
    (1.508191937815849 +
      (-2.114994941673713 +
        (2.4469312256353444 +
          (-1.8346927748361308 + (0.7849323449766392 - 0.14526389938548637 * m) * m) * m) *
          m) *
        m) *
      m;
  const t = u * u * u;
  const r = ldexp(((u * (t + 2 * m)) / (2 * t + m)) * CBRT_SCALE[2 + (e % 3)], Math.trunc(e / 3));
  return x < 0 ? -r : r;
}

function ldexp(x: number, e: number): number {
  if (e > 1023) return x * Math.pow(2, 1023) * Math.pow(2, e - 1023);
  if (e < -1022) return x * Math.pow(2, -1022) * Math.pow(2, e + 1022);
  return x * Math.pow(2, e);
}

const TWO_OVER_SQRT_PI = 1.1283791670955126;
const HALF_LOG_PI = 0.5723649429247001;

/**
 * erf by the series 2/√π·e^(-x²)·Σ 2ⁿx^(2n+1)/(1·3···(2n+1)), whose terms are all positive (no
 * cancellation); |x| < 6 needs at most about 120 terms. Exact at ±0.
 */
function erfSeries(x: number): number {
  if (x === 0) return x;
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/** erfc for x >= 2 by its continued fraction (modified Lentz, at most 500 terms), in logs so tiny results round once. */
function erfcTail(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? 1 / tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x - HALF_LOG_PI - Math.log(f));
}

function erf(x: number): number {
  if (x !== x) return x;
  const a = Math.abs(x);
  if (a < 3) return erfSeries(x);
  if (a >= 6) return x > 0 ? 1 : -1;
  const r = 1 - erfcTail(a);
  return x > 0 ? r : -r;
}

function erfc(x: number): number {
  if (x !== x) return x;
  if (x < 2) return 1 - erfSeries(x);
  if (x > 27.3) return 0;
  return erfcTail(x);
}

function besselJ(n: number, x: number): number {
  let sum = 0;
  const steps = 2000;
  // a fixed 2,000-point quadrature: charged as the loop it is, not as one step
  charge(steps);
  for (let k = 0; k < steps; k++) {
    const t = (Math.PI * (k + 0.5)) / steps;
    sum += Math.cos(n * t - x * Math.sin(t));
  }
  return sum / steps;
}

function besselY(n: number, x: number): number {
  if (x <= 0) return x === 0 ? -Infinity : NaN;
  let sum = 0;
  const steps = 2000;
  charge(3 * steps);
  for (let k = 0; k < steps; k++) {
    const t = (Math.PI * (k + 0.5)) / steps;
    sum += Math.sin(x * Math.sin(t) - n * t);
  }
  let tail = 0;
  const h = 0.01;
  for (let k = 0; k < 4000; k++) {
    const t = (k + 0.5) * h;
    tail += (Math.exp(n * t) + (n % 2 === 0 ? 1 : -1) * Math.exp(-n * t)) * Math.exp(-x * Math.sinh(t)) * h;
  }
  return sum / steps - tail / Math.PI;
}

function nextafter(x: number, y: number): number {
  if (x !== x || y !== y) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? 5e-324 : -5e-324;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  let bits = buf.getBigUint64(0);
  bits += y > x === x > 0 ? 1n : -1n;
  buf.setBigUint64(0, bits);
  return buf.getFloat64(0);
}

/** C's modf: both parts carry the sign of x (`-1 | modf` is `[-0,-1]`; infinities have a zero fraction). */
function modf(x: number): [number, number] {
  if (x !== x) return [x, x];
  const ip = Math.trunc(x);
  const fr = isFinite(x) ? x - ip : 0;
  return [fr === 0 && (x < 0 || Object.is(x, -0)) ? -0 : fr, ip];
}

const ONE: Array<[string, (x: number) => Json]> = [
  ["floor", Math.floor],
  ["ceil", Math.ceil],
  ["round", (x) => (x < 0 ? -Math.round(-x) : Math.round(x))],
  ["rint", roundHalfEven],
  ["nearbyint", roundHalfEven],
  ["trunc", Math.trunc],
  ["fabs", Math.abs],
  ["sqrt", Math.sqrt],
  ["cbrt", cbrt],
  ["exp", Math.exp],
  ["exp2", (x) => Math.pow(2, x)],
  ["exp10", (x) => Math.pow(10, x)],
  ["expm1", Math.expm1],
  ["log", Math.log],
  ["log2", Math.log2],
  ["log10", Math.log10],
  ["log1p", Math.log1p],
  ["logb", (x) => (x === 0 ? -Infinity : !isFinite(x) ? Math.abs(x) : frexpBits(x)[1] - 1)],
  ["gamma", lgamma],
  ["lgamma", lgamma],
  ["tgamma", tgamma],
  ["lgamma_r", (x) => [lgamma(x), tgamma(x) < 0 ? -1 : 1]],
  ["frexp", (x) => frexpBits(x)],
  ["modf", modf],
  ["significand", (x) => (x === 0 || !isFinite(x) ? x : frexpBits(x)[0] * 2)],
  ["sin", Math.sin],
  ["cos", Math.cos],
  ["tan", Math.tan],
  ["asin", Math.asin],
  ["acos", Math.acos],
  ["atan", Math.atan],
  ["sinh", Math.sinh],
  ["cosh", Math.cosh],
  ["tanh", Math.tanh],
  ["asinh", Math.asinh],
  ["acosh", Math.acosh],
  ["atanh", Math.atanh],
  ["j0", (x) => besselJ(0, x)],
  ["j1", (x) => besselJ(1, x)],
  ["y0", (x) => besselY(0, x)],
  ["y1", (x) => besselY(1, x)],
  ["erf", erf],
  ["erfc", erfc],
  ["pow10", () => fail("Error: pow10/0 not found at build time")],
];
for (const [name, f] of ONE) def0(name, (i) => f(num(i)));

function ieeeRemainder(x: number, y: number): number {
  if (y === 0 || !isFinite(x) || y !== y) return NaN;
  if (!isFinite(y)) return x;
  const n = roundHalfEven(x / y);
  const r = x - n * y;
  return r === 0 ? (x < 0 ? -0 : 0) : r;
}

const TWO: Array<[string, (a: number, b: number) => number]> = [
  ["pow", Math.pow],
  ["atan2", Math.atan2],
  ["fmod", (a, b) => a % b],
  ["fmin", (a, b) => (a !== a ? b : b !== b ? a : Math.min(a, b))],
  ["fmax", (a, b) => (a !== a ? b : b !== b ? a : Math.max(a, b))],
  ["fdim", (a, b) => (a > b ? a - b : a !== a || b !== b ? NaN : 0)],
  ["hypot", Math.hypot],
  ["copysign", (a, b) => (Object.is(b, -0) || b < 0 ? -Math.abs(a) : Math.abs(a))],
  ["drem", ieeeRemainder],
  ["remainder", ieeeRemainder],
  ["nextafter", nextafter],
  ["nexttoward", nextafter],
  ["ldexp", (a, b) => ldexp(a, Math.trunc(b))],
  ["scalb", (a, b) => a * Math.pow(2, b)],
  ["scalbln", (a, b) => ldexp(a, Math.trunc(b))],
  ["jn", (a, b) => besselJ(Math.trunc(a), b)],
  ["yn", (a, b) => besselY(Math.trunc(a), b)],
];
for (const [name, f] of TWO) defC(name, 2, (_i, a, b) => f(num(a), num(b)));
defC("fma", 3, (_i, a, b, c) => num(a) * num(b) + num(c));
