#!/usr/bin/env node
// Embeds the playground page (playground/: HTML, CSS, JavaScript modules, icon) in the
// Worker as src/http/playground/assets.generated.json: each file's body, content type
// and ETag. Run by scripts/build-bundle.mjs, so `npm test`, `npm start` (wrangler dev's
// [build] step, again whenever a file under playground/ changes) and `wrangler deploy`
// all serve the page as it is in the checkout; nobody runs a build of their own.
// The code editor (playground/codemirror/, CodeMirror 6 from npm) is the one file that
// is built: esbuild bundles and minifies it into `/playground/codemirror.js`.
import { createHash } from "node:crypto";
import { buildSync } from "esbuild";
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

/** The code editor's modules and the CodeMirror packages they import, as one minified ES module. */
export function bundleEditor() {
  const out = buildSync({
    entryPoints: [join(SOURCE, "codemirror/index.js")],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

/** Writes the embedded asset table; `index.html` is served at `/`, every other file at `/playground/<name>`. */
export function buildPlaygroundAssets() {
  const files = {};
  const add = (name, body) => {
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    files[name === "index.html" ? "/" : `/playground/${name}`] = { type: TYPES[extname(name)], etag, body };
  };
  for (const name of readdirSync(SOURCE).sort()) {
    if (TYPES[extname(name)] === undefined) continue;
    add(name, readFileSync(join(SOURCE, name), "utf8"));
  }
  add("codemirror.js", bundleEditor());
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
