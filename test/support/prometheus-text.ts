/**
 * A strict reader of the Prometheus text exposition format, version 0.0.4, for
 * tests of `GET /metrics`. Written against the format's specification (the
 * Prometheus documentation, "Exposition formats", text-based format) and the
 * reference parser's refusals (prometheus/common expfmt/text_parse.go, whose
 * error cases test/http/prometheus-text.test.ts replays): it rejects anything
 * the spec forbids rather than guessing, and checks the rules a scrape must
 * keep beyond line syntax — HELP and TYPE once and before the samples, each
 * family in one group, unique series, histogram buckets in increasing `le`
 * order with `+Inf` equal to `_count` and never decreasing, `_sum` and
 * `_count` present, counters never negative.
 *
 * Why not an npm parser: the one in wide use, parse-prometheus-text-format
 * 1.1.1, was last released in 2019 and is lenient by design (it returns values
 * as strings, accepts bad names, unterminated label values, misplaced TYPE
 * lines and histograms without `+Inf`), so a scrape passing it proves little;
 * no maintained, strict JavaScript parser of the 0.0.4 format exists. The
 * reference parser itself (Go) checks the served scrape too when `promtool`
 * is installed (test/http/metrics-promtool.test.ts).
 */

/** One sample line. */
export interface ParsedSample {
  /** The full name on the line (`x_bucket`, `x_sum`, …). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
  /** 1-based line number. */
  line: number;
}

/** One metric family: its declared type and help, and its samples in order. */
export interface ParsedFamily {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help?: string;
  samples: ParsedSample[];
}

/** A refusal, naming the 1-based line. */
export class ExpositionError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
// What Go's strconv.ParseFloat accepts, less the hex, octal, binary and underscore forms the reference parser refuses.
const FLOAT =
  /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])$/;
const TIMESTAMP = /^-?\d+$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** Reads a float as Go's ParseFloat would, or undefined. */
export function parseGoFloat(text: string): number | undefined {
  if (!FLOAT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/^\+/, "");
  if (lower === "nan" || lower === "-nan") return NaN;
  if (/^-?inf(inity)?$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
  return Number(text);
}

/** The family a sample name belongs to, given the family in progress and the declared types. */
function familyOf(
  name: string,
  types: Map<string, ParsedFamily["type"]>,
): { family: string; suffix: "" | "_bucket" | "_sum" | "_count" } {
  for (const suffix of ["_bucket", "_sum", "_count"] as const) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return { family: base, suffix };
  }
  return { family: name, suffix: "" };
}

/** Reads a label set starting at `{`; returns the labels and the index after `}`. */
function readLabels(
  line: string,
  start: number,
  at: number,
): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  const skip = () => {
    while (line[i] === " " || line[i] === "\t") i++;
  };
  for (;;) {
    skip();
    if (line[i] === "}") return { labels, end: i + 1 };
    const name = LABEL_NAME.exec(line.slice(i))?.[0];
    if (name === undefined) throw new ExpositionError(at, "invalid label name");
    if (name.startsWith("__")) throw new ExpositionError(at, `label name \`${name}\` is reserved`);
    if (Object.hasOwn(labels, name)) throw new ExpositionError(at, `duplicate label name \`${name}\``);
    i += name.length;
    skip();
    if (line[i] !== "=") throw new ExpositionError(at, "expected '=' after label name");
    i++;
    skip();
    if (line[i] !== '"') throw new ExpositionError(at, "expected '\"' at start of label value");
    i++;
    let value = "";
    for (;;) {
      const ch = line[i];
      if (ch === undefined) throw new ExpositionError(at, "label value not terminated");
      if (ch === '"') break;
      if (ch === "\\") {
        const next = line[i + 1];
        if (next === "\\" || next === '"') value += next;
        else if (next === "n") value += "\n";
        else throw new ExpositionError(at, "invalid escape sequence in label value");
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    if (value.includes("\uFFFD")) throw new ExpositionError(at, "label value is not valid UTF-8");
    labels[name] = value;
    i++;
    skip();
    if (line[i] === ",") {
      i++;
      continue;
    }
    if (line[i] === "}") return { labels, end: i + 1 };
    throw new ExpositionError(at, "unexpected end of label value");
  }
}

/** Reads a HELP docstring: `\\` and `\n` are the only escapes. */
function unescapeHelp(text: string, at: number): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") {
      out += text[i];
      continue;
    }
    const next = text[++i];
    if (next === "\\") out += "\\";
    else if (next === "n") out += "\n";
    else throw new ExpositionError(at, "invalid escape sequence in HELP");
  }
  return out;
}

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",")}}`;

/** Checks what a family's type demands of its samples once the family is complete. */
function checkFamily(f: ParsedFamily): void {
  if (f.type === "counter") {
    for (const s of f.samples)
      if (s.value < 0) throw new ExpositionError(s.line, `counter \`${f.name}\` is negative`);
  }
  if (f.type !== "histogram") return;
  const groups = new Map<
    string,
    { buckets: ParsedSample[]; sum?: ParsedSample; count?: ParsedSample; line: number }
  >();
  for (const s of f.samples) {
    const { le: _le, ...rest } = s.labels;
    const key = seriesKey("", rest);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { buckets: [], line: s.line }));
    if (s.name === `${f.name}_bucket`) {
      if (s.labels.le === undefined) throw new ExpositionError(s.line, "histogram bucket without `le`");
      if (parseGoFloat(s.labels.le) === undefined)
        throw new ExpositionError(s.line, "expected float as value for 'le' label");
      g.buckets.push(s);
    } else if (s.name === `${f.name}_sum`) g.sum = s;
    else if (s.name === `${f.name}_count`) g.count = s;
    else throw new ExpositionError(s.line, `histogram \`${f.name}\` has a sample named \`${s.name}\``);
  }
  for (const g of groups.values()) {
    let previousLe = -Infinity;
    let previousCount = 0;
    for (const b of g.buckets) {
      const le = parseGoFloat(b.labels.le) as number;
      if (!(le > previousLe))
        throw new ExpositionError(b.line, "histogram buckets are not in increasing `le` order");
      if (b.value < previousCount) throw new ExpositionError(b.line, "histogram bucket counts decrease");
      previousLe = le;
      previousCount = b.value;
    }
    const inf = g.buckets.at(-1);
    if (inf === undefined || parseGoFloat(inf.labels.le) !== Infinity)
      throw new ExpositionError(g.line, `histogram \`${f.name}\` has no \`le="+Inf"\` bucket`);
    if (g.sum === undefined || g.count === undefined)
      throw new ExpositionError(g.line, `histogram \`${f.name}\` lacks \`_sum\` or \`_count\``);
    if (g.count.value !== inf.value)
      throw new ExpositionError(g.count.line, "histogram `_count` differs from its `+Inf` bucket");
  }
}

/** Parses a scrape, refusing anything the format forbids; families by name, in order of appearance. */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  if (text.includes("\r")) throw new ExpositionError(1, "lines must end with a line feed only");
  const lines = text.split("\n");
  if (lines.at(-1) !== "")
    throw new ExpositionError(lines.length, "unexpected end of input stream (no final line feed)");
  lines.pop();
  const families = new Map<string, ParsedFamily>();
  const types = new Map<string, ParsedFamily["type"]>();
  const helps = new Set<string>();
  const series = new Set<string>();
  const closed = new Set<string>();
  let current: ParsedFamily | undefined;

  const enter = (name: string, at: number): ParsedFamily => {
    if (current?.name === name) return current;
    if (closed.has(name)) throw new ExpositionError(at, `the lines of \`${name}\` are not one group`);
    if (current !== undefined) {
      checkFamily(current);
      closed.add(current.name);
    }
    let family = families.get(name);
    if (family === undefined)
      families.set(name, (family = { name, type: types.get(name) ?? "untyped", samples: [] }));
    current = family;
    return family;
  };

  lines.forEach((raw, index) => {
    const at = index + 1;
    const line = raw.replace(/^[ \t]+|[ \t]+$/g, "");
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^#[ \t]+(HELP|TYPE)(?:[ \t]+|$)(.*)$/.exec(line);
      if (m === null) return; // a plain comment
      const [, keyword, rest] = m;
      const name = METRIC_NAME.exec(rest)?.[0];
      if (name === undefined || (rest.length > name.length && !/^[ \t]/.test(rest.slice(name.length)))) {
        throw new ExpositionError(at, "invalid metric name in comment");
      }
      const tail = rest.slice(name.length).replace(/^[ \t]+/, "");
      const family = enter(name, at);
      if (keyword === "HELP") {
        if (helps.has(name)) throw new ExpositionError(at, `second HELP line for metric name \`${name}\``);
        helps.add(name);
        family.help = unescapeHelp(tail, at);
      } else {
        if (types.has(name) || family.samples.length > 0)
          throw new ExpositionError(
            at,
            `second TYPE line for metric name \`${name}\`, or TYPE reported after samples`,
          );
        if (!TYPES.has(tail)) throw new ExpositionError(at, "unknown metric type");
        types.set(name, tail as ParsedFamily["type"]);
        family.type = tail as ParsedFamily["type"];
      }
      return;
    }
    const name = METRIC_NAME.exec(line)?.[0];
    if (name === undefined) throw new ExpositionError(at, "invalid metric name");
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === "{") ({ labels, end: i } = readLabels(line, i, at));
    else if (line[i] !== " " && line[i] !== "\t") throw new ExpositionError(at, "invalid metric name");
    const fields = line
      .slice(i)
      .trim()
      .split(/[ \t]+/);
    if (fields.length === 0 || fields[0] === "") throw new ExpositionError(at, "expected a value");
    if (fields.length > 2) throw new ExpositionError(at, "spurious string after timestamp");
    const value = parseGoFloat(fields[0]);
    if (value === undefined) throw new ExpositionError(at, "expected float as value");
    if (fields.length === 2 && !TIMESTAMP.test(fields[1]))
      throw new ExpositionError(at, "expected integer as timestamp");
    const { family: familyName, suffix } = familyOf(name, types);
    const family = enter(familyName, at);
    if (
      family.type === "summary" &&
      suffix === "" &&
      labels.quantile !== undefined &&
      parseGoFloat(labels.quantile) === undefined
    ) {
      throw new ExpositionError(at, "expected float as value for 'quantile' label");
    }
    const key = seriesKey(name, labels);
    if (series.has(key)) throw new ExpositionError(at, `duplicate series ${key}`);
    series.add(key);
    family.samples.push({
      name,
      labels,
      value,
      ...(fields.length === 2 ? { timestamp: Number(fields[1]) } : {}),
      line: at,
    });
  });
  if (current !== undefined) checkFamily(current);
  return families;
}

/** The value of one series of a parsed scrape, or undefined when the scrape has no such series. */
export function findSample(
  families: Map<string, ParsedFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const { family } = familyOf(name, new Map([...families].map(([n, f]) => [n, f.type])));
  const want = seriesKey(name, labels);
  for (const s of families.get(family)?.samples ?? [])
    if (seriesKey(s.name, s.labels) === want) return s.value;
  return undefined;
}
