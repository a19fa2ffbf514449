/** The closed-loop peak rate a Worker answers one request at, the open-loop benches' reference. */
import autocannon from "autocannon";

/** The closed-loop peak rate (req/s) of POSTs of `body` to `url` after a warm-up, timed from the responses themselves. */
export async function peakRate(url: string, body: string): Promise<number> {
  const opts = {
    url,
    method: "POST" as const,
    headers: { "content-type": "application/json" },
    body,
    connections: 16,
  };
  await autocannon({ ...opts, amount: 2000 });
  let first = 0;
  let last = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon({ ...opts, amount: 4000 }, (error, res) => (error ? fail(error) : done(res)));
    instance.on("response", () => {
      last = performance.now();
      if (first === 0) first = last;
    });
  });
  // autocannon counts its own failures; the open loop's are counted by kind, these only said here
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0)
    console.error(
      `peak rate at ${url}: ${failed} of ${result.requests.total} failed (errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx})`,
    );
  return result.requests.total / ((last - first) / 1000);
}
