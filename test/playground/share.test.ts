/**
 * The page's share links and copied commands (playground/share.js): a link
 * restores the exact texts; the curl and `arbiter eval` commands send what
 * Decide sends, quoted for a POSIX shell (checked by running them through bash).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  curlCommand,
  decodeState,
  encodeState,
  evalCommand,
  playgroundBody,
  shellQuote,
} from "../../playground/share.js";

const tricky = 'it\'s a "policy"\n# with $HOME, `ticks` and \\ backslashes\n\tand ünïcödé 🎉\n';

describe("the URL fragment", () => {
  it("restores the engine, the policy and the request exactly", async () => {
    const state = {
      engine: "jobfilter",
      policy: tricky.repeat(50),
      request: '{"job": {"id": 1700000000123456789}}',
    };
    const fragment = await encodeState(state);
    expect(fragment).toMatch(/^engine=jobfilter&s=[A-Za-z0-9_-]+$/);
    expect(fragment.length).toBeLessThan(state.policy.length);
    expect(await decodeState(`#${fragment}`)).toEqual(state);
  });

  it("keeps the jq pane's options with its program and input", async () => {
    const options = {
      compact: true,
      raw_output: false,
      slurp: false,
      null_input: true,
      args: [{ name: "n", value: "[1]", json: true }],
    };
    const state = { engine: "jq", policy: ".a + $n[0]", request: '{"a": 1}', options };
    expect(await decodeState(await encodeState(state))).toEqual(state);
  });

  it("gives only the engine for a damaged link, and nothing for an empty one", async () => {
    expect(await decodeState("#engine=match&s=not-deflate")).toEqual({ engine: "match" });
    expect(await decodeState("#engine=match")).toEqual({ engine: "match" });
    expect(await decodeState("")).toBeNull();
  });
});

describe("the copied commands", () => {
  it("quotes any text for the shell", () => {
    const echoed = spawnSync("bash", ["-c", `printf '%s' ${shellQuote(tricky)}`], { encoding: "utf8" });
    expect(echoed.stdout).toBe(tricky);
  });

  it("posts the body Decide posts, with big integers as typed", () => {
    const body = playgroundBody(tricky, '{\n  "n": 1700000000123456789\n}');
    expect(body).toBe(`{"policy":${JSON.stringify(tricky)},"request":{"n":1700000000123456789}}`);
    const command = curlCommand({
      origin: "http://127.0.0.1:8787",
      engine: "placement",
      policy: tricky,
      request: "{}",
      auth: false,
    });
    // Run it with a curl that prints its arguments instead of sending them.
    const args = spawnSync("bash", ["-c", `curl() { printf '%s\\n' "$@"; }; ${command}`], {
      encoding: "utf8",
    }).stdout.split("\n");
    expect(args.slice(0, 4)).toEqual([
      "-sS",
      "http://127.0.0.1:8787/v1/playground/placement",
      "-H",
      "Content-Type: application/json",
    ]);
    expect(args[5]).toBe(playgroundBody(tricky, "{}").split("\n")[0]);
    expect(command).not.toContain("Authorization");
    expect(curlCommand({ origin: "o", engine: "e", policy: "", request: "{}", auth: true })).toContain(
      '-H "Authorization: Bearer $ARBITER_ADMIN_TOKEN"',
    );
  });

  it("writes one JSON line {policy, input} for arbiter eval", () => {
    const command = evalCommand({ engine: "customs", policy: tricky, request: '{\n  "hosts": []\n}' });
    const line = spawnSync("bash", ["-c", command.replace(/\| npx arbiter eval customs$/, "")], {
      encoding: "utf8",
    }).stdout;
    expect(line.endsWith("\n")).toBe(true);
    expect(line.trimEnd()).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ policy: tricky, input: { hosts: [] } });
    expect(command).toMatch(/\| npx arbiter eval customs$/);
  });
});
