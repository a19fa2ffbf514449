/** libm-style math builtins (jq 1.7.1 exposes C99 math functions by name). */
import type { Json } from "../engines/common/json.js";
import { def0, defC } from "./builtins-define.js";
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

function lgamma(x: number): number {
  if (x === Infinity || x === -Infinity) return Infinity;
  if (Number.isInteger(x) && x <= 0) return Infinity;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  if (x < 100) return Math.log(Math.abs(tgamma(x)));
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let k = 1; k < 9; k++) a += LANCZOS[k] / (z + k);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

function frexp(x: number): [number, number] {
  if (x === 0 || !isFinite(x)) return [x, 0];
  let e = Math.max(-1073, Math.floor(Math.log2(Math.abs(x))) + 1);
  let m = x * Math.pow(2, -e);
  while (Math.abs(m) < 0.5) {
    m *= 2;
    e--;
  }
  while (Math.abs(m) >= 1) {
    m /= 2;
    e++;
  }
  return [m, e];
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

const CBRT_SCALE = [1 / 1.5874010519681996, 1 / 1.2599210498948732, 1, 1.2599210498948732, 1.5874010519681996];

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
      (-2.114994941673713 + (2.4469312256353444 + (-1.8346927748361308 + (0.7849323449766392 - 0.14526389938548637 * m) * m) * m) * m) * m) *
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

function erf(x: number): number {
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const y =
    1 -
    t *
      Math.exp(
        -x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
      );
  return x >= 0 ? y : -y;
}

function besselJ(n: number, x: number): number {
  let sum = 0;
  const steps = 2000;
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
  bits += (y > x) === (x > 0) ? 1n : -1n;
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
  ["logb", (x) => (x === 0 ? -Infinity : !isFinite(x) ? Math.abs(x) : frexp(x)[1] - 1)],
  ["gamma", lgamma],
  ["lgamma", lgamma],
  ["tgamma", tgamma],
  ["lgamma_r", (x) => [lgamma(x), tgamma(x) < 0 ? -1 : 1]],
  ["frexp", (x) => frexp(x)],
  ["modf", modf],
  ["significand", (x) => (x === 0 || !isFinite(x) ? x : frexp(x)[0] * 2)],
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
  ["erfc", (x) => 1 - erf(x)],
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
