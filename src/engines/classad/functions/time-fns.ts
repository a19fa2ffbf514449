/**
 * Time built-ins: time, currentTime, timeZoneOffset, dayTime, absTime,
 * relTime, splitTime, formatTime, the get* accessors and interval. Every
 * read of the clock goes through the state so the verdict is marked
 * non-cacheable.
 */
import { adFromValues, ClassAd } from "../classad.js";
import type { EvalState } from "../state.js";
import { cInt32, dayNumbers, gmtime, intervalText, strftime, type Tm } from "../time.js";
import { AbsTime, ERROR, ListValue, Real, RelTime, UNDEF, isInt, realToInt, type Value } from "../values.js";
import { toInt, type Builtin } from "./helpers.js";

/** C `(int)` of an int64: the low 32 bits as a signed number. */
function int32(v: number | bigint): number {
  return Number(BigInt.asIntN(32, BigInt(v)));
}

function nowAbs(st: EvalState): AbsTime {
  return new AbsTime(Math.floor(st.nowSeconds()), 0);
}

function noArgs(fn: (st: EvalState) => Value): Builtin {
  return (args, _ad, st) => (args.length > 0 ? ERROR : fn(st));
}

const absTime: Builtin = (args, ad, st) => {
  if (args.length === 0) return nowAbs(st);
  if (args.length > 2) return ERROR;
  const a = args[0](ad, st);
  let offset = 0;
  if (args.length === 2) {
    const b = args[1](ad, st);
    if (isInt(b)) offset = int32(b);
    else if (b instanceof Real) offset = cInt32(b.v);
    else if (b instanceof RelTime) offset = cInt32(b.secs);
    else return ERROR;
  }
  if (a === UNDEF) return UNDEF;
  if (isInt(a)) return new AbsTime(int32(a), offset);
  if (a instanceof Real) return new AbsTime(cInt32(a.v), offset);
  if (a instanceof RelTime) return new AbsTime(cInt32(a.secs), offset);
  if (a instanceof AbsTime || typeof a === "string") return a;
  return ERROR;
};

const relTime: Builtin = (args, ad, st) => {
  if (args.length !== 1) return ERROR;
  const a = args[0](ad, st);
  if (a === UNDEF) return UNDEF;
  if (isInt(a)) return new RelTime(int32(a));
  if (a instanceof Real) return new RelTime(a.v);
  if (a instanceof RelTime) return a;
  if (a instanceof AbsTime) return new RelTime(a.secs);
  if (typeof a === "string") return new RelTime(0);
  return ERROR;
};

/** The broken-down ad of a time value, or null when the value is not a time. */
export function splitOf(v: Value): ClassAd | null {
  let abs: AbsTime | null = null;
  if (isInt(v)) abs = new AbsTime(Number(v), 0);
  else if (v instanceof Real) abs = new AbsTime(cInt32(v.v), 0);
  else if (v instanceof AbsTime) abs = v;
  if (abs !== null) {
    const tm = gmtime(abs.secs + abs.offset);
    return adFromValues([
      ["Type", "AbsoluteTime"],
      ["Year", tm.year],
      ["Month", tm.mon + 1],
      ["Day", tm.mday],
      ["Hours", tm.hour],
      ["Minutes", tm.min],
      ["Seconds", tm.sec],
      ["Offset", abs.offset],
    ]);
  }
  if (v instanceof RelTime) {
    // relTimeToClassAd (fnCall.cpp), on C ints: beyond the int range the fields are INT_MIN's
    let r = v.secs;
    const neg = r < 0;
    if (neg) r = -r;
    let days = cInt32(r);
    let hrs = days % 86400;
    let mins = hrs % 3600;
    let secs = (mins % 60) + (r - Math.floor(r));
    days = Math.trunc(days / 86400);
    hrs = Math.trunc(hrs / 3600);
    mins = Math.trunc(mins / 60);
    if (neg) {
      if (days > 0) days = -days;
      else if (hrs > 0) hrs = -hrs;
      else if (mins > 0) mins = -mins;
      else secs = -secs;
    }
    return adFromValues([
      ["Type", "RelativeTime"],
      ["Days", realToInt(days)],
      ["Hours", realToInt(hrs)],
      ["Minutes", realToInt(mins)],
      ["Seconds", new Real(secs)],
    ]);
  }
  if (v instanceof ClassAd) return v;
  return null;
}

const splitTime: Builtin = (args, ad, st) => {
  if (args.length !== 1) return ERROR;
  const v = args[0](ad, st);
  if (v === UNDEF) return UNDEF;
  if (v instanceof ClassAd) return ERROR;
  return splitOf(v) ?? ERROR;
};

function intAttr(ad: ClassAd, name: string, st: EvalState): number | null {
  const slot = ad.get(name);
  if (slot === undefined) return null;
  const v = slot.c.ev(ad, st);
  const i = toInt(v);
  return isInt(i) ? Number(i) : null;
}

const formatTime: Builtin = (args, ad, st) => {
  if (args.length === 0) return strftime(gmtime(Math.floor(st.nowSeconds())), "%c");
  if (args.length > 2) return ERROR;
  const t = args[0](ad, st);
  if (t instanceof RelTime) return ERROR;
  const split = splitOf(t);
  if (split === null) return ERROR;
  const year = intAttr(split, "year", st);
  const month = intAttr(split, "month", st);
  const mday = intAttr(split, "day", st) ?? 0;
  const tm: Tm = {
    sec: intAttr(split, "seconds", st) ?? 0,
    min: intAttr(split, "minutes", st) ?? 0,
    hour: intAttr(split, "hours", st) ?? 0,
    mday,
    mon: month === null ? 0 : month - 1,
    year: year ?? 1900,
    wday: 0,
    yday: 0,
  };
  const dn = dayNumbers(tm.year, tm.mon + 1, tm.mday);
  tm.wday = dn.wday;
  tm.yday = dn.yday;
  if (args.length === 1) return strftime(tm, "%c");
  const f = args[1](ad, st);
  if (typeof f !== "string") return ERROR;
  return strftime(tm, f);
};

function getField(field: string): Builtin {
  return (args, ad, st) => {
    if (args.length !== 1) return ERROR;
    const v = args[0](ad, st);
    if (v instanceof AbsTime) {
      const tm = gmtime(v.secs);
      switch (field) {
        case "year":
          return tm.year;
        case "month":
          return tm.mon + 1;
        case "dayofyear":
          return tm.yday;
        case "dayofmonth":
          return tm.mday;
        case "dayofweek":
          return tm.wday;
        case "hours":
          return tm.hour;
        case "minutes":
          return tm.min;
        case "seconds":
          return tm.sec;
        default:
          return ERROR;
      }
    }
    if (v instanceof RelTime) {
      const r = Math.trunc(v.secs);
      switch (field) {
        case "days":
          return realToInt(Math.trunc(r / 86400));
        case "hours":
          return realToInt(Math.trunc((r % 86400) / 3600));
        case "minutes":
          return realToInt(Math.trunc((r % 3600) / 60));
        case "seconds":
          return realToInt(r % 60);
        default:
          return ERROR;
      }
    }
    return ERROR;
  };
}

const interval: Builtin = (args, ad, st) => {
  if (args.length !== 1) return ERROR;
  const v = args[0](ad, st);
  if (v instanceof ListValue || v instanceof ClassAd) return ERROR;
  const i = toInt(v);
  if (!isInt(i)) return ERROR;
  return intervalText(int32(i));
};

/** The time built-ins by lower-cased name. */
export const TIME: ReadonlyArray<readonly [string, Builtin]> = [
  ["time", noArgs((st) => Math.floor(st.nowSeconds()))],
  ["currenttime", noArgs(nowAbs)],
  ["timezoneoffset", noArgs((st) => (st.nowSeconds(), new RelTime(0)))],
  ["daytime", noArgs((st) => new RelTime(Math.floor(st.nowSeconds()) % 86400))],
  ["abstime", absTime],
  ["reltime", relTime],
  ["splittime", splitTime],
  ["formattime", formatTime],
  ["getyear", getField("year")],
  ["getmonth", getField("month")],
  ["getdayofyear", getField("dayofyear")],
  ["getdayofmonth", getField("dayofmonth")],
  ["getdayofweek", getField("dayofweek")],
  ["gethours", getField("hours")],
  ["getminutes", getField("minutes")],
  ["getseconds", getField("seconds")],
  ["getdays", getField("days")],
  ["interval", interval],
];
