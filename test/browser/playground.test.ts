/**
 * Issue 16: the playground page in a real browser. Headless Chromium (Debian's
 * `chromium`, driven by playwright-core) opens the page that `wrangler dev` serves
 * (started here on free loopback ports, within ARBITER_DEV_PORTS and
 * ARBITER_DEV_INSPECTOR_PORTS when set, as `npm start` runs it), and for each engine:
 * loads the active policy and the example request, edits the policy, decides, reads the
 * verdict, breaks the policy and finds the error at its line. Then: the link restores
 * the page, the copied curl and `arbiter eval` commands give the same verdict, the
 * keyboard reaches everything in order, text contrast, a phone-sized screen, the
 * headline figures of `/v1/status` under the title, and (on a second server with an
 * admin token set) the token asked for, used, and kept out of the link.
 *
 * Every case is skipped, under a title saying why, when no Chromium is installed;
 * `.ci/run` installs it when it can. With ARBITER_SCREENSHOTS=DIR, each engine's page
 * with its edited policy decided is saved as DIR/playground-<engine>.png, and a phone's
 * view as DIR/playground-phone.png (`npm run screenshots` writes docs/img/).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

const SHOTS = process.env.ARBITER_SCREENSHOTS;

let server: DevServer;
/** The second server, with an admin token, for the auth case: started beside the first, so the two start-ups overlap. */
let authedStarting: Promise<DevServer> | undefined;
const TOKEN = "playground-admin-token-0123456789";
let browser: BrowserContext;
let profile: string;
/** Requests the page made to any host but the server (there must be none). */
const elsewhere: string[] = [];

/** One engine's walk: an edit that changes the verdict, and a break whose error line is known. */
interface Scenario {
  engine: string;
  verdict: RegExp;
  edit: (policy: string) => string;
  edited: RegExp;
  /** The broken policy, and the 1-based line its first error must be marked on. */
  breakIt: (policy: string) => { text: string; line: number };
  /** Which verdict the screenshot shows: the active policy's, or the edit's. */
  shot: "active" | "edited";
}

/** Saves the page as it is (blurred, first 1,300 pixels) as DIR/playground-NAME.png. */
async function screenshot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({
    path: join(SHOTS, `playground-${name}.png`),
    fullPage: true,
    clip: { x: 0, y: 0, width: 1280, height: Math.min(height, 1300) },
  });
}

const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;

const SCENARIOS: Scenario[] = [
  {
    engine: "limits",
    shot: "active",
    verdict: /^✓\s*Allowed/,
    edit: (p) => p.replace('"198.51.100.0/24"', '"203.0.113.0/24"'),
    edited: /^✗\s*Denied/,
    breakIt: (p) => ({ text: p.replace('"schema": 3,', '"schema": 3,,'), line: lineOf(p, '"schema": 3,') }),
  },
  {
    engine: "placement",
    shot: "active",
    verdict: /^✓\s*Placed in root\.newapp\.sarah/,
    edit: (p) => p.replace("- name: user\n        create: true", "- name: user\n        create: false"),
    edited: /^✓\s*Placed in root\.default/,
    breakIt: (p) => ({
      text: p.replace("      - name: fixed\n", "      - name: fixd\n"),
      line: lineOf(p, "      - name: fixed\n"),
    }),
  },
  {
    engine: "match",
    shot: "active",
    verdict: /^✓\s*Best machine: slot1@big/,
    edit: (p) => p.replace("MIN_SLOT_MEMORY = 512", "MIN_SLOT_MEMORY = 8192"),
    edited: /^✗\s*No machine matches/,
    breakIt: (p) => {
      const text = p.replace(/\n*$/, "\n") + "NEGOTIATOR_PE_JOB_EXPR = (Owner ==\n";
      return { text, line: text.split("\n").length - 1 };
    },
  },
  {
    engine: "customs",
    shot: "active",
    verdict: /^✓\s*Host build1 \(10\.0\.0\.11\)/,
    edit: (p) => p.replace('"deny": []', '"deny": ["10.0.0.0/8"]'),
    edited: /^✗\s*No host/,
    breakIt: (p) => ({
      text: p.replace('"maxLoad": 0.5', '"maxLoad": "high"'),
      line: lineOf(p, '"maxLoad": 0.5'),
    }),
  },
  {
    engine: "jobfilter",
    shot: "edited",
    verdict: /^✓\s*ACCEPT \(no rule applies\)/,
    edit: () =>
      '[\n  {\n    "priority": 10,\n    "predicates": [["opcode", ["=", "OP_ID", "OP_INSTANCE_STARTUP"]]],\n    "action": "REJECT"\n  }\n]\n',
    edited: /^✗\s*REJECT by rule /,
    breakIt: () => ({ text: '[\n  {\n    "priority": "soon",\n    "action": "ACCEPT"\n  }\n]\n', line: 3 }),
  },
];

async function openPage(
  engine?: string,
  viewport = { width: 1280, height: 860 },
  live = false,
): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  page.on("request", (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) elsewhere.push(r.url());
  });
  await page.goto(`${server.url}/`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector("body[data-ready=true]");
  if (engine !== undefined && (await page.inputValue("#engine")) !== engine)
    await page.selectOption("#engine", engine);
  if (engine !== undefined) await page.waitForSelector(`body[data-engine=${engine}]:not([data-loading])`);
  if (!live) await liveOff(page);
  return page;
}

/** The contrast ratio (WCAG) of the text of the first element each selector finds, against the background it is drawn on. */
async function contrasts(page: Page, selectors: string[]): Promise<Record<string, number>> {
  return page.evaluate((sels) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el: Element | null): number[] => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
      }
      return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
    };
    const out: Record<string, number> = {};
    for (const sel of sels) {
      const el = document.querySelector(sel);
      if (!el) continue;
      const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
      out[sel] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }
    return out;
  }, selectors);
}

const suite = HAVE_CHROMIUM ? describe : describe.skip;
if (!HAVE_CHROMIUM)
  console.warn(
    `test/browser: skipped, no Chromium at ${CHROMIUM} (Debian: apt-get install -y chromium; or set CHROMIUM_PATH)`,
  );

suite(
  HAVE_CHROMIUM
    ? "the playground in headless Chromium"
    : `the playground in headless Chromium (skipped: no Chromium at ${CHROMIUM})`,
  () => {
    beforeAll(async () => {
      authedStarting = startDevServer({ timeoutMs: 120_000, vars: { ADMIN_TOKEN: TOKEN } });
      // Awaited by the auth case; a failure to start is its failure, not an unhandled rejection here.
      authedStarting.catch(() => undefined);
      server = await startDevServer(120_000);
      profile = mkdtempSync(join(tmpdir(), "arbiter-chromium-"));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: LAUNCH_ARGS,
        timeout: 60_000,
      });
      // The machine may be busy (two cores shared with other test runs): wait long, never assert on time.
      browser.setDefaultTimeout(60_000);
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      await (await authedStarting?.catch(() => undefined))?.stop();
      if (profile) rmSync(profile, { recursive: true, force: true });
      expect(elsewhere).toEqual([]);
    }, 60_000);

    for (const s of SCENARIOS) {
      it(`${s.engine}: loads the active policy, decides, decides an edit, and marks a broken policy's error at its line`, async () => {
        const page = await openPage(s.engine);
        const active = await page.inputValue("#policy");
        const fromServer = await (await fetch(`${server.url}/v1/policies/${s.engine}`)).text();
        expect(active).toBe(fromServer);
        expect((await page.inputValue("#request")).trim()).not.toBe("");

        expect(await decide(page)).toMatch(s.verdict);
        expect(await page.locator(".trace-part").count()).toBeGreaterThan(0);
        // the match view shows the analysis's clause table (playground/analysis.js)
        if (s.engine === "match")
          expect(await page.locator("#analysis-clauses tbody tr").count()).toBeGreaterThan(0);
        if (s.shot === "active") await screenshot(page, s.engine);

        await setText(page, "policy", s.edit(active));
        expect(await decide(page, "keys")).toMatch(s.edited);
        if (s.shot === "edited") await screenshot(page, s.engine);

        const broken = s.breakIt(active);
        await setText(page, "policy", broken.text);
        expect(await decide(page)).toMatch(/^!\s*policy_invalid/);
        const note = page.locator(`#policy-editor .note[data-line="${broken.line}"]`);
        await expect.poll(() => note.count()).toBe(1);
        await note.scrollIntoViewIfNeeded();
        expect(await note.isVisible()).toBe(true);
        const gutter = page.locator("#policy-editor .cm-lineNumbers .cm-gutterElement.bad");
        expect(await gutter.first().textContent()).toBe(String(broken.line));
        const listed = await page.locator("#policy-errors button").first().textContent();
        expect(listed).toMatch(new RegExp(`^line ${broken.line}, column \\d+: `));
        expect(await page.getAttribute(editorOf("policy"), "aria-invalid")).toBe("true");

        // The listed error puts the caret on its line.
        await page.locator("#policy-errors button").first().click();
        await expect.poll(() => caretLine(page, "policy")).toBe(broken.line);
        expect(
          await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.editor),
        ).toBe("policy");

        // Nothing the playground compiled became active.
        expect(await (await fetch(`${server.url}/v1/policies/${s.engine}`)).text()).toBe(fromServer);
        await page.close();
      }, 120_000);
    }

    it("marks a request field the API refuses at its line, and a request that is not JSON where it breaks", async () => {
      const page = await openPage("placement");
      await setText(page, "request", '{\n  "user": "sarah",\n  "groups": "dev_app"\n}\n');
      expect(await decide(page)).toMatch(/^!\s*invalid_request/);
      await expect
        .poll(() => page.locator('#request-editor .note[data-line="3"]').count(), { timeout: 15_000 })
        .toBe(1);
      await setText(page, "request", '{\n  "user": "sarah"\n  "groups": []\n}\n');
      expect(await decide(page)).toMatch(/^!\s*invalid_json/);
      await expect
        .poll(() => page.locator('#request-editor .note[data-line="3"]').count(), { timeout: 15_000 })
        .toBe(1);
      await page.close();
    }, 60_000);

    it("keeps the engine, the policy and the request in the link, and a new tab opened on it restores them", async () => {
      const page = await openPage("placement");
      const edited = SCENARIOS[1].edit(await page.inputValue("#policy"));
      await setText(page, "policy", edited);
      await setText(page, "request", '{"user": "bob", "groups": ["bob"], "tags": {"namespace": "testapp"}}');
      // The fragment is written a moment after typing stops (and compressed asynchronously): wait until it holds both edits.
      const request = '{"user": "bob", "groups": ["bob"], "tags": {"namespace": "testapp"}}';
      await expect
        .poll(async () => decodeState(new URL(page.url()).hash), { timeout: 30_000 })
        .toEqual({ engine: "placement", policy: edited, request });
      const link = page.url();
      await page.close();
      const again = await browser.newPage();
      await again.goto(link);
      await again.waitForSelector("body[data-ready=true][data-engine=placement]");
      await liveOff(again);
      expect(await again.inputValue("#engine")).toBe("placement");
      expect(await again.inputValue("#policy")).toBe(edited);
      expect(await again.inputValue("#request")).toBe(
        '{"user": "bob", "groups": ["bob"], "tags": {"namespace": "testapp"}}',
      );
      expect(await decide(again)).toMatch(/^✓\s*Placed in root\.default/);
      await again.close();
    }, 60_000);

    it("copies a curl command and an arbiter eval command that give the page's verdict", async () => {
      const page = await openPage("placement");
      await setText(page, "policy", SCENARIOS[1].edit(await page.inputValue("#policy")));
      expect(await decide(page)).toMatch(/root\.default/);
      await page.click("#copy-curl");
      const curl = (await page.textContent("#command")) ?? "";
      expect(curl).toMatch(/^curl /);
      const viaCurl = spawnSync("bash", ["-c", curl], { encoding: "utf8", timeout: 30_000 });
      expect(viaCurl.status, viaCurl.stderr).toBe(0);
      expect(JSON.parse(viaCurl.stdout)).toMatchObject({
        queue: "root.default",
        rule: { index: 2, name: "fixed" },
      });
      await page.click("#copy-eval");
      const evalLine = (await page.textContent("#command")) ?? "";
      expect(evalLine).toMatch(/\| npx arbiter eval placement$/);
      const viaEval = spawnSync("bash", ["-c", evalLine], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, npm_config_registry: "http://127.0.0.1:9/" },
      });
      expect(viaEval.status, viaEval.stderr).toBe(0);
      expect(JSON.parse(viaEval.stdout)).toMatchObject({
        queue: "root.default",
        rule: { index: 2, name: "fixed" },
      });
      await page.close();
    }, 90_000);

    it("shows the isolate's headline figures from /v1/status, counts the service's decisions but not the playground's", async () => {
      const place = async () => {
        const res = await fetch(`${server.url}/v1/place`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"user": "bob"}',
        });
        expect(res.status).toBe(200);
      };
      const total = async () =>
        (
          (await (await fetch(`${server.url}/v1/status`)).json()) as {
            metrics: { decisions: { total: number } };
          }
        ).metrics.decisions.total;
      await place();
      const page = await openPage("placement");
      const before = await total();
      expect(before).toBeGreaterThanOrEqual(1);
      const figures = page.locator("#figures");
      expect(await figures.isVisible()).toBe(true);
      expect(await figures.textContent()).toMatch(
        new RegExp(
          `^This isolate: ${before} decisions? \\(.*placement \\d+.*\\) · verdict cache .* · \\d+ budgets? exceeded · policy compiled .* ago · up .*$`,
        ),
      );
      await place();
      await place();
      // Decide refreshes the line: two decisions more, and the playground's own decision is not one of them.
      await decide(page);
      await expect
        .poll(() => figures.textContent())
        .toMatch(new RegExp(`^This isolate: ${before + 2} decisions `));
      expect(await total()).toBe(before + 2);
      await page.close();
    }, 60_000);

    describe("with auth on", () => {
      let authed: DevServer;
      beforeAll(async () => {
        authed = await authedStarting!;
      }, 180_000);

      it("asks for the admin token, then loads the active policy and decides with it, and keeps it out of the link", async () => {
        const page = await browser.newPage();
        const outside: string[] = [];
        page.on("request", (r) => {
          if (!r.url().startsWith(authed.url)) outside.push(r.url());
        });
        await page.goto(`${authed.url}/`);
        await page.waitForSelector("body[data-ready=true]:not([data-loading])");
        await liveOff(page);
        expect(await page.locator("#token").isVisible()).toBe(true);
        expect(await page.textContent("#notice")).toMatch(
          /^Enter the admin token to load the active limits policy/,
        );
        expect(await page.inputValue("#policy")).toBe("");
        // Without the token, Decide shows the API's refusal.
        await setText(page, "policy", "{}");
        expect(await decide(page)).toMatch(/^!\s*unauthorized/);
        await setText(page, "policy", "");

        await page.fill("#token", TOKEN);
        await page.press("#token", "Tab");
        const active = await (
          await fetch(`${authed.url}/v1/policies/limits`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).text();
        await expect.poll(() => page.inputValue("#policy")).toBe(active);
        expect(await decide(page)).toMatch(SCENARIOS[0].verdict);
        await page.waitForFunction(() => location.hash.includes("&s="));
        expect(page.url()).not.toContain(TOKEN);
        expect(JSON.stringify(await decodeState(new URL(page.url()).hash))).not.toContain(TOKEN);
        expect(outside).toEqual([]);
        await page.close();
      }, 90_000);
    });

    it("labels every control, reaches them with Tab in reading order, and announces results", async () => {
      const page = await openPage("limits");
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll("select, textarea, input:not([type=hidden])")]
          .filter((el) => (el as HTMLInputElement).labels?.length === 0)
          .map((el) => el.id),
      );
      expect(unlabelled).toEqual([]);
      expect(await page.getAttribute("#result-body", "aria-live")).toBe("polite");
      expect(await page.getAttribute("#notice", "aria-live")).toBe("polite");
      const order: string[] = [];
      // Start from the top (clicking the title moves where Tab starts, as a user's click does).
      await page.click("h1");
      // In an editor Tab indents: Esc, then Tab, moves on (as the page's help says).
      for (let i = 0; i < 12; i++) {
        const inEditor = await page.evaluate(
          () => (document.activeElement as HTMLElement | null)?.dataset.editor !== undefined,
        );
        if (inEditor) await page.keyboard.press("Escape");
        await page.keyboard.press("Tab");
        order.push(
          await page.evaluate(
            () =>
              (document.activeElement as HTMLElement | null)?.dataset.editor ||
              document.activeElement?.id ||
              document.activeElement?.className ||
              "",
          ),
        );
      }
      const want = [
        "engine",
        "load-active",
        "load-example",
        "policy",
        "request",
        "decide",
        "copy-curl",
        "copy-eval",
      ];
      const seen = order.filter((id) => want.includes(id));
      expect(seen.slice(0, want.length)).toEqual(want);
      await page.close();
    }, 60_000);

    it("keeps text contrast at 4.5:1 or more (WCAG AA) in light and dark schemes", async () => {
      for (const scheme of ["light", "dark"] as const) {
        const page = await browser.newPage();
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${server.url}/`);
        await page.waitForSelector("body[data-ready=true]:not([data-loading])");
        await liveOff(page);
        await decide(page);
        // The active limits policy has a lint finding (an info): its list entry puts the caret
        // on its line (CodeMirror draws only the lines in view), and both are read first.
        await page.click("#policy-findings .finding-info");
        await page.waitForSelector("#policy-editor .finding-info");
        const findings = await contrasts(page, [
          "#policy-editor .finding-info",
          "#policy-findings .finding-link",
        ]);
        expect(Object.keys(findings).length).toBe(2);
        await page.click(editorOf("policy"));
        await page.keyboard.press("Control+End");
        await page.keyboard.insertText("\n{");
        await decide(page);
        const tokens = [".tk-property", ".tk-string", ".tk-number", ".tk-atom", ".tk-comment"].map(
          (t) => `#policy-editor ${t}`,
        );
        const ratios = {
          ...findings,
          ...(await contrasts(page, [
            "h1",
            ".status",
            "#figures",
            "label",
            ".help",
            "#policy-editor .cm-line",
            "#policy-editor .cm-lineNumbers .cm-gutterElement",
            ".cm-gutterElement.bad",
            ".note",
            ".error-link",
            "#verdict-line",
            "#decide",
            "#copy-curl",
            ".notice",
            ...tokens,
          ])),
        };
        expect(Object.keys(ratios).length).toBeGreaterThanOrEqual(17);
        for (const [sel, ratio] of Object.entries(ratios))
          expect(ratio, `${scheme} ${sel}`).toBeGreaterThanOrEqual(4.5);
        await page.close();
      }
    }, 60_000);

    it("fits a phone's screen: one column, no sideways scrolling of the page, and Decide works", async () => {
      const page = await openPage("customs", { width: 390, height: 844 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const boxes = await Promise.all(
        ["#policy-editor .cm-editor", "#request-editor .cm-editor", "#decide"].map((s) =>
          page.locator(s).boundingBox(),
        ),
      );
      for (const box of boxes)
        expect(box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= 390).toBe(true);
      expect(boxes[1]!.y).toBeGreaterThan(boxes[0]!.y + boxes[0]!.height);
      expect(await decide(page)).toMatch(SCENARIOS[3].verdict);
      if (SHOTS) await page.screenshot({ path: join(SHOTS, "playground-phone.png") });
      await page.close();
    }, 60_000);
  },
);
