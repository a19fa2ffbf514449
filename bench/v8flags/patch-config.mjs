/**
 * Reads workerd's binary Cap'n Proto config (as Miniflare writes it to workerd's
 * standard input) and writes it back with `Config.v8Flags` (field 2, a pointer)
 * set to the arguments: the list and its texts go in a segment of their own,
 * reached through a far pointer, so the rest of the message is untouched.
 * Miniflare offers no way to pass V8 flags; bench/v8flags/workerd.sh uses this.
 */
import { readFileSync, writeSync } from "node:fs";

const input = readFileSync(0);
const flags = process.argv.slice(2).filter((f) => f !== "");
if (flags.length === 0) {
  writeSync(1, input);
  process.exit(0);
}
const dv = new DataView(input.buffer, input.byteOffset, input.byteLength);
const segments = dv.getUint32(0, true) + 1;
const sizes = Array.from({ length: segments }, (_, i) => dv.getUint32(4 + 4 * i, true));
const headerWords = Math.ceil((4 + 4 * segments) / 8);
const root = headerWords * 8;
const lo = dv.getUint32(root, true);
const hi = dv.getUint32(root + 4, true);
if ((lo & 3) !== 0) throw new Error("the config's root is not a plain struct pointer");
const structWord = 1 + ((lo | 0) >> 2);
const dataWords = hi & 0xffff;
if (hi >>> 16 < 3) throw new Error("the config has no v8Flags pointer");
const slot = root + (structWord + dataWords + 2) * 8;
if (dv.getUint32(slot, true) !== 0 || dv.getUint32(slot + 4, true) !== 0)
  throw new Error("the config sets v8Flags already");

const texts = flags.map((f) => Buffer.from(f + "\0"));
const textWords = texts.map((t) => Math.ceil(t.length / 8));
const words = 1 + flags.length + textWords.reduce((a, b) => a + b, 0);
const seg = Buffer.alloc(words * 8);
// word 0: the landing pad, a list of pointers (element size 6) starting at word 1
seg.writeUInt32LE(1, 0);
seg.writeUInt32LE(((flags.length << 3) | 6) >>> 0, 4);
let at = 1 + flags.length;
texts.forEach((t, i) => {
  const p = 1 + i;
  // a list of bytes (element size 2), the text and its NUL
  seg.writeUInt32LE((((at - p - 1) << 2) | 1) >>> 0, p * 8);
  seg.writeUInt32LE(((t.length << 3) | 2) >>> 0, p * 8 + 4);
  t.copy(seg, at * 8);
  at += textWords[i];
});
const header = Buffer.alloc(Math.ceil((4 + 4 * (segments + 1)) / 8) * 8);
header.writeUInt32LE(segments, 0);
sizes.forEach((s, i) => header.writeUInt32LE(s, 4 + 4 * i));
header.writeUInt32LE(words, 4 + 4 * segments);
const body = Buffer.from(input.subarray(headerWords * 8));
// the far pointer: its landing pad is word 0 of the new segment
body.writeUInt32LE(2, slot - headerWords * 8);
body.writeUInt32LE(segments, slot - headerWords * 8 + 4);
writeSync(1, Buffer.concat([header, body, seg]));
