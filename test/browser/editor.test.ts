/**
 * Issue 28: the playground as the place where policy is written, in headless Chromium
 * against `wrangler dev` (as test/browser/playground.test.ts runs it). The editor
 * highlights YAML and shows a diagnostic under the line as you type, before any Decide;
 * Tab and Shift-Tab indent, Enter keeps the indentation; deciding as you type updates the
 * verdict; the jq pane runs `.a + 1` and `--argjson`, keeps its options in the link and
 * copies an `arbiter jq` command that prints the same; a blocked module or no JavaScript
 * leaves a message saying what failed and what to do. The page's transfer size and the
 * time until it is usable are measured on a fresh load and printed (the size is held
 * under 250 KB gzipped; the time is a figure, never an assertion).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeState } from "../../playground/share.js";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";
import {
  caretLine,
  CHROMIUM,
  decide,
  editorOf,
  HAVE_CHROMIUM,
  LAUNCH_ARGS,
  liveOff,
  setText,
} from "./helpers.js";

/** With ARBITER_SCREENSHOTS=DIR, the jq pane is saved as DIR/playground-jq.png (`npm run screenshots`). */
const SHOTS = process.env.ARBITER_SCREENSHOTS;

let server: DevServer;
let browser: BrowserContext;
let profile: string;

async function openPage(engine: string, live = false): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(`${server.url}/`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector("body[data-ready=true]");
  if ((await page.inputValue("#engine")) !== engine) await page.selectOption("#engine", engine);
  await page.waitForSelector(`body[data-engine=${engine}]:not([data-loading])`);
  if (!live) await liveOff(page);
  return page;
}

/** The text of one line of an editor (1-based), from the textarea it keeps in step. */
async function lineText(page: Page, id: string, line: number): Promise<string> {
  return (await page.inputValue(`#${id}`)).split("\n")[line - 1];
}

const JOB_LONG = [
  'MyType = "Job"',
  'Owner = "alice"',
  "ClusterId = 7",
  "ProcId = 0",
  "RequestMemory = 1024",
  "Requirements = TARGET.Memory >= MY.RequestMemory",
  "Rank = TARGET.Memory",
  "",
].join("\n");
const MACHINES_LONG = [
  [
    'MyType = "Machine"',
    'Name = "slot1@big"',
    "Memory = 4096",
    "Cpus = 8",
    'Requirements = TARGET.Owner =!= "bob"',
  ].join("\n"),
  ['MyType = "Machine"', 'Name = "slot1@small"', "Memory = 768", "Cpus = 2", "Requirements = true"].join(
    "\n",
  ),
  ['MyType = "Machine"', 'Name = "slot1@tiny"', "Memory = 256", "Cpus = 1", "Requirements = true"].join("\n"),
].join("\n\n");

const PLACEMENT = [
  "partitions:",
  "  - name: default",
  "    placementrules:",
  "      - name: provided",
  "        create: true",
  "    queues:",
  "      - name: root",
  '        submitacl: "*"',
  "",
].join("\n");

/** A fixed rule to an open leaf queue hides the two rules after it: `placement_unreachable_rule` at 6:9 and 7:9 (test/cases/placement/lint/). */
const UNREACHABLE = [
  "partitions:",
  "  - name: default",
  "    placementrules:",
  "      - name: fixed",
  "        value: root.default",
  "      - name: provided",
  "      - name: user",
  "        create: true",
  "    queues:",
  "      - name: root",
  '        submitacl: "*"',
  "        queues:",
  "          - name: default",
  "",
].join("\n");

const suite = HAVE_CHROMIUM ? describe : describe.skip;

suite(
  HAVE_CHROMIUM
    ? "writing policy in the playground, in headless Chromium"
    : `writing policy in the playground (skipped: no Chromium at ${CHROMIUM})`,
  () => {
    beforeAll(async () => {
      server = await startDevServer(120_000);
      profile = mkdtempSync(join(tmpdir(), "arbiter-chromium-"));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: LAUNCH_ARGS,
        timeout: 60_000,
      });
      browser.setDefaultTimeout(60_000);
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (profile) rmSync(profile, { recursive: true, force: true });
    }, 60_000);

    it("highlights YAML, keeps the indentation on Enter, indents with Tab and Shift-Tab, and shows a diagnostic under the line as you type, before any Decide", async () => {
      const page = await openPage("placement");
      await setText(page, "policy", PLACEMENT);
      // Keys, strings and atoms each have their colour, not the text's.
      const colours = await page.evaluate(() => {
        const colour = (sel: string) => {
          const el = document.querySelector(`#policy-editor ${sel}`);
          return el ? getComputedStyle(el).color : null;
        };
        return {
          text: colour(".cm-content"),
          key: colour(".tk-property"),
          string: colour(".tk-string"),
          atom: colour(".tk-atom"),
        };
      });
      expect(colours.key).not.toBeNull();
      expect(colours.string).not.toBeNull();
      expect(new Set(Object.values(colours)).size).toBe(4);

      await page.waitForFunction(() => document.getElementById("check-state")?.textContent === "✓ valid");
      const decided = await page.getAttribute("body", "data-decided");
      // At the end of `        create: true`, Enter keeps its indentation; Shift-Tab takes one level off.
      await page.click(`${editorOf("policy")} .cm-line >> nth=4`);
      await page.keyboard.press("End");
      await page.keyboard.press("Enter");
      await expect.poll(() => lineText(page, "policy", 6)).toBe("        ");
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.type("- name: fixd");
      expect(await lineText(page, "policy", 6)).toBe("      - name: fixd");

      // The check as you type marks the unknown rule under its line, with the message.
      const note = page.locator('#policy-editor .note[data-line="6"]');
      await expect.poll(() => note.count(), { timeout: 30_000 }).toBe(1);
      expect(await note.textContent()).toMatch(/fixd/);
      expect(await page.textContent("#check-state")).toMatch(/^✗ 1 error/);
      expect(
        await page.locator("#policy-editor .cm-lineNumbers .cm-gutterElement.bad").first().textContent(),
      ).toBe("6");
      expect(await page.locator("#policy-editor .cm-lintRange-error").count()).toBeGreaterThan(0);
      expect(await page.getAttribute("body", "data-decided")).toBe(decided);

      // Tab indents the line by one level (it does not leave the editor); naming a rule that exists clears the mark.
      await page.keyboard.press("Home");
      await page.keyboard.press("Tab");
      expect(await lineText(page, "policy", 6)).toBe("        - name: fixd");
      await page.keyboard.press("Shift+Tab");
      expect(await lineText(page, "policy", 6)).toBe("      - name: fixd");
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.editor)).toBe(
        "policy",
      );
      await page.keyboard.press("End");
      for (let i = 0; i < 4; i++) await page.keyboard.press("Backspace");
      await page.keyboard.type("user");
      await expect.poll(() => note.count(), { timeout: 30_000 }).toBe(0);
      await page.waitForFunction(() => document.getElementById("check-state")?.textContent === "✓ valid");
      expect(await page.getAttribute("body", "data-decided")).toBe(decided);
      await page.close();
    }, 120_000);

    it("shows lint findings as warning diagnostics under their lines, coloured apart from errors in both schemes, and none for a clean policy", async () => {
      const page = await openPage("placement");
      const linted = async () => Number((await page.getAttribute("body", "data-linted")) ?? "0");
      await setText(page, "policy", UNREACHABLE);
      const warnings = page.locator("#policy-editor .finding-warning");
      await expect.poll(() => warnings.count(), { timeout: 30_000 }).toBe(2);
      expect(await warnings.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.line))).toEqual([
        "6",
        "7",
      ]);
      expect(await warnings.first().textContent()).toMatch(
        /^↑ warning: placement_unreachable_rule: rule 2 \(`provided`\) is never reached: rule 1 \(`fixed root\.default`\)/,
      );
      expect(await page.textContent("#check-state")).toBe("✓ valid, 2 warnings");
      // CodeMirror's diagnostics of severity warning: underlined ranges and gutter markers; nothing of an error's.
      expect(await page.locator("#policy-editor .cm-lintRange-warning").count()).toBe(2);
      expect(await page.locator("#policy-editor .cm-lint-marker-warning").count()).toBe(2);
      for (const sel of [".cm-lintRange-error", ".cm-lint-marker-error", ".note", ".cm-gutterElement.bad"])
        expect(await page.locator(`#policy-editor ${sel}`).count(), sel).toBe(0);
      expect(await page.getAttribute(editorOf("policy"), "aria-invalid")).toBe("false");
      expect(await page.locator("#policy-errors li").count()).toBe(0);
      const listed = page.locator("#policy-findings button");
      expect(await listed.first().textContent()).toMatch(
        /^warning, line 6, column 9: placement_unreachable_rule: /,
      );
      await listed.nth(1).click();
      await expect.poll(() => caretLine(page, "policy")).toBe(7);

      // Styled as a warning, not as an error: the underline, the gutter marker and the note take --warn, never --bad.
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const seen = await page.evaluate(() => {
          const probe = (v: string) => {
            const span = document.createElement("span");
            span.style.color = `var(${v})`;
            document.body.append(span);
            const c = getComputedStyle(span).color;
            span.remove();
            return c;
          };
          const style = (sel: string) => getComputedStyle(document.querySelector(`#policy-editor ${sel}`)!);
          return {
            warn: probe("--warn"),
            bad: probe("--bad"),
            underline: style(".cm-lintRange-warning").textDecorationColor,
            marker: style(".cm-lint-marker-warning").backgroundColor,
            note: style(".finding-warning").color,
            noteBorder: style(".finding-warning").borderLeftColor,
          };
        });
        expect(seen.warn, scheme).not.toBe(seen.bad);
        for (const part of ["underline", "marker", "note", "noteBorder"] as const)
          expect(seen[part], `${scheme} ${part}`).toBe(seen.warn);
      }
      await page.emulateMedia({ colorScheme: null });

      // Broken, the policy shows its error alone (lint runs on valid policies only).
      await setText(page, "policy", UNREACHABLE.replace("      - name: user", "      - name: usr"));
      await expect.poll(() => page.locator("#policy-editor .note").count(), { timeout: 30_000 }).toBe(1);
      expect(await warnings.count()).toBe(0);
      expect(await page.locator("#policy-findings li").count()).toBe(0);

      // A clean policy: linted, and no finding.
      const before = await linted();
      await setText(page, "policy", PLACEMENT);
      await expect.poll(linted, { timeout: 30_000 }).toBeGreaterThan(before);
      expect(await page.textContent("#check-state")).toBe("✓ valid");
      for (const sel of [
        ".finding",
        ".cm-lintRange-warning",
        ".cm-lintRange-info",
        ".cm-lint-marker-warning",
        ".note",
      ])
        expect(await page.locator(`#policy-editor ${sel}`).count(), sel).toBe(0);
      expect(await page.locator("#policy-findings").isHidden()).toBe(true);
      await page.close();
    }, 120_000);

    it("decides as you type: an edit changes the verdict without Decide", async () => {
      const page = await openPage("placement", true);
      expect(await page.isChecked("#live")).toBe(true);
      const verdict = page.locator("#verdict-line");
      await setText(
        page,
        "request",
        '{"user": "sarah", "groups": ["sarah", "test_app", "dev_app"], "tags": {"namespace": "newapp"}}',
      );
      await expect
        .poll(async () => (await verdict.textContent()) ?? "", { timeout: 30_000 })
        .toMatch(/^✓\s*Placed in root\.newapp\.sarah/);
      await setText(page, "request", '{"user": "bob", "groups": ["bob"]}');
      await expect
        .poll(async () => (await verdict.textContent()) ?? "", { timeout: 30_000 })
        .toMatch(/^✓\s*Placed in root\.default/);
      await page.close();
    }, 90_000);

    it("runs jq: `.a + 1`, a --argjson value, -c; keeps the options in the link; copies an arbiter jq command that prints the same", async () => {
      const page = await openPage("jq");
      expect(await page.textContent("#policy-label")).toBe("Program");
      expect(await page.locator("#jq-cheats").isVisible()).toBe(true);
      expect(
        await page.locator("#policy-editor .tk-keyword, #policy-editor .tk-property").count(),
      ).toBeGreaterThan(0);
      await setText(page, "policy", ".a + 1");
      await setText(page, "request", '{"a": 1}');
      expect(await decide(page)).toMatch(/^✓\s*exit status 0/);
      expect(await page.textContent("#jq-stdout")).toBe("2\n");

      await page.click("#jq-add-arg");
      await page.fill(".jq-arg-name", "n");
      await page.fill(".jq-arg-value", '{"k": [1, 2]}');
      await page.check(".jq-arg-json");
      await page.check("#jq-compact");
      await setText(page, "policy", "{sum: (.a + ($n.k | add)), n: $n}");
      expect(await decide(page)).toMatch(/^✓/);
      const printed = await page.textContent("#jq-stdout");
      expect(printed).toBe('{"sum":4,"n":{"k":[1,2]}}\n');

      await setText(page, "policy", ".a |");
      expect(await decide(page)).toMatch(/^✗\s*exit status 3/);
      expect(await page.textContent("#jq-stderr")).toMatch(/^jq: error: syntax error/);
      await setText(page, "policy", "{sum: (.a + ($n.k | add)), n: $n}");

      await expect
        .poll(async () => decodeState(new URL(page.url()).hash), { timeout: 30_000 })
        .toMatchObject({
          engine: "jq",
          // The program too: the link is written a moment after typing stops, and held `.a |` before.
          policy: "{sum: (.a + ($n.k | add)), n: $n}",
          options: { compact: true, args: [{ name: "n", value: '{"k": [1, 2]}', json: true }] },
        });
      const again = await browser.newPage();
      await again.goto(page.url());
      await again.waitForSelector("body[data-ready=true][data-engine=jq]");
      await liveOff(again);
      expect(await again.isChecked("#jq-compact")).toBe(true);
      expect(await again.inputValue(".jq-arg-name")).toBe("n");
      expect(await decide(again)).toMatch(/^✓/);
      expect(await again.textContent("#jq-stdout")).toBe(printed);
      await again.close();

      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await page.screenshot({
          path: join(SHOTS, "playground-jq.png"),
          fullPage: true,
          clip: { x: 0, y: 0, width: 1280, height: 1100 },
        });
      }
      await page.click("#copy-eval");
      const command = (await page.textContent("#command")) ?? "";
      expect(command).toMatch(/\| npx arbiter jq '-c' '--argjson' 'n' /);
      const viaCli = spawnSync("bash", ["-c", command], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, npm_config_registry: "http://127.0.0.1:9/" },
      });
      expect(viaCli.status, viaCli.stderr).toBe(0);
      expect(viaCli.stdout).toBe(printed);
      await page.click("#copy-curl");
      const curl = (await page.textContent("#command")) ?? "";
      const viaCurl = spawnSync("bash", ["-c", curl], { encoding: "utf8", timeout: 30_000 });
      expect(JSON.parse(viaCurl.stdout)).toMatchObject({ stdout: printed, exit_status: 0 });
      await page.close();
    }, 120_000);

    it("takes ClassAds as text: condor_q -l and condor_status -l output pasted give the match table, and Copy as curl shows the JSON the API takes", async () => {
      const page = await openPage("match");
      await page.click("#ads-text summary");
      await setText(page, "job-ad", JOB_LONG);
      await setText(page, "machine-ads", MACHINES_LONG);
      await expect
        .poll(async () => JSON.parse(await page.inputValue("#request")))
        .toEqual({ job: JOB_LONG.trim(), machines: MACHINES_LONG.trim() });
      expect(await page.locator("#job-ad-editor .tk-property").count()).toBeGreaterThan(0);
      expect(await decide(page)).toMatch(/^✓\s*Best machine: slot1@big/);
      const rows = page.locator(".trace-part table").first().locator("tbody tr");
      expect(await rows.count()).toBe(3);
      expect(await rows.first().textContent()).toMatch(/^slot1@big/);
      await page.click("#copy-curl");
      const curl = (await page.textContent("#command")) ?? "";
      expect(curl).toContain(JSON.stringify(MACHINES_LONG.trim()).slice(1, 40));
      const viaCurl = spawnSync("bash", ["-c", curl], { encoding: "utf8", timeout: 30_000 });
      expect(JSON.parse(viaCurl.stdout)).toMatchObject({ best: "slot1@big" });
      await page.close();
    }, 90_000);

    it("saves the decision as a test case that arbiter test passes under the edited policy and fails under the active one", async () => {
      const page = await openPage("placement");
      const active = await page.inputValue("#policy");
      const edited = active.replace(
        "- name: user\n        create: true",
        "- name: user\n        create: false",
      );
      expect(edited).not.toBe(active);
      await setText(page, "policy", edited);
      await page.click("#save-test");
      await page.waitForSelector("#download-test");
      expect(await page.textContent("#verdict-line")).toMatch(/root\.default/);
      const yaml = (await page.textContent("#command")) ?? "";
      expect(yaml).toMatch(/^# A case saved from the Arbiter playground/);
      expect(await page.getAttribute("#download-test", "download")).toBe("placement-playground.test.yaml");
      const dir = mkdtempSync(join(tmpdir(), "arbiter-case-"));
      try {
        writeFileSync(join(dir, "placement-playground.test.yaml"), yaml);
        const run = () =>
          spawnSync(
            "node",
            [join(REPO_ROOT, "bin/arbiter.mjs"), "test", join(dir, "placement-playground.test.yaml")],
            { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 },
          );
        writeFileSync(join(dir, "placement.yaml"), edited);
        const passes = run();
        expect(passes.status, passes.stdout + passes.stderr).toBe(0);
        writeFileSync(join(dir, "placement.yaml"), active);
        const fails = run();
        expect(fails.status, fails.stdout + fails.stderr).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await page.close();
    }, 90_000);

    it("compares the edited policy's verdict with the active one's, field by field", async () => {
      const page = await openPage("placement");
      await page.click("#compare-active");
      await expect
        .poll(async () => (await page.textContent("#verdict-line")) ?? "")
        .toMatch(/^✓\s*Same verdict/);
      const active = await page.inputValue("#policy");
      await setText(
        page,
        "policy",
        active.replace("- name: user\n        create: true", "- name: user\n        create: false"),
      );
      await page.click("#compare-active");
      await page.waitForSelector("#compare-table");
      const rows = await page.locator("#compare-table tbody tr").allTextContents();
      expect(rows).toContain('/queue"root.default""root.newapp.sarah"');
      await page.close();
    }, 60_000);

    it("stages the edited policy as the candidate, leaves the active one, and opens its shadow report", async () => {
      const page = await openPage("placement");
      const active = await page.inputValue("#policy");
      const edited = active.replace(
        "- name: user\n        create: true",
        "- name: user\n        create: false",
      );
      await setText(page, "policy", edited);
      await page.click("#stage-candidate");
      await expect
        .poll(async () => (await page.textContent("#verdict-line")) ?? "")
        .toMatch(/^✓\s*Staged the edited placement policy as the candidate/);
      try {
        const candidate = (await (await fetch(`${server.url}/v1/candidate`)).json()) as { revision: string };
        expect(await (await fetch(`${server.url}/v1/policies/placement`)).text()).toBe(active);
        await page.click("#open-report");
        await page.waitForSelector("#report details");
        expect(await page.textContent("#report")).toContain(candidate.revision);
      } finally {
        await fetch(`${server.url}/v1/candidate`, { method: "DELETE" });
      }
      await page.close();
    }, 60_000);

    it("says what failed when the editor module, another module or the network fails, and without JavaScript", async () => {
      // The editor module blocked: plain text boxes, a notice saying so, and Decide still works.
      const plain = await browser.newPage();
      await plain.route("**/codemirror.js", (r) => r.abort());
      await plain.goto(`${server.url}/`);
      await plain.waitForSelector("body[data-ready=true]:not([data-loading])");
      expect(await plain.textContent("#boot")).toMatch(
        /code editor \(\/playground\/codemirror\.js\) did not load.*plain text boxes/,
      );
      expect(await plain.locator("#policy").isVisible()).toBe(true);
      await plain.selectOption("#engine", "placement");
      await plain.waitForSelector("body[data-engine=placement]:not([data-loading])");
      await liveOff(plain);
      expect(await decide(plain)).toMatch(/^✓\s*Placed in/);
      // The network gone: Decide says so and keeps the texts.
      const policy = await plain.inputValue("#policy");
      await plain.route("**/v1/playground/**", (r) => r.abort());
      expect(await decide(plain)).toMatch(/^!\s*network_error: the server did not answer/);
      expect(await plain.inputValue("#policy")).toBe(policy);
      await plain.close();

      // The page's module (its own modules, bundled) blocked: the page says which, and what to do instead.
      const broken = await browser.newPage();
      await broken.route("**/app.js", (r) => r.abort());
      await broken.goto(`${server.url}/`);
      const boot = broken.locator("#boot");
      await boot.waitFor({ state: "visible" });
      expect(await boot.textContent()).toMatch(
        /^The playground could not start: app\.js did not load\. Reload the page.*POST \/v1\/playground\/\{engine\}/,
      );
      await broken.close();

      // JavaScript off: the page explains itself.
      const other = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: LAUNCH_ARGS,
        timeout: 60_000,
      });
      try {
        const noJs = await other.newContext({ javaScriptEnabled: false });
        const page = await noJs.newPage();
        await page.goto(`${server.url}/`);
        const said = page.locator("p", { hasText: "needs JavaScript" });
        expect(await said.isVisible()).toBe(true);
        expect(await said.textContent()).toMatch(/POST \/v1\/playground\/\{engine\}.*npx arbiter eval/s);
      } finally {
        await other.close();
      }
    }, 120_000);

    it("loads in under 250 KB gzipped, and prints how long until it is usable", async () => {
      const page = await browser.newPage();
      const bodies: Array<Promise<number>> = [];
      page.on("response", (r) => {
        if (r.url().startsWith(server.url) && r.request().resourceType() !== "fetch")
          bodies.push(
            r.body().then(
              (b) => gzipSync(b).length,
              () => 0,
            ),
          );
      });
      await page.goto(`${server.url}/`, { waitUntil: "load" });
      await page.waitForSelector("body[data-ready=true]:not([data-loading])");
      const sizes = await Promise.all(bodies);
      const total = sizes.reduce((a, b) => a + b, 0);
      const ready = await page.evaluate(() => performance.getEntriesByName("ready")[0]?.startTime ?? -1);
      // Written past vitest's console capture (passing tests' console output is silenced), so every run shows it.
      process.stdout.write(
        `\nplayground: ${sizes.length} files, ${(total / 1024).toFixed(1)} KB gzipped; usable ${Math.round(ready)} ms after navigation (fresh load, npm start)\n`,
      );
      // The HTML, style.css, boot.js, app.js (the page's modules bundled), codemirror.js and the icon.
      expect(sizes.length).toBeGreaterThanOrEqual(5);
      expect(total).toBeLessThan(250 * 1024);
      expect(ready).toBeGreaterThan(0);
      await page.close();
    }, 60_000);
  },
);
