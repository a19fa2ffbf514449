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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeState } from "../../playground/share.js";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";
import { CHROMIUM, decide, editorOf, HAVE_CHROMIUM, LAUNCH_ARGS, liveOff, setText } from "./helpers.js";

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

    it("says what failed when the editor module, another module or the network fails, and without JavaScript", async () => {
      // The editor module blocked: plain text boxes, a notice saying so, and Decide still works.
      const plain = await browser.newPage();
      await plain.route("**/playground/codemirror.js", (r) => r.abort());
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

      // A module of the page blocked: the page says which, and what to do instead.
      const broken = await browser.newPage();
      await broken.route("**/playground/render.js", (r) => r.abort());
      await broken.goto(`${server.url}/`);
      const boot = broken.locator("#boot");
      await boot.waitFor({ state: "visible" });
      expect(await boot.textContent()).toMatch(
        /^The playground could not start: render\.js did not load\. Reload the page.*POST \/v1\/playground\/\{engine\}/,
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
      console.log(
        `playground: ${sizes.length} files, ${(total / 1024).toFixed(1)} KB gzipped; usable ${Math.round(ready)} ms after navigation (fresh load, npm start)`,
      );
      expect(sizes.length).toBeGreaterThanOrEqual(10);
      expect(total).toBeLessThan(250 * 1024);
      expect(ready).toBeGreaterThan(0);
      await page.close();
    }, 60_000);
  },
);
