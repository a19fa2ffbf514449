/**
 * Absolute and relative time: the library's lenient string forms, their
 * unparsed text, broken-down components and strftime. The service runs in
 * UTC, so "local time" is UTC throughout.
 */
import { AbsTime } from "./values.js";

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

/** C `%g` (6 significant digits, trailing zeros dropped), padded to width 2 with zeros. */
function fmtG2(x: number): string {
  let t = Number(x.toPrecision(6)).toString();
  if (t.includes("e")) t = x.toPrecision(6);
  return t.length < 2 ? "0" + t : t;
}

/** The text inside `relTime("...")`: `[-][D+]HH:MM:SS`, leading zero fields omitted. */
export function relTimeBody(r: number): string {
  let out = "";
  if (r < 0) {
    out = "-";
    r = -r;
  }
  const frac = r - Math.floor(r);
  let days = Math.trunc(r);
  let hrs = days % 86400;
  let mins = hrs % 3600;
  const secs = (mins % 60) + frac;
  days = Math.trunc(days / 86400);
  hrs = Math.trunc(hrs / 3600);
  mins = Math.trunc(mins / 60);
  const sec = frac === 0 ? pad2(Math.trunc(secs)) : fmtG2(secs);
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

/** gmtime: the broken-down UTC fields of epoch seconds. */
export function gmtime(secs: number): Tm {
  // JS dates span ±8.64e12 s; clamp so out-of-range times still print (and NaN reads as the epoch)
  const s = Number.isNaN(secs) ? 0 : Math.max(-8.64e12, Math.min(8.64e12, Math.floor(secs)));
  const d = new Date(s * 1000);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return {
    year: d.getUTCFullYear(),
    mon: d.getUTCMonth(),
    mday: d.getUTCDate(),
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    wday: d.getUTCDay(),
    yday: Math.floor((d.getTime() - start) / 86400000),
  };
}

/** The text inside `absTime("...")`: local fields in the value's offset plus `±hh:mm`. */
export function absTimeBody(t: AbsTime): string {
  const tm = gmtime(t.secs + t.offset);
  let tz = t.offset;
  let sign = "-";
  if (tz > 0) sign = "+";
  else tz = -tz;
  const y = String(tm.year).padStart(4, "0");
  return `${y}-${pad2(tm.mon + 1)}-${pad2(tm.mday)}T${pad2(tm.hour)}:${pad2(tm.min)}:${pad2(tm.sec)}${sign}${pad2(Math.trunc(tz / 3600))}:${pad2(Math.trunc(tz / 60) % 60)}`;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

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
      case "a": out += (DAYS[tm.wday] ?? "???").slice(0, 3); break;
      case "A": out += DAYS[tm.wday] ?? "?"; break;
      case "b": case "h": out += (MONTHS[tm.mon] ?? "???").slice(0, 3); break;
      case "B": out += MONTHS[tm.mon] ?? "?"; break;
      case "c": out += strftime(tm, "%a %b %e %H:%M:%S %Y"); break;
      case "C": out += pad2(Math.floor(tm.year / 100)); break;
      case "d": out += pad2(tm.mday); break;
      case "D": out += strftime(tm, "%m/%d/%y"); break;
      case "e": out += String(tm.mday).padStart(2, " "); break;
      case "F": out += strftime(tm, "%Y-%m-%d"); break;
      case "H": out += pad2(tm.hour); break;
      case "I": out += pad2(tm.hour % 12 === 0 ? 12 : tm.hour % 12); break;
      case "j": out += String(tm.yday + 1).padStart(3, "0"); break;
      case "m": out += pad2(tm.mon + 1); break;
      case "M": out += pad2(tm.min); break;
      case "n": out += "\n"; break;
      case "p": out += tm.hour < 12 ? "AM" : "PM"; break;
      case "r": out += strftime(tm, "%I:%M:%S %p"); break;
      case "R": out += strftime(tm, "%H:%M"); break;
      case "S": out += pad2(tm.sec); break;
      case "t": out += "\t"; break;
      case "T": out += strftime(tm, "%H:%M:%S"); break;
      case "u": out += String(tm.wday === 0 ? 7 : tm.wday); break;
      case "U": out += pad2(weekNo(tm, false)); break;
      case "w": out += String(tm.wday); break;
      case "W": out += pad2(weekNo(tm, true)); break;
      case "x": out += strftime(tm, "%m/%d/%y"); break;
      case "X": out += strftime(tm, "%H:%M:%S"); break;
      case "y": out += pad2(tm.year % 100); break;
      case "Y": out += String(tm.year); break;
      case "z": out += "+0000"; break;
      case "Z": out += "GMT"; break;
      case "%": out += "%"; break;
      default: out += "%" + f;
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
