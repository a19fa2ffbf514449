#!/usr/bin/env node
// CI step: `wrangler deploy --dry-run` (which runs wrangler.toml's [build], compiling
// policies/) must succeed, and the Worker it would upload must stay within 1 MiB gzipped.
// Its script must also be Latin-1 throughout: workerd keeps the script's text in every
// isolate, and V8 stores it at two bytes a character when one character is beyond Latin-1
// (an unminified comment's `…` doubled the isolate's heap; docs/performance.md, "The
// isolate's heap"). Prints one line with the size; exits non-zero on any failure.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";

const LIMIT = 1024 * 1024;
/** Runs the dry run into `outdir`; returns the exit code. */
function check(outdir) {
  const wrangler = path.join("node_modules", ".bin", "wrangler");
  const run = spawnSync(wrangler, ["deploy", "--dry-run", "--outdir", outdir], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) {
    console.error(`deploy dry run: wrangler deploy --dry-run failed (exit ${run.status ?? run.signal})`);
    return 1;
  }
  // Everything wrangler would upload: the script and any extra modules, not the source map.
  const files = readdirSync(outdir).filter((f) => /\.(m?js|wasm|json|txt|bin)$/.test(f));
  const gzipped = files.reduce(
    (sum, f) => sum + gzipSync(readFileSync(path.join(outdir, f)), { level: 9 }).length,
    0,
  );
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const ok = files.length > 0 && gzipped <= LIMIT;
  console.log(
    `deploy dry run: ${files.join(", ") || "no module"} is ${kib(gzipped)} gzipped (limit ${kib(LIMIT)})${ok ? "" : ": too large"}`,
  );
  let wide = 0;
  for (const f of files.filter((f) => /\.m?js$/.test(f))) {
    const text = readFileSync(path.join(outdir, f), "utf8");
    const at = text.search(/[^\u0000-\u00ff]/);
    if (at < 0) continue;
    wide++;
    const line = text.slice(0, at).split("\n").length;
    console.error(
      `deploy dry run: ${f} has a character beyond Latin-1 (U+${text.codePointAt(at).toString(16).toUpperCase().padStart(4, "0")} at line ${line}, ` +
        `"${text.slice(Math.max(0, at - 30), at + 10)}"): V8 would keep the whole script in every isolate at two bytes a character; ` +
        "escape it, or keep it out of what wrangler bundles",
    );
  }
  return ok && wide === 0 ? 0 : 1;
}

const outdir = mkdtempSync(path.join(tmpdir(), "arbiter-deploy-"));
const code = check(outdir);
rmSync(outdir, { recursive: true, force: true });
process.exit(code);
