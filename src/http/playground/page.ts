import type { Context } from "hono";
import type { AppEnv } from "../../env.js";
import { ApiError } from "../errors.js";
import { files, version } from "./assets.generated.js";

/**
 * One embedded file of the playground page. Its body is the text a function returns:
 * the isolate makes the string on the file's first request, not when it loads the
 * Worker (scripts/build-playground.mjs).
 */
interface Asset {
  readonly type: string;
  readonly etag: string;
  readonly body: () => string;
}

const FILES: Readonly<Record<string, Asset>> = files as Record<string, Asset>;
/** The hash of all the page's files: the HTML refers to them under `/playground/<VERSION>/`. */
const VERSION: string = version;

/**
 * The page may load nothing but its own files and talk to nothing but this
 * Worker: no inline script or style, no other host, no plugins, not framed.
 */
export const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The embedded files' paths (`/` and `/playground/<name>`), for tests. */
export function playgroundPaths(): string[] {
  return Object.keys(FILES);
}

/** The version the page's HTML names its files under (`/playground/<version>/<name>`). */
export function playgroundVersion(): string {
  return VERSION;
}

/**
 * Answers one embedded file with its security headers. Under the current version
 * (`/playground/<version>/<name>`) a file is immutable, cached for a year; elsewhere
 * (the HTML, `/playground/<name>`) it is revalidated each time, a matching
 * `If-None-Match` being a 304. Another version is a 404 (its files are gone).
 */
export function servePlaygroundFile(c: Context<AppEnv>, path: string, version?: string): Response {
  const file = Object.prototype.hasOwnProperty.call(FILES, path) ? FILES[path] : undefined;
  if (file === undefined || (version !== undefined && version !== VERSION))
    throw new ApiError(
      "not_found",
      `no playground file \`${version === undefined ? path : path.replace("/playground/", `/playground/${version}/`)}\``,
    );
  const headers: Record<string, string> = {
    "content-type": file.type,
    etag: file.etag,
    "cache-control": version === undefined ? "no-cache" : "public, max-age=31536000, immutable",
    "content-security-policy": PLAYGROUND_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };
  const match = c.req.header("if-none-match");
  if (match !== undefined && match.split(",").some((t) => t.trim().replace(/^W\//, "") === file.etag))
    return c.body(null, 304, headers);
  return c.body(file.body(), 200, headers);
}
