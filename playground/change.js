// @ts-check
/**
 * The buttons that take an experiment further: Save as test case (the case for
 * `arbiter test`, to copy or download), Compare with active (the same request under
 * the active policy, and the fields that differ), and Stage as candidate (`PUT
 * /v1/policies/{engine}?stage=candidate`, then its shadow report).
 */
import { testCaseYaml, verdictDiff } from "./actions.js";
import { h, tree } from "./render.js";
import { playgroundBody } from "./share.js";

/**
 * What the buttons need from the page.
 * @typedef {{
 *   engine: () => string,
 *   policy: () => string,
 *   request: () => string,
 *   headers: (extra?: Record<string, string>) => Record<string, string>,
 *   decide: () => Promise<{ ok: boolean, body: any }>,
 *   show: (nodes: Node[]) => void,
 *   copy: (label: string, text: string) => Promise<void>,
 * }} ChangeContext
 */

/** A message line in the result panel. @param {boolean} ok @param {string} text */
const line = (ok, text) =>
  h(
    "div",
    { class: `verdict ${ok ? "ok" : "bad"}`, id: "verdict-line" },
    h("span", { class: "badge" }, ok ? "✓" : "!"),
    h("span", { class: "verdict-text" }, text),
  );

/** An API error body as one sentence. @param {Response} res @param {any} body */
const why = (res, body) => `${body?.error?.code ?? res.status}: ${body?.error?.message ?? res.statusText}`;

/** Wires the three buttons. @param {ChangeContext} ctx */
export function wireChangeButtons(ctx) {
  const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));

  button("save-test").addEventListener("click", async () => {
    const answer = await ctx.decide();
    if (!answer.ok) return;
    const summary =
      document.querySelector("#verdict-line .verdict-text")?.textContent ?? "the playground's verdict";
    const yaml = testCaseYaml({
      engine: ctx.engine(),
      request: ctx.request(),
      answer: answer.body,
      name: `from the playground: ${summary}`,
    });
    const file = `${ctx.engine()}-playground.test.yaml`;
    const link = h(
      "a",
      {
        id: "download-test",
        download: file,
        href: URL.createObjectURL(new Blob([yaml], { type: "text/yaml" })),
      },
      `Download ${file}`,
    );
    await ctx.copy("the test case", yaml);
    document
      .getElementById("actions-extra")
      ?.replaceChildren(
        link,
        " — save it beside the policy and run ",
        h("code", {}, `npx arbiter test ${file}`),
      );
  });

  button("compare-active").addEventListener("click", async () => {
    const engine = ctx.engine();
    const active = await fetch(`/v1/policies/${engine}`, { headers: ctx.headers() });
    if (!active.ok)
      return ctx.show([
        line(
          false,
          `No active ${engine} policy to compare with (${why(active, await active.json().catch(() => null))})`,
        ),
      ]);
    const activeText = await active.text();
    const run = async (/** @type {string} */ policy) => {
      const res = await fetch(`/v1/playground/${engine}`, {
        method: "POST",
        headers: ctx.headers({ "content-type": "application/json" }),
        body: playgroundBody(policy, ctx.request()),
      });
      const body = await res.json().catch(() => null);
      return res.ok ? { ok: true, body } : { ok: false, body: why(res, body) };
    };
    const [edited, current] = await Promise.all([run(ctx.policy()), run(activeText)]);
    if (!edited.ok || !current.ok)
      return ctx.show([
        line(
          false,
          `Could not compare: ${!edited.ok ? `the edited policy gave ${edited.body}` : `the active policy gave ${current.body}`}`,
        ),
      ]);
    const diff = verdictDiff(edited.body, current.body);
    const text = (/** @type {unknown} */ v) => (v === undefined ? "(absent)" : JSON.stringify(v));
    ctx.show([
      line(
        diff.length === 0,
        diff.length === 0
          ? "Same verdict under the edited and the active policy"
          : `${diff.length} field${diff.length === 1 ? "" : "s"} differ from the active policy's verdict`,
      ),
      diff.length === 0
        ? h("p", { class: "meta" }, "Ids, revisions, times and the trace are left out of the comparison.")
        : h(
            "div",
            { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Fields that differ" },
            h(
              "table",
              { id: "compare-table" },
              h(
                "caption",
                {},
                "Each field whose value differs: under the edited policy, and under the active one",
              ),
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  h("th", { scope: "col" }, "Field"),
                  h("th", { scope: "col" }, "Edited"),
                  h("th", { scope: "col" }, "Active"),
                ),
              ),
              h(
                "tbody",
                {},
                ...diff.map((d) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, h("code", {}, d.at)),
                    h("td", {}, text(d.edited)),
                    h("td", {}, text(d.active)),
                  ),
                ),
              ),
            ),
          ),
    ]);
  });

  button("stage-candidate").addEventListener("click", async () => {
    const engine = ctx.engine();
    const res = await fetch(`/v1/policies/${engine}?stage=candidate`, {
      method: "PUT",
      headers: ctx.headers({ "content-type": "text/plain; charset=utf-8" }),
      body: ctx.policy(),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) return ctx.show([line(false, `Not staged: ${why(res, body)}`)]);
    const open = h("button", { type: "button", id: "open-report" }, "Open the shadow report");
    open.addEventListener("click", async () => {
      const r = await fetch("/v1/candidate/report", { headers: ctx.headers() });
      const report = await r.json().catch(() => null);
      document
        .getElementById("report")
        ?.replaceChildren(r.ok ? tree(report, "shadow report") : line(false, `No report: ${why(r, report)}`));
    });
    ctx.show([
      line(
        true,
        `Staged the edited ${engine} policy as the candidate (revision ${String(body?.revision ?? "?").slice(0, 12)}…): decisions are now also evaluated under it; the active policy is unchanged.`,
      ),
      h(
        "p",
        {},
        open,
        " ",
        h(
          "a",
          { href: "/v1/candidate/report", target: "_blank", rel: "noopener" },
          "GET /v1/candidate/report",
        ),
        " (the link needs no token only when auth is off)",
      ),
      h("div", { id: "report" }),
    ]);
  });
}
