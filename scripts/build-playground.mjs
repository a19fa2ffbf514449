#!/usr/bin/env node
// Embeds the playground page (playground/: HTML, CSS, JavaScript modules, icon) in the
// Worker as src/http/playground/assets.generated.json: each file's body, content type
// and ETag. Run by scripts/build-bundle.mjs, so `npm test`, `npm start` (wrangler dev's
// [build] step, again whenever a file under playground/ changes) and `wrangler deploy`
// all serve the page as it is in the checkout; nobody runs a build of their own.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const SOURCE = join(ROOT, "playground");
const OUTPUT = join(ROOT, "src/http/playground/assets.generated.json");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Writes the embedded asset table; `index.html` is served at `/`, every other file at `/playground/<name>`. */
export function buildPlaygroundAssets() {
  const files = {};
  for (const name of readdirSync(SOURCE).sort()) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(join(SOURCE, name), "utf8");
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    files[name === "index.html" ? "/" : `/playground/${name}`] = { type, etag, body };
  }
  const text = JSON.stringify({ files }) + "\n";
  let previous = "";
  try {
    previous = readFileSync(OUTPUT, "utf8");
  } catch {
    // first build
  }
  // Unchanged assets leave the file alone, so wrangler dev does not reload for nothing.
  if (previous !== text) writeFileSync(OUTPUT, text);
  return Object.keys(files).length;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`playground: ${buildPlaygroundAssets()} files embedded`);
