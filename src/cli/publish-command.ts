import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMBEDDED_POINTER, type Bundle } from "../bundle/index.js";
import { ENGINE_NAMES, type EngineName } from "../engines/common/engine.js";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { allowedMissing, bundleFromDir, lookedFor } from "./policy-files.js";
import { embeddedBundle, readBundle, readPointer, wranglerKv, type KvTarget } from "./wrangler-kv.js";

export const PUBLISH_USAGE = `usage: arbiter publish [--local | --remote] [--persist-to DIR] [--allow-missing ENGINE]... [DIR]
       arbiter publish [--local | --remote] [--persist-to DIR] --reset

Compiles DIR (default: policies) and, only if every policy is valid, writes the
bundle to the POLICIES KV namespace through wrangler: first bundle:<revision>,
then the pointer bundle:current. --local writes wrangler dev's local state
(the default; --persist-to chooses its folder, as for wrangler dev); --remote
writes the deployed namespace.

Policy files are recognised as by \`arbiter compile\` (limits.conf, queues.yaml,
condor_config and *.config too), and every engine found and not found is named
on stderr. The active bundle of the target (the one bundle:current points at,
or the Worker's embedded bundle when there is no pointer) keeps serving every
engine it serves: publish refuses a bundle that would drop one of them unless
--allow-missing ENGINE names it (repeatable).

A published bundle takes precedence over the bundle embedded in the Worker
(compiled from policies/ by npm start and deploy). --reset drops it: it sets
bundle:current to "embedded", after which the Worker (wrangler dev with
--local) serves its embedded bundle again within BUNDLE_REFRESH_SECONDS, and
the next publish builds on it. Stored bundle:<revision> entries stay, for
rolling back.
Exit status: 0 done, 1 refused, invalid or wrangler failed, 2 usage.
`;

interface Active {
  engines: EngineName[];
  description: string;
}

/** What the target serves now: the bundle its pointer names, else the embedded bundle (every engine if unbuilt). */
function activeBundle(target: KvTarget): { ok: true; value: Active } | { ok: false; failure: string } {
  const pointer = readPointer(target);
  if (!pointer.ok) return pointer;
  const where = `${target.where} KV`;
  let bundle: Bundle | null = null;
  if (pointer.revision !== null) {
    bundle = readBundle(target, pointer.revision);
    if (bundle !== null) {
      return {
        ok: true,
        value: {
          engines: enginesOf(bundle),
          description: `the bundle published in ${where} (revision ${pointer.revision.slice(0, 12)})`,
        },
      };
    }
  }
  bundle = embeddedBundle();
  const description = `the embedded bundle (${where} holds no published bundle)`;
  return {
    ok: true,
    value: { engines: bundle === null ? [...ENGINE_NAMES] : enginesOf(bundle), description },
  };
}

function enginesOf(bundle: Bundle): EngineName[] {
  return ENGINE_NAMES.filter((e) => bundle.engines[e] !== undefined);
}

/**
 * Points `bundle:current` at the embedded bundle. A written marker rather than a
 * deleted key, so the policy coordinator adopts it and the next API publish
 * builds on the embedded bundle; the stored bundles stay, for rollback.
 */
function reset(target: KvTarget, io: Io): number {
  const put = wranglerKv(["key", "put", "bundle:current", EMBEDDED_POINTER], target);
  if (!put.ok) return (io.stderr(`${put.failure}\n`), 1);
  io.stdout(`dropped the published bundle (${target.where}): the Worker serves its embedded bundle again\n`);
  return 0;
}

/** `arbiter publish`: compile, check nothing served is dropped, then write bundle and pointer to KV with wrangler. */
export async function publishCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--persist-to", "--allow-missing"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(PUBLISH_USAGE), 0);
  refuseUnknownSwitches(args, ["--local", "--remote", "--reset"], PUBLISH_USAGE);
  if (args.positional.length > 1 || (args.switches.has("--local") && args.switches.has("--remote"))) {
    throw new UsageError(PUBLISH_USAGE);
  }
  const where = args.switches.has("--remote") ? "remote" : "local";
  const persistTo = option(args, "--persist-to");
  if (persistTo && where === "remote") throw new UsageError("--persist-to goes with --local");
  const target: KvTarget = { where, persistTo };
  const allowed = allowedMissing(args.values.get("--allow-missing") ?? []);
  if (!allowed.ok) throw new UsageError(allowed.error);
  if (args.switches.has("--reset")) {
    if (args.positional.length > 0 || allowed.value.size > 0)
      throw new UsageError("--reset takes no DIR and no --allow-missing");
    return reset(target, io);
  }

  const dir = args.positional[0] ?? "policies";
  const bundle = await bundleFromDir(dir, io, "published");
  if (bundle === null) return 1;
  const active = activeBundle(target);
  if (!active.ok) return (io.stderr(`${active.failure}\nnothing was published\n`), 1);
  const dropped = active.value.engines.filter(
    (e) => bundle.engines[e] === undefined && !allowed.value.has(e),
  );
  if (dropped.length > 0) {
    io.stderr(
      `refusing to publish: ${active.value.description} serves ${dropped.join(", ")}, which this bundle would drop.\n` +
        dropped.map((e) => `  add ${lookedFor(e)} to ${dir}, or pass --allow-missing ${e}\n`).join("") +
        "nothing was published\n",
    );
    return 1;
  }

  const tmp = mkdtempSync(join(tmpdir(), "arbiter-"));
  try {
    const file = join(tmp, "bundle.json");
    writeFileSync(file, JSON.stringify(bundle));
    for (const step of [
      ["key", "put", `bundle:${bundle.revision}`, "--path", file],
      ["key", "put", "bundle:current", bundle.revision],
    ]) {
      const run = wranglerKv(step, target);
      if (!run.ok) return (io.stderr(`${run.failure}\n`), 1);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  io.stdout(`published revision ${bundle.revision} (${where})\n`);
  return 0;
}
