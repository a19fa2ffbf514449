/** Date builtins in UTC: gmtime, mktime, strftime, strptime, now. */
import type { Json } from "../engines/common/json.js";
import { def0, defV } from "./builtins-define.js";
import { civilFromDays, daysFromCivil, weekday } from "./civil-time.js";
import { S } from "./runtime.js";
import { fail, numOf } from "./values.js";
import { DAY_NAMES, MONTH_NAMES } from "../engines/common/calendar.js";

const GMTIME_ERROR = "error converting number of seconds since epoch to datetime";

function gmtime(t: number): Json[] {
  // C's (time_t) cast truncates toward zero (and gives up past 2^63); the fraction is taken from
  // floor, as jq 1.7.1 does; glibc fails when the year does not fit tm_year (an int)
  if (!(Math.abs(t) < 2 ** 63)) return fail(GMTIME_ERROR);
  const whole = Math.trunc(t);
  const days = Math.floor(whole / 86400);
  const secs = whole - days * 86400;
  const [y, mo, d] = civilFromDays(days);
  if (y - 1900 > 2147483647 || y - 1900 < -2147483648) return fail(GMTIME_ERROR);
  const h = Math.floor(secs / 3600);
  const mi = Math.floor((secs % 3600) / 60);
  // (+ 0 turns the -0 of an input -0 into 0, as C's integers have no negative zero)
  return [
    y,
    mo,
    d,
    h,
    mi,
    (secs % 60) + (t - Math.floor(t)) + 0,
    weekday(days),
    days - daysFromCivil(y, 0, 1) + 0,
  ];
}

function isTm(v: Json): v is number[] {
  return Array.isArray(v) && v.length >= 6 && v.every((x) => typeof numOf(x) === "number");
}

/** A broken-down time with any literal-carrying numbers read as doubles. */
function tmOf(v: number[]): number[] {
  return v.map((x) => numOf(x) as number);
}

/** timegm: fields are truncated to integers (C's int fields) and may overflow into the next field. */
function timegm(tm: number[]): number {
  const [y, mo, d, h, mi, s] = tm.map(Math.trunc);
  return (daysFromCivil(y, mo, 1) + d - 1) * 86400 + h * 3600 + mi * 60 + s;
}

def0("gmtime", (i0) => {
  const i = numOf(i0);
  return typeof i === "number" ? gmtime(i) : fail("gmtime() requires numeric inputs");
});
def0("localtime", (i0) => {
  const i = numOf(i0);
  return typeof i === "number" ? gmtime(i) : fail("localtime() requires numeric inputs");
});
def0("mktime", (i) => {
  if (!Array.isArray(i)) return fail("mktime requires array inputs");
  if (!isTm(i)) return fail("mktime requires parsed datetime inputs");
  // timegm's error value -1 is also the time 1969-12-31T23:59:59Z, which jq therefore refuses
  const t = timegm(tmOf(i));
  return t === -1 ? fail("invalid gmtime representation") : t;
});
def0("now", () => S.now ?? Date.now() / 1000);

const p2 = (n: number): string => String(Math.trunc(n)).padStart(2, "0");

function strftime(tm: number[], fmt: string): string {
  const [y, mo, d, h, mi, s] = tm;
  const wday = tm[6] ?? weekday(daysFromCivil(y, mo, d));
  const yday = tm[7] ?? 0;
  const weekNum = (startMonday: boolean): number => {
    const wd = startMonday ? (wday + 6) % 7 : wday;
    return Math.floor((yday + 7 - wd) / 7);
  };
  const iso = (): [number, number] => {
    const thursday = daysFromCivil(y, mo, d) + (3 - ((wday + 6) % 7));
    const isoYear = civilFromDays(thursday)[0];
    return [isoYear, 1 + Math.floor((thursday - daysFromCivil(isoYear, 0, 1)) / 7)];
  };
  let out = "";
  for (let k = 0; k < fmt.length; k++) {
    const c = fmt[k];
    if (c !== "%") {
      out += c;
      continue;
    }
    const f = fmt[++k];
    switch (f) {
      case "Y":
        out += String(y);
        break;
      case "C":
        out += p2(Math.floor(y / 100));
        break;
      case "y":
        out += p2(((y % 100) + 100) % 100);
        break;
      case "m":
        out += p2(mo + 1);
        break;
      case "d":
        out += p2(d);
        break;
      case "e":
        out += String(d).padStart(2, " ");
        break;
      case "H":
        out += p2(h);
        break;
      case "k":
        out += String(h).padStart(2, " ");
        break;
      case "I":
        out += p2(h % 12 === 0 ? 12 : h % 12);
        break;
      case "l":
        out += String(h % 12 === 0 ? 12 : h % 12).padStart(2, " ");
        break;
      case "M":
        out += p2(mi);
        break;
      case "S":
        out += p2(Math.floor(s));
        break;
      case "j":
        out += String(yday + 1).padStart(3, "0");
        break;
      case "a":
        out += (DAY_NAMES[wday] ?? "?").slice(0, 3);
        break;
      case "A":
        out += DAY_NAMES[wday] ?? "?";
        break;
      case "b":
      case "h":
        out += (MONTH_NAMES[mo] ?? "?").slice(0, 3);
        break;
      case "B":
        out += MONTH_NAMES[mo] ?? "?";
        break;
      case "p":
        out += h < 12 ? "AM" : "PM";
        break;
      case "P":
        out += h < 12 ? "am" : "pm";
        break;
      case "Z":
        out += "UTC";
        break;
      case "z":
        out += "+0000";
        break;
      case "T":
        out += `${p2(h)}:${p2(mi)}:${p2(Math.floor(s))}`;
        break;
      case "R":
        out += `${p2(h)}:${p2(mi)}`;
        break;
      case "D":
        out += `${p2(mo + 1)}/${p2(d)}/${p2(((y % 100) + 100) % 100)}`;
        break;
      case "F":
        out += `${y}-${p2(mo + 1)}-${p2(d)}`;
        break;
      case "c":
        out += `${DAY_NAMES[wday]?.slice(0, 3)} ${MONTH_NAMES[mo]?.slice(0, 3)} ${String(d).padStart(2, " ")} ${p2(h)}:${p2(mi)}:${p2(Math.floor(s))} ${y}`;
        break;
      case "x":
        out += `${p2(mo + 1)}/${p2(d)}/${p2(((y % 100) + 100) % 100)}`;
        break;
      case "X":
        out += `${p2(h)}:${p2(mi)}:${p2(Math.floor(s))}`;
        break;
      case "s":
        out += String(timegm(tm));
        break;
      case "u":
        out += String(wday === 0 ? 7 : wday);
        break;
      case "w":
        out += String(wday);
        break;
      case "U":
        out += p2(weekNum(false));
        break;
      case "W":
        out += p2(weekNum(true));
        break;
      case "G":
        out += String(iso()[0]);
        break;
      case "g":
        out += p2(((iso()[0] % 100) + 100) % 100);
        break;
      case "V":
        out += p2(iso()[1]);
        break;
      case "n":
        out += "\n";
        break;
      case "t":
        out += "\t";
        break;
      case "%":
        out += "%";
        break;
      default:
        out += "%" + (f ?? "");
    }
  }
  return out;
}

function strftimeFn(name: string) {
  return (i0: Json, f: Json): Json => {
    const i = numOf(i0);
    const tm = typeof i === "number" ? gmtime(i) : i;
    if (!isTm(tm)) return fail(`${name}/1 requires parsed datetime inputs`);
    if (typeof f !== "string") return fail(`${name}/1 requires a string format`);
    // jq hands strftime a struct tm: every field truncated to an integer
    return strftime(tmOf(tm).map(Math.trunc), f);
  };
}
defV("strftime", 1, strftimeFn("strftime"));
defV("strflocaltime", 1, strftimeFn("strflocaltime"));

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function strptime(input: string, fmt: string): Json[] {
  const tm = [0, 0, 0, 0, 0, 0];
  let year = 1900;
  let wday = -1;
  let yday = -1;
  let dateParsed = false;
  let pm: boolean | null = null;
  let pos = 0;
  const bad = (): never => fail(`date "${input}" does not match format "${fmt}"`);
  // glibc's numeric fields: leading white space skipped, at most n digits and no more once another
  // digit would pass `to`, then the range check that rejects month 13, day 32, hour 24...
  const num = (from: number, to: number, n: number): number => {
    while (pos < input.length && /\s/.test(input[pos])) pos++;
    if (!isDigit(input, pos)) return bad();
    let v = 0;
    do v = v * 10 + (input.charCodeAt(pos++) - 48);
    while (--n > 0 && v * 10 <= to && isDigit(input, pos));
    return v < from || v > to ? bad() : v;
  };
  const name = (list: string[]): number => {
    const rest = input.slice(pos).toLowerCase();
    for (let j = 0; j < list.length; j++) {
      const full = list[j].toLowerCase();
      if (rest.startsWith(full)) {
        pos += full.length;
        return j;
      }
      if (rest.startsWith(full.slice(0, 3))) {
        pos += 3;
        return j;
      }
    }
    return bad();
  };
  const run = (f: string): void => {
    for (let k = 0; k < f.length; k++) {
      const c = f[k];
      if (/\s/.test(c)) {
        while (pos < input.length && /\s/.test(input[pos])) pos++;
        continue;
      }
      if (c !== "%") {
        if (input[pos] !== c) bad();
        pos++;
        continue;
      }
      const s = f[++k];
      switch (s) {
        case "Y":
          year = num(0, 9999, 4);
          dateParsed = true;
          break;
        case "C":
          year = num(0, 99, 2) * 100 + (year % 100);
          dateParsed = true;
          break;
        case "y": {
          const v = num(0, 99, 2);
          year = v < 69 ? 2000 + v : 1900 + v;
          dateParsed = true;
          break;
        }
        case "m":
          tm[1] = num(1, 12, 2) - 1;
          dateParsed = true;
          break;
        case "d":
        case "e":
          tm[2] = num(1, 31, 2);
          dateParsed = true;
          break;
        case "H":
        case "k":
          tm[3] = num(0, 23, 2);
          break;
        case "I":
        case "l":
          tm[3] = num(1, 12, 2) % 12;
          break;
        case "M":
          tm[4] = num(0, 59, 2);
          break;
        case "S":
          tm[5] = num(0, 61, 2);
          break;
        case "j":
          yday = num(1, 366, 3) - 1;
          break;
        case "a":
        case "A":
          wday = name(DAY_NAMES);
          break;
        case "b":
        case "B":
        case "h":
          tm[1] = name(MONTH_NAMES);
          dateParsed = true;
          break;
        case "p": {
          const r = input.slice(pos, pos + 2).toUpperCase();
          if (r !== "AM" && r !== "PM") bad();
          pm = r === "PM";
          pos += 2;
          break;
        }
        case "Z": {
          const m = /^[A-Za-z]+/.exec(input.slice(pos));
          if (m) pos += m[0].length;
          break;
        }
        case "z": {
          const m = /^(?:Z|[+-]\d{2}:?\d{2})/.exec(input.slice(pos));
          if (!m) bad();
          else pos += m[0].length;
          break;
        }
        case "T":
          run("%H:%M:%S");
          break;
        case "R":
          run("%H:%M");
          break;
        case "D":
          run("%m/%d/%y");
          break;
        case "F":
          run("%Y-%m-%d");
          break;
        case "s": {
          const m = /^[0-9]+/.exec(input.slice(pos));
          if (m === null) return bad();
          pos += m[0].length;
          const t = gmtime(Number(m[0])) as number[];
          year = t[0];
          for (let j = 1; j < 6; j++) tm[j] = t[j];
          dateParsed = true;
          break;
        }
        case "u":
          wday = num(1, 7, 1) % 7;
          break;
        case "w":
          wday = num(0, 6, 1);
          break;
        case "U":
        case "W":
        case "V":
          num(0, 53, 2);
          break;
        case "n":
        case "t":
          while (pos < input.length && /\s/.test(input[pos])) pos++;
          break;
        case "%":
          if (input[pos] !== "%") bad();
          pos++;
          break;
        default:
          bad();
      }
    }
  };
  run(fmt);
  if (pm !== null) tm[3] = (tm[3] % 12) + (pm ? 12 : 0);
  tm[0] = year;
  let wd = 8;
  let yd = 367;
  if (dateParsed) {
    const t = daysFromCivil(year, tm[1], tm[2]);
    wd = weekday(t);
    yd = t - daysFromCivil(year, 0, 1);
  }
  if (wday >= 0) wd = wday;
  if (yday >= 0) yd = yday;
  const out: Json[] = [...tm, wd, yd];
  if (pos < input.length) {
    if (/\s/.test(input[pos])) out.push(input.slice(pos));
    else bad();
  }
  return out;
}

defV("strptime", 1, (i, f) => {
  if (typeof i !== "string" || typeof f !== "string")
    return fail("strptime/1 requires string inputs and arguments");
  return strptime(i, f);
});
