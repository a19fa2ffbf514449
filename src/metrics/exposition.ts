/**
 * The Prometheus text exposition format, version 0.0.4: the families of a
 * scrape, and their rendering. Only what Arbiter exposes is modelled: counters,
 * gauges and histograms, without timestamps.
 */

/** The content type of a scrape's answer. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label pair, name then value. */
export type Label = readonly [string, string];

/** One line of a family: the name's suffix (`_bucket`, `_sum`, `_count`, or none), its labels and its value. */
export interface Sample {
  suffix?: "_bucket" | "_sum" | "_count";
  labels: readonly Label[];
  value: number;
}

/** One metric family: a `# HELP` line, a `# TYPE` line and its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value as the format quotes it: backslash, double quote and line feed escaped. */
function labelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (ch) => (ch === "\n" ? "\\n" : `\\${ch}`));
}

/** A HELP text as the format wants it: backslash and line feed escaped. */
function helpText(v: string): string {
  return v.replace(/[\\\n]/g, (ch) => (ch === "\n" ? "\\n" : "\\\\"));
}

/** A sample value in the spelling Go's ParseFloat reads (`+Inf`, `-Inf`, `NaN` for the non-finite). */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

/**
 * Renders families as one scrape: HELP and TYPE before each family's samples,
 * families in the order given, every line ending in a line feed. Names are
 * checked, since a bad name here is a bug in the caller, never user input.
 */
export function renderExposition(families: readonly MetricFamily[]): string {
  let out = "";
  for (const f of families) {
    if (!METRIC_NAME.test(f.name)) throw new Error(`bad metric name ${f.name}`);
    out += `# HELP ${f.name} ${helpText(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      out += f.name + (s.suffix ?? "");
      if (s.labels.length > 0) {
        out += "{";
        for (let i = 0; i < s.labels.length; i++) {
          const [k, v] = s.labels[i];
          if (!LABEL_NAME.test(k) || k.startsWith("__")) throw new Error(`bad label name ${k}`);
          out += `${i > 0 ? "," : ""}${k}="${labelValue(v)}"`;
        }
        out += "}";
      }
      out += ` ${formatValue(s.value)}\n`;
    }
  }
  return out;
}
