#!/usr/bin/env node
// Embeds the playground page (playground/: HTML, CSS, JavaScript modules, icon) in the
// Worker as src/http/playground/assets.generated.js: each file's content type and ETag,
// and its body as the text a function returns, so that an isolate makes the 400 KB of
// strings only when it first serves the page (V8 compiles a function, and so makes its
// literals, on its first call; an isolate that only decides never does). Run by scripts/build-bundle.mjs, so `npm test`, `npm start` (wrangler dev's
// [build] step, again whenever a file under playground/ changes) and `wrangler deploy`
// all serve the page as it is in the checkout; nobody runs a build of their own.
// Two files are built by esbuild (bundled and minified): the page's own modules, from
// app.js down, as one `/playground/app.js` (one request instead of a dozen on a fresh
// load), and the code editor (playground/codemirror/, CodeMirror 6 from npm) as
// `/playground/codemirror.js`, which app.js imports when it starts. The page refers to
// its files under `/playground/<version>/`, the version a hash of them all, where they
// are served as immutable: a reload asks for the HTML alone (docs/architecture.md).
import { createHash } from "node:crypto";
import { buildSync } from "esbuild";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const SOURCE = join(ROOT, "playground");
const OUTPUT = join(ROOT, "src/http/playground/assets.generated.js");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** The page's modules that app.js imports (a module the page loads as written), as one minified ES module. */
export function bundlePage() {
  return bundle("app.js");
}

/** The code editor's modules and the CodeMirror packages they import, as one minified ES module. */
export function bundleEditor() {
  return bundle("codemirror/index.js");
}

/** One entry point under playground/ and what it imports, as one minified ES module. */
function bundle(entry) {
  const out = buildSync({
    entryPoints: [join(SOURCE, entry)],
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

/** The files of the page not bundled into app.js: loaded by the HTML itself. */
const LOADED_AS_WRITTEN = new Set(["boot.js"]);

/**
 * Writes the embedded asset table; `index.html` is served at `/`, every other file at
 * `/playground/<name>` and at `/playground/<version>/<name>`, which the HTML refers to.
 */
export function buildPlaygroundAssets() {
  const files = {};
  const tag = (body) => createHash("sha256").update(body).digest("base64url").slice(0, 22);
  const add = (name, body) => {
    files[name === "index.html" ? "/" : `/playground/${name}`] = {
      type: TYPES[extname(name)],
      etag: `"${tag(body)}"`,
      body,
    };
  };
  for (const name of readdirSync(SOURCE).sort()) {
    if (TYPES[extname(name)] === undefined || name === "index.html") continue;
    if (extname(name) === ".js" && !LOADED_AS_WRITTEN.has(name)) continue;
    add(name, readFileSync(join(SOURCE, name), "utf8"));
  }
  add("app.js", bundlePage());
  add("codemirror.js", bundleEditor());
  // The version names every file's content: any change gives the page new URLs.
  const version = tag(
    Object.keys(files)
      .sort()
      .map((path) => `${path} ${files[path].etag}`)
      .join("\n"),
  ).slice(0, 12);
  const html = readFileSync(join(SOURCE, "index.html"), "utf8").replaceAll(
    '"/playground/',
    `"/playground/${version}/`,
  );
  add("index.html", html);
  const entries = Object.keys(files).map((path) => {
    const { type, etag, body } = files[path];
    return `  ${JSON.stringify(path)}: { type: ${JSON.stringify(type)}, etag: ${JSON.stringify(etag)}, body: () => ${JSON.stringify(body)} },`;
  });
  const text = [
    "// Written by scripts/build-playground.mjs from playground/; do not edit.",
    `export const version = ${JSON.stringify(version)};`,
    "export const files = {",
    ...entries,
    "};",
    "",
  ].join("\n");
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

if (import.meta.url === `file://${process.argv[1]}`)
  console.log(`playground: ${buildPlaygroundAssets()} files embedded`);
