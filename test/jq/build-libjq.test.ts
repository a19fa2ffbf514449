/**
 * bench/native/build-libjq.sh chooses its jq 1.7.1 source (JQ_CHECK_ONLY=1: no build): the
 * mirror's tag, else the commit the tag points to, and never a tree that is not 1.7.1. The
 * mirrors here are empty bare repositories that borrow the jq mirror's objects (git's
 * alternates), with or without a tag; the cases that need those objects are skipped where the
 * jq mirror is absent.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = new URL("../../bench/native/build-libjq.sh", import.meta.url).pathname;
const JQ_MIRROR = "/work/.mirror/jqlang+jq/repo";
const RELEASE = "71c2ab509a8628dbbad4bc7b3f98a64aa90d3297";
/** jq 1.7's release commit: a tree whose NEWS.md opens with another version. */
const JQ_17 = "11c528d04d76c9b9553781aa76b073e4f40da008";
const haveMirror = existsSync(join(JQ_MIRROR, "objects"));

const dir = mkdtempSync(join(tmpdir(), "build-libjq-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bare repository with no refs; with `borrow`, it reads the jq mirror's objects. */
function mirror(name: string, borrow: boolean, tag?: string): string {
  const git = join(dir, name);
  spawnSync("git", ["init", "-q", "--bare", git]);
  if (borrow) writeFileSync(join(git, "objects/info/alternates"), `${JQ_MIRROR}/objects\n`);
  if (tag !== undefined) spawnSync("git", ["--git-dir", git, "update-ref", "refs/tags/jq-1.7.1", tag]);
  return git;
}

function check(env: Record<string, string>) {
  const r = spawnSync("bash", [SCRIPT], {
    encoding: "utf8",
    env: { ...process.env, JQ_SRC: "", JQ_CHECK_ONLY: "1", ...env },
  });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe("build-libjq.sh's jq source", () => {
  it("says it has none when the mirror holds neither the tag nor its commit", () => {
    const r = check({ JQ_MIRROR: mirror("empty", false) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`neither tag jq-1.7.1 nor its commit ${RELEASE}`);
  });

  it.skipIf(!haveMirror)("uses the release commit when the mirror has no tag jq-1.7.1", () => {
    const r = check({ JQ_MIRROR: mirror("notag", true) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${RELEASE} ${RELEASE}`);
    expect(r.stderr).toContain("has no tag jq-1.7.1; using the commit it points to");
  });

  it.skipIf(!haveMirror)("uses the tag when there is one", () => {
    const r = check({ JQ_MIRROR: mirror("tagged", true, RELEASE) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`jq-1.7.1 ${RELEASE}`);
  });

  it.skipIf(!haveMirror)("refuses a tag jq-1.7.1 on a tree that is not 1.7.1", () => {
    const r = check({ JQ_MIRROR: mirror("wrongtag", true, JQ_17) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('is not jq 1.7.1 (its NEWS.md does not start with "# 1.7.1")');
  });

  it("refuses a JQ_SRC tree whose NEWS.md is of another version", () => {
    const src = join(dir, "src-tree");
    mkdirSync(join(src, "src"), { recursive: true });
    writeFileSync(join(src, "src/jq.h"), "");
    writeFileSync(join(src, "NEWS.md"), "# 1.7\n");
    const r = check({ JQ_SRC: src, JQ_MIRROR: mirror("unused", false) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is not jq 1.7.1");
    writeFileSync(join(src, "NEWS.md"), "# 1.7.1\n\n## Security\n");
    expect(check({ JQ_SRC: src }).stdout).toBe(`JQ_SRC ${src}`);
  });
});
