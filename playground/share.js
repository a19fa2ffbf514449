// @ts-check
/**
 * The page's shareable state and the commands that reproduce a decision.
 * State lives in the URL fragment (never sent to the server): the engine in
 * clear, the policy and request texts deflated and base64url-encoded. Pure:
 * Node tests import it as the browser does.
 */
import { compactJson } from "./locate.js";

/** @typedef {{ engine: string, policy: string, request: string, options?: unknown }} PageState the texts, and the jq pane's options when the engine is jq */

/** @param {Uint8Array} bytes */
function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} text */
function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @param {CompressionStream | DecompressionStream} stream
 */
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/**
 * The fragment (without `#`) that restores a state: `engine=NAME&s=DATA`.
 * @param {PageState} state
 */
export async function encodeState(state) {
  const json = new TextEncoder().encode(
    JSON.stringify({
      p: state.policy,
      r: state.request,
      ...(state.options !== undefined ? { o: state.options } : {}),
    }),
  );
  const packed = await pipe(json, new CompressionStream("deflate-raw"));
  return `engine=${encodeURIComponent(state.engine)}&s=${toBase64Url(packed)}`;
}

/**
 * The state a fragment holds; null when it holds none or cannot be read
 * (a truncated link), so the page falls back to the active policy.
 * @param {string} fragment with or without the leading `#`
 * @returns {Promise<PageState | { engine: string } | null>}
 */
export async function decodeState(fragment) {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const engine = params.get("engine");
  if (engine === null || engine === "") return null;
  const data = params.get("s");
  if (data === null) return { engine };
  try {
    const json = new TextDecoder().decode(
      await pipe(fromBase64Url(data), new DecompressionStream("deflate-raw")),
    );
    const value = JSON.parse(json);
    if (typeof value?.p !== "string" || typeof value?.r !== "string") return { engine };
    return value.o !== undefined
      ? { engine, policy: value.p, request: value.r, options: value.o }
      : { engine, policy: value.p, request: value.r };
  } catch {
    return { engine };
  }
}

/**
 * The body the page posts to `POST /v1/playground/{engine}`, built as text so
 * the request's number literals reach the server exactly as typed.
 * @param {string} policy
 * @param {string} request JSON text
 */
export function playgroundBody(policy, request) {
  return `{"policy":${JSON.stringify(policy)},"request":${compactJson(request)}}`;
}

/** Quotes a word for a POSIX shell. @param {string} text */
export function shellQuote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `curl` sending what Decide sends (`body`, when given, instead of the policy and
 * request: the jq pane's). The admin token is never written out: with auth on, the
 * command reads it from `$ARBITER_ADMIN_TOKEN`.
 * @param {{ origin: string, engine: string, policy: string, request: string, auth: boolean, body?: string }} o
 */
export function curlCommand(o) {
  const auth = o.auth ? ` -H "Authorization: Bearer $ARBITER_ADMIN_TOKEN"` : "";
  const body = o.body ?? playgroundBody(o.policy, o.request);
  return `curl -sS ${shellQuote(`${o.origin}/v1/playground/${o.engine}`)} -H 'Content-Type: application/json'${auth} --data-binary ${shellQuote(body)}`;
}

/**
 * `arbiter eval` deciding the same request under the same policy: one JSON
 * line `{"policy", "input"}` on standard input (the CLI prints the verdict
 * without the trace).
 * @param {{ engine: string, policy: string, request: string }} o
 */
export function evalCommand(o) {
  const line = `{"policy":${JSON.stringify(o.policy)},"input":${compactJson(o.request)}}`;
  return `printf '%s\\n' ${shellQuote(line)} | npx arbiter eval ${o.engine}`;
}
