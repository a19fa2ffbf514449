import { afterEach, describe, expect, it, vi } from "vitest";
import { readAd } from "../../src/engines/classad/ad-input.js";
import { parseMatchRequest } from "../../src/engines/classad/match.js";
import { unparseAd } from "../../src/engines/classad/unparse.js";

const JOB =
  '[ Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64"; RequestMemory = 1024; Rank = TARGET.Memory; Owner = "alice" ]';

function slot(i: number, extra = ""): string {
  return `[ Name = "slot${i}"; Arch = "X86_64"; Memory = ${512 * (i + 1)}; Requirements = true${extra} ]`;
}

/** What reading each machine alone gives (no other text read beside it), as parseMatchRequest reports it. */
function alone(machines: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < machines.length; i++) {
    const r = readAd(machines[i]);
    if (!r.ok) {
      out.push(`error \`machines[${i}]\`: ${r.error.message} at ${r.error.at}`);
      break;
    }
    out.push(unparseAd(r.ad));
  }
  return out;
}

/**
 * What the request's reading gives, in the same form: the ads read when it reads all, else the ads
 * before the first bad one (read as a request of those alone) and its error.
 */
function together(machines: readonly unknown[], schedd?: unknown): string[] {
  const p = parseMatchRequest(schedd === undefined ? { job: JOB, machines } : { job: JOB, machines, schedd });
  if (p.ok) return p.value.machines.map(unparseAd);
  const bad = /^`machines\[(\d+)\]`/.exec(p.error.message);
  const before = bad === null ? [] : together(machines.slice(0, Number(bad[1])), schedd);
  return [...before, `error ${p.error.message}`];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a match request's ad texts encoded ahead (char-codes.ts aheadBegin)", () => {
  it("encodes the job's and the machines' texts in one call", () => {
    const encodeInto = vi.spyOn(TextEncoder.prototype, "encodeInto");
    const machines = Array.from({ length: 8 }, (_, i) => slot(i));
    const p = parseMatchRequest({ job: JOB, machines });
    expect(p.ok).toBe(true);
    expect(encodeInto).toHaveBeenCalledTimes(1);
    expect(together(machines)).toEqual(alone(machines));
  });

  it("reads each ad as it reads it alone: non-ASCII texts, errors after multi-byte characters, long texts, many texts", () => {
    const long = `[ Name = "big"; Pad = "${"x".repeat(9000)}"; Memory = 1 ]`;
    const cases: unknown[][] = [
      // a non-ASCII text among ASCII ones (the batch is filled text by text), then an error after it
      [slot(0), slot(1, '; Owner = "zoë名"'), slot(2), '[ Name = "é名"; Memory = 3 +; ]'],
      // the second text's bytes, were they read two places early (名 is three bytes), would be `\n\nName…1234`
      ['[ Name = "名"; Memory = 1 ]\n\n', 'Name = "b"\nMemory = 123456'],
      // an error's column after multi-byte characters, in an ASCII-only batch before it
      [slot(0), slot(1), '[ Name = "ascii"; Memory = 1 ]', '[ X = "名名名"; Memory = * 2 ]'],
      ['[ Name = "a🙂b"; Memory = 1; Requirements = Memory > ]'],
      // old form, JSON text, a JSON object, and an ad longer than the window
      [
        slot(0),
        'Name = "old"\nMemory = 2048\nArch = "X86_64"\n',
        '{"Name": "json", "Memory": 4096}',
        { Name: "obj", Memory: 1 },
        long,
        slot(5),
      ],
      // more texts than one batch holds, and more text than its room: later batches
      Array.from({ length: 300 }, (_, i) => slot(i)),
      Array.from({ length: 40 }, (_, i) => slot(i, `; Pad = "${"p".repeat(2000)}"`)),
      // an error in a later batch, after multi-byte characters in an earlier one
      [
        ...Array.from({ length: 259 }, (_, i) => slot(i, i === 3 ? '; Owner = "ü"' : "")),
        '[ Name = "late"; Memory = ( ]',
      ],
      // a text the quick reader gives up on (a quoted name), read whole from its own bytes
      [slot(0), "[ 'Odd Name' = 1; Name = \"q\"; Memory = 1 ]", slot(2)],
    ];
    for (const machines of cases) expect(together(machines)).toEqual(alone(machines));
  });

  it("reads a schedd's text and a job's text that are not new-syntax ads, and machines given as one text", () => {
    const machines = [slot(0), slot(1)];
    const schedd = '[ Name = "schedd1"; Owner = "bø" ]';
    expect(together(machines, schedd)).toEqual(alone(machines));
    const one = parseMatchRequest({
      job: JOB,
      machines: 'Name = "s0"\nMemory = 1\n\nName = "s1"\nMemory = 2\n',
    });
    expect(one.ok && one.value.machines.map(unparseAd)).toEqual(
      ['Name = "s0"\nMemory = 1\n', 'Name = "s1"\nMemory = 2\n'].map((t) => {
        const r = readAd(t);
        return r.ok ? unparseAd(r.ad) : r.error.message;
      }),
    );
    const badJob = parseMatchRequest({ job: '[ Owner = "ñ"; Rank = ]', machines });
    const alone1 = readAd('[ Owner = "ñ"; Rank = ]');
    expect(badJob.ok ? "" : badJob.error.message).toBe(
      alone1.ok ? "" : `\`job\`: ${alone1.error.message} at ${alone1.error.at}`,
    );
  });
});
