/**
 * Bundles the A/B harness's rows (bench/ab/rows.ts) against one checkout of
 * the project: every import of the harness's own `src/` is redirected into that
 * checkout's `src/`, so the same rows run on the code of either tree. A module
 * in OPTIONAL that the tree lacks becomes an empty module.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Modules an older tree may lack; the rows check for their exports. */
const OPTIONAL = new Set([
  "engines/common/budget.ts",
  "engines/common/exact-json.ts",
  "engines/placement/store.ts",
]);

interface Esbuild {
  build(options: object): Promise<unknown>;
}

interface ResolveArgs {
  path: string;
  importer: string;
  resolveDir: string;
}

/** The esbuild the project already has (through tsx and wrangler). */
export function loadEsbuild(): Esbuild {
  const require = createRequire(import.meta.url);
  return require("esbuild") as Esbuild;
}

/** `src` of the harness's own checkout. */
const OWN_SRC = path.resolve(import.meta.dirname, "../../src");

/**
 * Bundles `entry` to `outfile` with imports of this checkout's src/ pointing into `treeRoot`'s;
 * `worker` resolves packages as wrangler does for workerd (ESM builds), else for Node.
 */
export async function bundleFor(
  entry: string,
  outfile: string,
  treeRoot: string,
  worker = true,
): Promise<void> {
  const treeSrc = path.resolve(treeRoot, "src");
  const redirect = {
    name: "tree",
    setup(build: {
      onResolve(o: { filter: RegExp }, cb: (a: ResolveArgs) => object | undefined): void;
      onLoad(o: { filter: RegExp; namespace: string }, cb: () => object): void;
    }) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = path.resolve(args.resolveDir, args.path);
        if (!target.startsWith(OWN_SRC + path.sep)) return undefined;
        // only the harness's own files are redirected; files inside a tree resolve within it
        if (args.importer.startsWith(treeSrc + path.sep) || args.importer.startsWith(OWN_SRC + path.sep))
          return undefined;
        const rel = path.relative(OWN_SRC, target).replace(/\.js$/, ".ts");
        const file = path.join(treeSrc, rel);
        if (existsSync(file)) return { path: file };
        if (OPTIONAL.has(rel)) return { path: rel, namespace: "absent" };
        throw new Error(`${treeRoot} has no src/${rel}`);
      });
      build.onLoad({ filter: /.*/, namespace: "absent" }, () => ({ contents: "export {};", loader: "js" }));
    },
  };
  await loadEsbuild().build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    ...(worker
      ? { platform: "neutral", mainFields: ["module", "main"], conditions: ["workerd", "worker", "browser"] }
      : { platform: "node" }),
    outfile,
    logLevel: "error",
    plugins: [redirect],
    // each tree's own node_modules (zod, yaml) are found from its src/
    nodePaths: [path.join(treeRoot, "node_modules")],
  });
}
