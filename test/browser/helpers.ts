/**
 * What the Chromium suites share: where Chromium is and how it is launched, and how a
 * test works the playground page as a user would (type into an editor, press Decide,
 * read where the caret is).
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";

export { CHROMIUM, HAVE_CHROMIUM, LAUNCH_ARGS } from "../support/chromium.js";

/** The editor (CodeMirror's content element) that edits the hidden textarea `id`. */
export const editorOf = (id: string) => `[data-editor=${id}]`;

/**
 * Replaces an editor's text as a user would (select all, then type or paste it in one
 * input), and waits until the page holds it.
 */
export async function setText(page: Page, id: string, text: string): Promise<void> {
  await page.click(editorOf(id));
  await page.keyboard.press("Control+a");
  if (text === "") await page.keyboard.press("Delete");
  else await page.keyboard.insertText(text);
  await expect.poll(() => page.inputValue(`#${id}`)).toBe(text);
}

/** Turns "Decide as you type" off, so each verdict read is the one a Decide asked for. */
export async function liveOff(page: Page): Promise<void> {
  if (await page.isChecked("#live")) await page.click("#live");
}

/** The line the caret is on in an editor (CodeMirror marks it in the line-number gutter). */
export async function caretLine(page: Page, editor: string): Promise<number> {
  return Number(await page.textContent(`#${editor}-editor .cm-lineNumbers .cm-activeLineGutter`));
}

/** Presses Decide (by button or by Ctrl+Enter) and waits until the answer is on the page. */
export async function decide(page: Page, how: "click" | "keys" = "click"): Promise<string> {
  const before = Number((await page.getAttribute("body", "data-decided")) ?? "0");
  if (how === "click") await page.click("#decide");
  else await page.keyboard.press("Control+Enter");
  await page.waitForFunction((n) => Number(document.body.dataset.decided ?? "0") > n, before);
  return ((await page.textContent("#verdict-line")) ?? "").trim();
}
