/**
 * Absolute and relative time: the library's lenient string forms, their
 * unparsed text, broken-down components and strftime. The service runs in
 * UTC, so "local time" is UTC throughout.
 */
import { AbsTime } from "./values.js";
import { DAY_NAMES, MONTH_NAMES } from "../common/calendar.js";

function isDigitCh(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}
function isSpaceCh(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c === 32 || (c >= 9 && c <= 13);
}
/** C `atoi`: optional sign and leading digits, 0 when none. */
function atoi(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m ? parseInt(m[1], 10) : 0;
}

/**
 * Parses `D* dddd [D* dd ...] [Z|±hh:mm|±hhmm]` (D = non-digit) as the library
 * does; no offset means UTC. Returns null for text it rejects.
 */
export function parseAbsTimeString(input: string): AbsTime | null {
  let s = input;
  let len = s.length;
  let i = len - 1;
  let tz: number | null = null;
  while (i >= 0 && isSpaceCh(s, i)) i--;
  const tzOf = (off: string): number | null => {
    if ((off[0] === "+" || off[0] === "-") && /^\d{4}$/.test(off.slice(1))) {
      const sign = off[0] === "+" ? 1 : -1;
      return sign * (parseInt(off.slice(1, 3), 10) * 3600 + parseInt(off.slice(3, 5), 10) * 60);
    }
    return null;
  };
  if (i > 0 && (s[i] === "z" || s[i] === "Z")) {
    s = s.slice(0, i) + s.slice(i + 1);
    tz = 0;
  } else if (len > 5 && (s[len - 5] === "+" || s[len - 5] === "-")) {
    tz = tzOf(s.slice(len - 5));
    if (tz !== null) s = s.slice(0, len - 5);
  } else if (len > 6 && (s[len - 6] === "+" || s[len - 6] === "-") && s[len - 3] === ":") {
    s = s.slice(0, len - 3) + s.slice(len - 2);
    len = s.length;
    tz = tzOf(s.slice(len - 5));
    if (tz !== null) s = s.slice(0, len - 5);
  }
  len = s.length;
  i = 0;
  const skip = () => {
    while (i < len && !isDigitCh(s, i)) i++;
  };
  skip();
  if (i > len - 4) return null;
  const year = atoi(s.substr(i, 4));
  i += 4;
  const fields = [1, 0, 0, 0, 0]; // month (1-based), day, hour, min, sec
  const parts = [0, 0, 0, 0, 0];
  for (let f = 0; f < 5; f++) {
    skip();
    if (i <= len - 2) {
      parts[f] = atoi(s.substr(i, 2));
      i += 2;
    } else parts[f] = f === 0 ? fields[0] : 0;
  }
  skip();
  if (i <= len - 1 && isDigitCh(s, i)) return null;
  const month = parts[0];
  const ms = Date.UTC(year, month - 1, parts[1], parts[2], parts[3], parts[4]);
  if (!Number.isFinite(ms)) return null;
  // years below 100 are not shifted to 1900 by Date.UTC when built this way
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, parts[1]);
  d.setUTCHours(parts[2], parts[3], parts[4], 0);
  const offset = tz ?? 0;
  return new AbsTime(Math.floor(d.getTime() / 1000) - offset, offset);
}

function revDigits(s: string, i: number): [string, number] {
  let out = "";
  while (i >= 0 && isDigitCh(s, i)) {
    out = s[i] + out;
    i--;
  }
  return [out, i];
}

/** Parses `[-][D+|Dd][H:|Hh][M:|Mm]S[.f][s]` as the library does; null when rejected. */
export function parseRelTimeString(s: string): number | null {
  let i = s.length - 1;
  let secs = 0;
  let mins = 0;
  let hrs = 0;
  let days = 0;
  let neg = false;
  const back = () => {
    while (i >= 0 && isSpaceCh(s, i)) i--;
  };
  back();
  if (i >= 0 && (s[i] === "s" || s[i] === "S" || isDigitCh(s, i))) {
    if (s[i] === "s" || s[i] === "S") i--;
    back();
    let txt: string;
    [txt, i] = revDigits(s, i);
    if (i >= 0 && s[i] === ".") {
      i--;
      let whole: string;
      [whole, i] = revDigits(s, i);
      txt = whole + "." + txt;
    }
    secs = txt === "" || txt === "." ? 0 : parseFloat(txt.startsWith(".") ? "0" + txt : txt);
    if (Number.isNaN(secs)) secs = 0;
  }
  const unit = (chars: string): number | null => {
    back();
    if (i >= 0 && chars.includes(s[i])) {
      i--;
      back();
      let txt: string;
      [txt, i] = revDigits(s, i);
      return txt === "" ? 0 : parseInt(txt, 10);
    }
    return null;
  };
  mins = unit("mM:") ?? 0;
  hrs = unit("hH:") ?? 0;
  days = unit("dD+") ?? 0;
  back();
  if (i >= 0 && s[i] === "-") {
    neg = true;
    i--;
  }
  back();
  if (i >= 0 && !isSpaceCh(s, i)) return null;
  const r = days * 86400 + hrs * 3600 + mins * 60 + secs;
  return neg ? -r : r;
}

function pad2(n: number): string {
  return n < 10 && n >= 0 ? "0" + n : String(n);
}

/**
 * C `(int)` of a double as x86-64 computes it (cvttsd2si): truncation toward
 * zero, and INT_MIN for NaN, infinities and values outside the int range.
 */
export function cInt32(d: number): number {
  return d > -2147483649 && d < 2147483648 ? Math.trunc(d) + 0 : -2147483648;
}

/** C's `int / int` and `int % int`: truncating, on 32-bit values. */
function idiv(a: number, b: number): number {
  return Math.trunc(a / b);
}

/** True when `x` is exactly halfway between two 6-significant-digit decimals (printf rounds such ties to even). */
function sixDigitTie(x: number): boolean {
  const digits = Math.abs(x).toExponential(20).split("e")[0].replace(".", "");
  return digits[6] === "5" && /^0*$/.test(digits.slice(7));
}

/**
 * C `%g` (6 significant digits, trailing zeros dropped, exponent of at least
 * two digits), zero-padded to width 2 as `%02g` pads it. NaN prints as glibc
 * prints the NaN x86 makes of `inf - inf` when `negativeNan`, else `nan`.
 */
export function cG02(x: number, negativeNan = false): string {
  let t: string;
  if (Number.isNaN(x)) t = negativeNan ? "-nan" : "nan";
  else if (!Number.isFinite(x)) t = x < 0 ? "-inf" : "inf";
  else if (x === 0) t = Object.is(x, -0) ? "-0" : "0";
  else {
    let e = x.toExponential(5);
    if (sixDigitTie(x)) {
      // JavaScript rounds exact ties away from zero; printf rounds them to the even digit
      const [m, ex] = x.toExponential(6).split("e");
      const kept = m.slice(0, -1);
      if (Number(kept[kept.length - 1]) % 2 === 0) e = `${kept.replace(/\.$/, "")}e${ex}`;
    }
    const [mant, expText] = e.split("e");
    const exp = Number(expText);
    if (exp < -4 || exp >= 6) {
      const m = mant.includes(".") ? mant.replace(/0+$/, "").replace(/\.$/, "") : mant;
      t = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    } else {
      // the rounded mantissa printed with as many decimals as %g keeps, then trailing zeros dropped
      const fixed = (Number(mant) * 10 ** exp).toFixed(Math.max(0, 5 - exp));
      t = fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
    }
  }
  if (t.length >= 2) return t;
  return t.startsWith("-") ? t : "0" + t;
}

/**
 * The text inside `relTime("...")`: `[-][D+]HH:MM:SS`, leading zero fields
 * omitted, computed as libclassad's relTimeToString does (util.cpp), with C's
 * `(int)` of the seconds: a duration beyond the int range prints INT_MIN's
 * fields (`relTime(1e300)` is `-24855+-3:-14:-8`).
 */
export function relTimeBody(r: number): string {
  let out = "";
  if (r < 0) {
    out = "-";
    r = -r;
  }
  const frac = r - Math.floor(r);
  let days = cInt32(r);
  let hrs = days % 86400;
  let mins = hrs % 3600;
  const secs = (mins % 60) + frac;
  days = idiv(days, 86400);
  hrs = idiv(hrs, 3600);
  mins = idiv(mins, 60);
  // an infinite duration's fraction is inf - inf, the negative NaN on x86
  const sec = frac === 0 ? pad2(cInt32(secs)) : cG02(secs, !Number.isFinite(r) && !Number.isNaN(r));
  if (days) return `${out}${days}+${pad2(hrs)}:${pad2(mins)}:${sec}`;
  if (hrs) return `${out}${pad2(hrs)}:${pad2(mins)}:${sec}`;
  if (mins) return `${out}${pad2(mins)}:${sec}`;
  return out + sec;
}

/** The unparsed form of a relative time. */
export function relTimeText(r: number): string {
  return `relTime("${relTimeBody(r)}")`;
}

/** Broken-down UTC fields of a time shifted by its offset (as gmtime on secs+offset). */
export interface Tm {
  year: number;
  mon: number; // 0-11
  mday: number;
  hour: number;
  min: number;
  sec: number;
  wday: number;
  yday: number;
}

/** Whether a year is a Gregorian leap year. */
function leap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/**
 * gmtime: the broken-down UTC fields of epoch seconds, on the proleptic
 * Gregorian calendar for any year (glibc's gmtime_r goes to year 2^31; times
 * past 2^53 seconds, which no ClassAd arithmetic reaches within a budget, are
 * clamped there, and NaN reads as the epoch).
 */
export function gmtime(secs: number): Tm {
  const limit = 2 ** 53;
  const s = Number.isNaN(secs) ? 0 : Math.max(-limit, Math.min(limit, Math.floor(secs)));
  const days = Math.floor(s / 86400);
  const rem = s - days * 86400;
  // civil-from-days (Howard Hinnant's algorithm), exact on doubles this small
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const mday = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mon = mp < 10 ? mp + 2 : mp - 10;
  const year = yoe + era * 400 + (mon < 2 ? 1 : 0);
  const cum = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][mon];
  const yday = cum + mday - 1 + (mon >= 2 && leap(year) ? 1 : 0);
  return {
    year,
    mon,
    mday,
    hour: Math.floor(rem / 3600),
    min: Math.floor((rem % 3600) / 60),
    sec: rem % 60,
    wday: (((days + 4) % 7) + 7) % 7,
    yday,
  };
}

/**
 * The text inside `absTime("...")`: the fields in the value's offset (strftime's
 * `%Y` unpadded, as glibc prints year 1 as `1`) plus `±hh:mm` computed on C ints
 * (an offset of INT_MIN stays negative when negated).
 */
export function absTimeBody(t: AbsTime): string {
  const tm = gmtime(t.secs + t.offset);
  let tz = t.offset | 0;
  let sign = "-";
  if (tz > 0) sign = "+";
  else tz = -tz | 0;
  return `${tm.year}-${pad2(tm.mon + 1)}-${pad2(tm.mday)}T${pad2(tm.hour)}:${pad2(tm.min)}:${pad2(tm.sec)}${sign}${pad2(idiv(tz, 3600))}:${pad2(idiv(tz, 60) % 60)}`;
}

/** Week number as strftime's %U (first Sunday starts week 1) or %W (Monday). */
function weekNo(tm: Tm, monday: boolean): number {
  const wd = monday ? (tm.wday + 6) % 7 : tm.wday;
  return Math.floor((tm.yday + 7 - wd) / 7);
}

/** C-locale strftime over broken-down fields (UTC). */
export function strftime(tm: Tm, fmt: string): string {
  let out = "";
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== "%" || i + 1 >= fmt.length) {
      out += c;
      continue;
    }
    const f = fmt[++i];
    switch (f) {
      case "a":
        out += (DAY_NAMES[tm.wday] ?? "???").slice(0, 3);
        break;
      case "A":
        out += DAY_NAMES[tm.wday] ?? "?";
        break;
      case "b":
      case "h":
        out += (MONTH_NAMES[tm.mon] ?? "???").slice(0, 3);
        break;
      case "B":
        out += MONTH_NAMES[tm.mon] ?? "?";
        break;
      case "c":
        out += strftime(tm, "%a %b %e %H:%M:%S %Y");
        break;
      case "C":
        out += pad2(Math.floor(tm.year / 100));
        break;
      case "d":
        out += pad2(tm.mday);
        break;
      case "D":
        out += strftime(tm, "%m/%d/%y");
        break;
      case "e":
        out += String(tm.mday).padStart(2, " ");
        break;
      case "F":
        out += strftime(tm, "%Y-%m-%d");
        break;
      case "H":
        out += pad2(tm.hour);
        break;
      case "I":
        out += pad2(tm.hour % 12 === 0 ? 12 : tm.hour % 12);
        break;
      case "j":
        out += String(tm.yday + 1).padStart(3, "0");
        break;
      case "m":
        out += pad2(tm.mon + 1);
        break;
      case "M":
        out += pad2(tm.min);
        break;
      case "n":
        out += "\n";
        break;
      case "p":
        out += tm.hour < 12 ? "AM" : "PM";
        break;
      case "r":
        out += strftime(tm, "%I:%M:%S %p");
        break;
      case "R":
        out += strftime(tm, "%H:%M");
        break;
      case "S":
        out += pad2(tm.sec);
        break;
      case "t":
        out += "\t";
        break;
      case "T":
        out += strftime(tm, "%H:%M:%S");
        break;
      case "u":
        out += String(tm.wday === 0 ? 7 : tm.wday);
        break;
      case "U":
        out += pad2(weekNo(tm, false));
        break;
      case "w":
        out += String(tm.wday);
        break;
      case "W":
        out += pad2(weekNo(tm, true));
        break;
      case "x":
        out += strftime(tm, "%m/%d/%y");
        break;
      case "X":
        out += strftime(tm, "%H:%M:%S");
        break;
      case "y":
        out += pad2(tm.year % 100);
        break;
      case "Y":
        out += String(tm.year);
        break;
      case "z":
        out += "+0000";
        break;
      case "Z":
        out += "GMT";
        break;
      case "%":
        out += "%";
        break;
      default:
        out += "%" + f;
    }
  }
  return out;
}

/** Day of week and day of year of a calendar date, as formatTime computes them. */
export function dayNumbers(year: number, month1: number, mday: number): { wday: number; yday: number } {
  const d = new Date(0);
  d.setUTCFullYear(year, month1 - 1, mday);
  const start = new Date(0);
  start.setUTCFullYear(year, 0, 1);
  return { wday: d.getUTCDay(), yday: Math.round((d.getTime() - start.getTime()) / 86400000) };
}

/** interval(): `[-][D+]H:MM:SS` with leading zero fields omitted. */
export function intervalText(n: number): string {
  let s = Math.trunc(n);
  let sign = "";
  if (s < 0) {
    sign = "-";
    s = -s;
  }
  const days = Math.floor(s / 86400);
  const hrs = Math.floor((s % 86400) / 3600);
  const mins = Math.floor((s % 3600) / 60);
  const secs = s % 60;
  if (days) return `${sign}${days}+${pad2(hrs)}:${pad2(mins)}:${pad2(secs)}`;
  if (hrs) return `${sign}${hrs}:${pad2(mins)}:${pad2(secs)}`;
  if (mins) return `${sign}${mins}:${pad2(secs)}`;
  return `${sign}${secs}`;
}
