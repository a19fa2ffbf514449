/**
 * The open-loop generator of `npm run bench:open` in its own process
 * (bench/open-loop.ts `openLoopInChild`): against a loopback server that
 * holds its answers once for 300 ms, every request is sent, answered and
 * counted, the hold shows as a silence at least that long, and the child
 * reports its own stall and GC figures. In its own process too (`openLoop`),
 * the generator closes a keep-alive connection left idle (workerd closes one
 * 5 s after its last answer, and a request written on it then fails) and
 * counts an answer cut off mid-body as an error. `rotate` gives the order of
 * the measured processes in a round.
 */
import type { Socket } from "node:net";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  longestSilence,
  openLoop,
  openLoopInChild,
  pooledQuantile,
  quantile,
  rotate,
} from "../../bench/open-loop.js";

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

describe("openLoop's connections", () => {
  it("closes a connection idle longer than idleMs and counts an answer cut off mid-body", async () => {
    // 120 requests in 0.6 s; two holds of the answers (the first opens many connections, the second
    // needs many again ~350 ms after the first's end), request 60's answer cut off after its head;
    // the server notes how long each reused connection had been idle before its next request
    const idleBefore: number[] = [];
    const lastAnswer = new WeakMap<Socket, number>();
    let n = 0;
    let holdUntil = 0;
    const holds = new Map([
      [20, 150],
      [100, 100],
    ]);
    const idleServer = createServer((req, res) => {
      const previous = lastAnswer.get(req.socket);
      if (previous !== undefined) idleBefore.push(performance.now() - previous);
      req.resume();
      req.on("end", () => {
        n++;
        const hold = holds.get(n);
        if (hold !== undefined) holdUntil = performance.now() + hold;
        if (n === 60) {
          res.writeHead(200, { "content-length": "10" });
          res.write("abc", () => req.socket.destroy());
          return;
        }
        setTimeout(
          () => res.end("ok", () => lastAnswer.set(req.socket, performance.now())),
          Math.max(0, holdUntil - performance.now()),
        );
      });
    });
    await new Promise<void>((done) => idleServer.listen(0, "127.0.0.1", done));
    const address = idleServer.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const r = await openLoop(
        { url: `http://127.0.0.1:${port}/x`, method: "POST", body: "{}" },
        200,
        0.6,
        30,
      );
      expect(n).toBe(120);
      expect(r.latencies.length).toBe(120);
      // the first hold's connections, were they kept, reused by the second after ~350 ms idle
      expect(idleBefore.length).toBeGreaterThan(0);
      expect(Math.max(...idleBefore)).toBeLessThan(200);
      expect(r.errorKinds).toEqual({ "ECONNRESET mid-answer": 1 });
      expect(r.errors).toBe(1);
    } finally {
      idleServer.closeAllConnections();
      await new Promise<void>((done) => idleServer.close(() => done()));
    }
  }, 10_000);
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

describe("pooledQuantile (bench:open's statistic over all rounds)", () => {
  it("takes every round's requests together, not the rounds' own quantiles", () => {
    // a quiet window and one whose tail is a single stall of 300 slow requests
    const quiet = Float64Array.from({ length: 10_000 }, (_, i) => 1 + (i % 10) / 10);
    const stalled = Float64Array.from({ length: 10_000 }, (_, i) => (i < 300 ? 200 - i / 10 : 2));
    expect(quantile(quiet, 0.99)).toBeCloseTo(1.9);
    expect(quantile(stalled, 0.99)).toBeCloseTo(190);
    // 20,000 requests: the p99 is the 201st slowest, the stall's request due 20 ms into it
    expect(pooledQuantile([quiet, stalled], 0.99)).toBeCloseTo(180);
    expect(pooledQuantile([stalled], 0.99)).toBe(quantile(stalled, 0.99));
    expect(pooledQuantile([], 0.99)).toBeUndefined();
  });
});
