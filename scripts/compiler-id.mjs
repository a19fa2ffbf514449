// The compiler's fingerprint (issue 24, "/healthz answers within 100 ms"): a SHA-256 of the
// code that compiles policies (src/engines, src/jq, src/bundle, tests and generated files
// left out) and of package-lock.json. scripts/build-bundle.mjs writes it into the embedded
// bundle as `compiler`; the Worker stamps every bundle it compiles with it, and a publish
// takes an unchanged engine's compiled entry from the active bundle only when that bundle
// carries the same fingerprint. Any change to that code makes a new one, so a bundle made
// by another build is compiled again in full rather than trusted.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOTS = ["src/engines", "src/jq", "src/bundle"];

/** The files of a folder, recursively, as sorted relative paths. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|js|mjs|json)$/.test(entry.name) && !/\.test\.ts$|\.generated\./.test(entry.name))
      out.push(path);
  }
  return out;
}

/** The fingerprint of the compiler in this checkout (`root`, the repository's folder). */
export function compilerId(root = ".") {
  const hash = createHash("sha256");
  const files = ROOTS.flatMap((r) => filesUnder(join(root, r)))
    .map((f) => relative(root, f).split("\\").join("/"))
    .sort();
  for (const file of [...files, "package-lock.json"]) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}
