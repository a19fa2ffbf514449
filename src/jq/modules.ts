/** Built-in jq modules for pScheduler scripts (`import "pscheduler/iso8601" as iso;`). */

// These definitions behave as pScheduler 5.2's jq library (pscheduler-jq-library:
// iso8601.jq, si.jq) does under jq 1.7.1: the same regular expressions up to group
// structure (alternatives, anchors and named groups as there), the same steps after
// the capture, the same error texts. Natives in modules-native.ts replace the hot ones.
const ISO8601 = String.raw`
def invalid_duration(v): error("Invalid ISO 8601 duration '\(v)'");
def duration_as_seconds(v):
  if (v | type) == "string" then
    v
    | ascii_upcase
    | capture("^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))$")
    | if .invalid != null then invalid_duration(v) else . end
    | del(.invalid)
    | map_values(if . == null then 0 else tonumber end)
    | .weeks * 604800 + .days * 86400 + .hours * 3600 + .minutes * 60 + .seconds
  else invalid_duration(v) end;
def timestamp_parsed(ts):
  ts
  | capture("^(?<year>[0-9]{4,})-(?<month>[0-9]{1,2})-(?<day>[0-9]{1,2})(?:T(?<hour>[0-9]{1,2}):(?<minute>[0-9]{1,2})(?::(?<second>[0-9]{1,2}))?(?:(?<z>Z)|(?<offset_hr>[-+][0-9]{2})(?::(?<offset_min>[0-9]{2}))?)?)?|(?<invalid>.*)$")
  | if .invalid != null then error("Invalid timestamp '\(.invalid)'") else . end
  | if .z != null then .offset_hr = "0" | .offset_min = "0" else . end
  | del(.z)
  | with_entries(select(.value != null) | .value |= tonumber);
`;

const SI = String.raw`
def multiplier(prefix):
  {"": 1, "k": 1000, "m": 1000000, "g": 1000000000, "t": 1000000000000, "p": 1000000000000000,
   "e": 1000000000000000000, "z": 1000000000000000000000, "y": 1000000000000000000000000,
   "ki": 1024, "mi": 1048576, "gi": 1073741824, "ti": 1099511627776, "pi": 1125899906842624,
   "ei": 1152921504606846976, "zi": 1180591620717411303424, "yi": 1208925819614629174706176}[prefix];
def invalid(v): error("Invalid SI Number '\(v)'");
def as_integer(v):
  if (v | type) == "string" then
    v
    | ascii_downcase
    | capture("^(?:(?<number>[0-9]+(?:[.][0-9]+)?)(?<unit>(?:[kmgtpezy]i?)?)|(?<invalid>.*))$") as $c
    | if $c.invalid == null then ($c.number | tonumber) * multiplier($c.unit) | floor else invalid(v) end
  elif (v | type) == "number" then v
  else invalid(v) end;
`;

/** Module name → jq source of the modules every program may import. */
export const BUILTIN_MODULES: Record<string, string> = {
  "pscheduler/iso8601": ISO8601,
  "pscheduler/si": SI,
};
