import type { FetchAnswer, FetchRequest, UrlFetcher } from "../engines/limits/context.js";

/** No single url-fetch waits longer than this, whatever the limit's timeout says (curl's 0 = forever included). */
export const MAX_FETCH_TIMEOUT_MS = 30_000;
/** Bodies are read up to this many bytes; the rest is dropped. */
export const MAX_FETCH_BODY_BYTES = 1 << 20;

/** What the fetcher needs from the outside world; tests may pass their own fetch. */
export interface FetcherOptions {
  fetch?: typeof fetch;
}

/**
 * The UrlFetcher the limits engine's url-fetch limit uses in the Worker and
 * the CLI: one GET with the limit's headers, its timeout (capped at
 * MAX_FETCH_TIMEOUT_MS, the body read included) and its redirect choice.
 * Transfer failures come back as status 400 with curl's text for them, as
 * pScheduler's url_get reports them.
 */
export function httpFetcher(options: FetcherOptions = {}): UrlFetcher {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  return {
    async get(request: FetchRequest): Promise<FetchAnswer> {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return { status: 400, text: "URL using bad/illegal format or missing URL" };
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return {
          status: 400,
          text: `Protocol "${url.protocol.slice(0, -1)}" not supported or disabled in libcurl`,
        };
      }
      const headers = new Headers();
      try {
        for (const [name, value] of request.headers) headers.append(name, value);
      } catch {
        return { status: 400, text: "A header could not be sent as given" };
      }
      const ms =
        request.timeoutMs > 0 ? Math.min(request.timeoutMs, MAX_FETCH_TIMEOUT_MS) : MAX_FETCH_TIMEOUT_MS;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), ms);
      let received = 0;
      try {
        const response = await doFetch(url.href, {
          method: "GET",
          headers,
          redirect: request.followRedirects ? "follow" : "manual",
          signal: controller.signal,
        });
        const body = await readCapped(response, (n) => (received = n));
        return { status: response.status, text: body };
      } catch {
        if (controller.signal.aborted) {
          return {
            status: 400,
            text: `Operation timed out after ${ms} milliseconds with ${received} bytes received`,
          };
        }
        return { status: 400, text: "Couldn't connect to server" };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Reads a body as UTF-8 text, keeping at most MAX_FETCH_BODY_BYTES and reporting progress. */
async function readCapped(response: Response, progress: (bytes: number) => void): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = MAX_FETCH_BODY_BYTES - total;
    chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
    total += Math.min(value.byteLength, room);
    progress(total);
    if (total >= MAX_FETCH_BODY_BYTES) {
      await reader.cancel();
      break;
    }
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

let isolateFetcher: UrlFetcher | undefined;

/** The isolate's fetcher (stateless, made once). */
export function fetcherForIsolate(): UrlFetcher {
  isolateFetcher ??= httpFetcher();
  return isolateFetcher;
}
