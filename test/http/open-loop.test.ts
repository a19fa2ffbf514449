/**
 * The open-loop generator of `npm run bench:open` in its own process
 * (bench/open-loop.ts `openLoopInChild`): against a loopback server that
 * holds its answers once for 300 ms, every request is sent, answered and
 * counted, the hold shows as a silence at least that long, and the child
 * reports its own stall and GC figures. `rotate` gives the order of the
 * measured processes in a round.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longestSilence, openLoopInChild, rotate } from "../../bench/open-loop.js";

const HOLD_MS = 300;
let server: Server;
let url: string;
let seen = 0;

beforeAll(async () => {
  let holdUntil = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen++;
      // from the 50th request on, answers wait until the hold ends (once)
      if (seen === 50) holdUntil = Date.now() + HOLD_MS;
      const wait = Math.max(0, holdUntil - Date.now());
      setTimeout(() => res.end('{"ok":true}'), wait);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/x`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("openLoopInChild", () => {
  it("sends every request from its own process and sees the server's hold", async () => {
    const rate = 200;
    const r = await openLoopInChild({ url, method: "POST", body: '{"a":1}' }, rate, 1);
    expect(r.latencies).toBeInstanceOf(Float64Array);
    expect(r.latencies.length).toBe(200);
    expect(seen).toBe(200);
    expect(r.errors).toBe(0);
    expect(r.errorKinds).toEqual({});
    expect(Array.from(r.latencies).every((l) => Number.isFinite(l) && l > 0)).toBe(true);
    // no answer is sent while the server holds them; the child may record one sent just before late, so half the hold
    expect(longestSilence(r.latencies, rate)).toBeGreaterThanOrEqual(HOLD_MS / 2);
    expect(Number.isFinite(r.loopStall) && r.loopStall >= 0).toBe(true);
    expect(Number.isFinite(r.gcPause) && r.gcPause >= 0).toBe(true);
  }, 30_000);
});

describe("rotate (bench:open's order of processes by round)", () => {
  it("puts each process in each position once over as many rounds as processes, and back", () => {
    const keys = ["worker", "noop", "logging", "baseline"];
    const rounds = keys.map((_, round) => rotate(keys, round));
    expect(rounds[0]).toEqual(keys);
    expect(rounds[1]).toEqual(["noop", "logging", "baseline", "worker"]);
    for (let position = 0; position < keys.length; position++)
      expect(new Set(rounds.map((order) => order[position])).size).toBe(keys.length);
    for (const order of rounds) expect([...order].sort()).toEqual([...keys].sort());
    expect(rotate(keys, keys.length)).toEqual(keys);
    expect(rotate([], 3)).toEqual([]);
  });
});
