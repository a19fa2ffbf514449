/** Builtins defined in jq itself, compiled once (lazily, per function) at module load. */

export const PRELUDE = `
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type | . == "array" or . == "object");
def scalars: select(type | . != "array" and . != "object");
def map(f): [.[] | f];
def map_values(f): .[] |= f;
def with_entries(f): to_entries | map(f) | from_entries;
def recurse(f; cond): def r: ., (f | select(cond) | r); r;
def del(f): delpaths([path(f)]);
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def any(generator; condition): isempty(first(generator | condition or empty)) | not;
def all(generator; condition): isempty(first(generator | condition and empty));
def all(condition): all(.[]; condition);
def any(condition): any(.[]; condition);
def all: all(.[]; .);
def any: any(.[]; .);
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def last(f): reduce f as $x (null; $x);
def first: .[0];
def last: .[-1];
def nth($n): .[$n];
def finites: select(isfinite);
def normals: select(isnormal);
def combinations:
  if length == 0 then []
  else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w
  end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def transpose: [range(0; map(length) | max // 0) as $i | [.[][$i]]];
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(f): { x: null, e: false } as $init
  | foreach f as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
def debug(msg): (msg | debug | empty), .;
def JOIN($idx; key): [.[] | [., $idx[key]]];
def JOIN($idx; rows; key): rows | [., $idx[key]];
def JOIN($idx; rows; key; combine): rows | [., $idx[key]] | combine;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def halt_error: halt_error(5);
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def todate: todateiso8601;
def fromdate: fromdateiso8601;
def scan($re): scan($re; null);
def scan($re; $flags): match($re; "g" + ($flags // ""))
  | if (.captures | length) > 0 then [.captures[].string] else .string end;
def splits($re): splits($re; null);
def splits($re; flags): split($re; flags) | .[];
def sub(re; str): sub(re; str; "");
def gsub(re; str): sub(re; str; "g");
def gsub(re; str; flags): sub(re; str; flags + "g");
`;
