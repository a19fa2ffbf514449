/** Built-in jq modules for pScheduler scripts (`import "pscheduler/iso8601" as iso;`). */

const ISO8601 = String.raw`
def invalid_duration(v): error("Invalid ISO 8601 duration '\(v)'");
def duration_as_seconds(v):
  if (v | type) != "string" then invalid_duration(v)
  else
    v | ascii_upcase
    | capture("^P(?:(?<weeks>[0-9]+)W(?=[0-9]+D))?(?:(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:\\.[0-9]*)?)S)?)?$|^(?<invalid>.*)$")
    | if .invalid != null then invalid_duration(v)
      else ((.weeks // "0") | tonumber) * 604800 + ((.days // "0") | tonumber) * 86400
        + ((.hours // "0") | tonumber) * 3600 + ((.minutes // "0") | tonumber) * 60
        + ((.seconds // "0") | tonumber)
      end
  end;
def timestamp_parsed(ts):
  ([ts | capture("^(?<year>[0-9]{4,})-(?<month>[0-9]{1,2})-(?<day>[0-9]{1,2})(?:T(?<hour>[0-9]{1,2}):(?<minute>[0-9]{1,2})(?::(?<second>[0-9]{1,2}))?(?:(?<z>Z)|(?<sign>[+-])(?<offset_hr>[0-9]{2})(?::(?<offset_min>[0-9]{2}))?)?)?")] | .[0]) as $m
  | if $m == null then error("Invalid timestamp '\(ts)'")
    else
      (if $m.sign == "-" then -1 else 1 end) as $sign
      | $m
      | reduce ("year", "month", "day", "hour", "minute", "second") as $k ({};
          if $m[$k] != null then .[$k] = ($m[$k] | tonumber) else . end)
      | if $m.z != null then .offset_hr = 0 | .offset_min = 0
        elif $m.offset_hr != null then
          .offset_hr = $sign * ($m.offset_hr | tonumber)
          | if $m.offset_min != null then .offset_min = $sign * ($m.offset_min | tonumber) else . end
        else . end
    end;
`;

const SI = String.raw`
def multiplier(prefix):
  {"k": 1000, "m": 1000000, "g": 1000000000, "t": 1000000000000, "p": 1000000000000000,
   "e": 1000000000000000000, "z": 1000000000000000000000, "y": 1000000000000000000000000,
   "ki": 1024, "mi": 1048576, "gi": 1073741824, "ti": 1099511627776, "pi": 1125899906842624,
   "ei": 1152921504606846976, "zi": 1180591620717411303424, "yi": 1208925819614629174706176}[prefix];
def invalid(v): error("Invalid SI Number '\(v)'");
def as_integer(v):
  if (v | type) == "number" then v
  elif (v | type) == "string" then
    v | ascii_downcase
    | ([capture("^(?<n>[0-9]+(?:\\.[0-9]+)?)(?<u>[kmgtpezy]i?)?$")] | .[0]) as $m
    | if $m == null then invalid(v)
      else ($m.n | tonumber) * (if $m.u == null then 1 else multiplier($m.u) end) | floor
      end
  else invalid(v) end;
`;

/** Module name → jq source of the modules every program may import. */
export const BUILTIN_MODULES: Record<string, string> = {
  "pscheduler/iso8601": ISO8601,
  "pscheduler/si": SI,
};
