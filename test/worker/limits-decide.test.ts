import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, decideLimits, dohHits, setDohRecords, throughputTask } from "./fakes.js";

// Decisions through the Worker on the embedded policy (the perfSONAR toolkit default, spec §15).
// The toolkit's `bogons` identifier asks the loopback DoH fake, which answers NXDOMAIN unless a
// test sets a record; LOCAL_ADDRESSES is "192.0.2.1,2001:db8::1" in the test bindings.

const bogonName = (ipv4: string) => `${ipv4.split(".").reverse().join(".")}.v4.fullbogons.cymru.com`;

describe("POST /v1/limits/decide on the toolkit policy", () => {
  it("allows a modest throughput test from an ordinary requester, with the envelope", async () => {
    const { status, body, response } = await decideLimits({
      requester: "203.0.113.5",
      task: throughputTask({ parallel: 2 }),
    });
    expect(status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(body.allowed).toBe(true);
    expect(body.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof body.revision).toBe("string");
    expect(body.identifiers).toEqual(["everybody"]);
    expect(body.classifiers).toEqual(["default"]);
    expect(body.diagnostics).toContain("Proposal meets limits");
    // The bogon identifier asked DNS (NXDOMAIN with a 60 s SOA TTL from the fake): cacheable for that long.
    expect(body.cacheable).toBe(true);
    expect(await dohHits(bogonName("203.0.113.5"), "A")).toBeGreaterThanOrEqual(1);
  });

  it("denies with HTTP 200, allowed false and the limit's message", async () => {
    const { status, body } = await decideLimits({
      requester: "203.0.113.6",
      task: throughputTask({ parallel: 10 }),
    });
    expect(status).toBe(200);
    expect(body.allowed).toBe(false);
    expect(body.diagnostics).toContain("Throughput may only have six or fewer parallel streams.");
    expect(body.diagnostics).toContain("Proposal does not meet limits");
  });

  it("denies the `hackers` network outright", async () => {
    const { body } = await decideLimits({ requester: "198.51.100.7", task: throughputTask() });
    expect(body.allowed).toBe(false);
    expect(body.identifiers).toContain("hackers");
    expect(body.classifiers).toContain("hostiles");
    expect(body.diagnostics).toContain("Failed; stop forced");
  });

  it("uses CF-Connecting-IP when the body names no requester, and then is not cacheable", async () => {
    const hostile = await decideLimits({ task: throughputTask() }, { "CF-Connecting-IP": "198.51.100.9" });
    expect(hostile.body.allowed).toBe(false);
    expect(hostile.body.identifiers).toContain("hackers");
    expect(hostile.body.diagnostics).toContain("requester: 198.51.100.9");
    expect(hostile.body.cacheable).toBe(false);

    const friendly = await decideLimits({ task: throughputTask() }, { "CF-Connecting-IP": "203.0.113.9" });
    expect(friendly.body.allowed).toBe(true);
    expect(friendly.body.diagnostics).toContain("requester: 203.0.113.9");
  });

  it("prefers the body's requester over the connecting address", async () => {
    const { body } = await decideLimits(
      { requester: "203.0.113.10", task: throughputTask() },
      { "CF-Connecting-IP": "198.51.100.9" },
    );
    expect(body.allowed).toBe(true);
    expect(body.diagnostics).toContain("requester: 203.0.113.10");
  });

  it("treats LOCAL_ADDRESSES as the local interfaces (friendlies get 15 streams)", async () => {
    const local = await decideLimits({ requester: "192.0.2.1", task: throughputTask({ parallel: 10 }) });
    expect(local.body.identifiers).toContain("local-interfaces");
    expect(local.body.classifiers).toContain("friendlies");
    expect(local.body.allowed).toBe(true);

    const local6 = await decideLimits({ requester: "2001:db8::1", task: throughputTask({ parallel: 10 }) });
    expect(local6.body.identifiers).toContain("local-interfaces");

    const other = await decideLimits({ requester: "192.0.2.2", task: throughputTask({ parallel: 10 }) });
    expect(other.body.identifiers).not.toContain("local-interfaces");
    expect(other.body.allowed).toBe(false);
  });

  it("identifies a bogon through the DoH resolver and denies it", async () => {
    const requester = "203.0.113.66";
    await setDohRecords(bogonName(requester), "A", ["127.0.0.2"], 300);
    const { body } = await decideLimits({ requester, task: throughputTask() });
    expect(body.identifiers).toContain("bogons");
    expect(body.classifiers).toContain("hostiles");
    expect(body.allowed).toBe(false);
  });

  it("caches a DoH answer per isolate for its TTL", async () => {
    const requester = "203.0.113.67";
    await setDohRecords(bogonName(requester), "A", ["127.0.0.3"], 300);
    await decideLimits({ requester, task: throughputTask() });
    await decideLimits({ requester, task: throughputTask({ parallel: 3 }) });
    expect(await dohHits(bogonName(requester), "A")).toBe(1);
  });

  it("rewrites a short throughput test to the 5-second minimum", async () => {
    const { body } = await decideLimits({
      requester: "203.0.113.11",
      task: throughputTask({ duration: "PT2S" }),
    });
    expect(body.allowed).toBe(true);
    expect((body.task as { test: { spec: { duration: string } } }).test.spec.duration).toBe("PT5S");
    expect(JSON.stringify(body.changes)).toContain("Bumped duration to 5-second minimum");
  });

  it("adds the trace only with ?explain=true", async () => {
    const plain = await decideLimits({ requester: "203.0.113.12", task: throughputTask() });
    expect(plain.body).not.toHaveProperty("trace");
    const res = await SELF.fetch(`${BASE}/v1/limits/decide?explain=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ requester: "203.0.113.12", task: throughputTask() }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty("trace");
  });
});

describe("POST /v1/limits/decide request validation", () => {
  const bad: Array<[string, unknown, string]> = [
    ["no task", { requester: "203.0.113.5" }, "task"],
    ["a task without a test", { task: { schema: 1 } }, "task.test"],
    ["a test without a type", { task: { test: { spec: {} } } }, "task.test.type"],
    ["a spec that is not an object", { task: { test: { type: "throughput", spec: [] } } }, "task.test.spec"],
    ["a misspelt switch", { task: throughputTask(), prioritise: true }, "prioritise"],
    ["a non-boolean rewrite", { task: throughputTask(), rewrite: "yes" }, "rewrite"],
    [
      "a run without a duration",
      { task: throughputTask(), run: { start: "2026-06-01T12:00:00Z" } },
      "run.duration",
    ],
  ];
  it.each(bad)("answers 400 invalid_request for %s", async (_note, body, field) => {
    const res = await SELF.fetch(`${BASE}/v1/limits/decide`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe("invalid_request");
    expect(answer.error.message).toContain(field);
  });

  it("keeps unknown task keys (reference, schedule, tools) and accepts a run", async () => {
    const task = {
      ...throughputTask(),
      reference: { note: "kept" },
      tools: ["iperf3"],
      schedule: { slip: "PT5M" },
    };
    const { status, body } = await decideLimits({
      requester: "203.0.113.13",
      task,
      run: { start: "2026-06-01T12:00:00Z", duration: "PT1M8S" },
      rewrite: false,
      prioritize: true,
    });
    expect(status).toBe(200);
    expect(body.allowed).toBe(true);
    expect(typeof body.priority).toBe("number");
  });
});
