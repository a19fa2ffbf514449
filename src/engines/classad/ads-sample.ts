/**
 * A sample of ads as `condor_status -l` prints them (ads separated by blank
 * lines, one `Name = value` per line), read only for what lint needs: each
 * ad's type (`MyType`) and the attribute names it defines. Values are not
 * parsed, so reading is one pass over the text.
 */

/** The ad types the negotiator's policy expressions read. */
export type AdKind = "Machine" | "Scheduler" | "Job";

/** One ad of the sample: its kind and its attribute names, lower-cased. */
export interface SampleAd {
  readonly kind: AdKind;
  readonly names: ReadonlySet<string>;
}

const LINE = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/;

function kindOf(myType: string | undefined): AdKind {
  const t = (myType ?? "").replace(/^"|"$/g, "").toLowerCase();
  if (t === "job") return "Job";
  if (t === "scheduler" || t === "submitter") return "Scheduler";
  return "Machine";
}

/** Reads the ads of a sample; an ad without `MyType` is a machine ad (what `condor_status -l` lists by default). */
export function readAdsSample(text: string): SampleAd[] {
  const out: SampleAd[] = [];
  let names = new Set<string>();
  let myType: string | undefined;
  const close = () => {
    if (names.size > 0) out.push({ kind: kindOf(myType), names });
    names = new Set();
    myType = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") {
      close();
      continue;
    }
    const m = LINE.exec(line);
    if (m === null) continue;
    const lc = m[1].toLowerCase();
    names.add(lc);
    if (lc === "mytype") myType = m[2].trim();
  }
  close();
  return out;
}
