// @ts-check
/**
 * The match analysis in the playground's match view: the body `POST
 * /v1/match/analyze` answers (the playground's match trace carries it as
 * `trace.analysis`, made under the posted policy) as a summary line, the
 * clause table (each condition of the job's Requirements and the machines it
 * matches), the machines' own blocking conditions and the suggestions. Text
 * only ever goes in through textContent.
 */

/**
 * Makes an element.
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @param {...(Node | string | null | false)} children
 */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== false) e.append(c);
  return e;
}

/**
 * A scrollable table with a caption.
 * @param {string} caption
 * @param {string[]} head
 * @param {(Node | string)[][]} rows
 * @param {string} [id]
 */
function table(caption, head, rows, id) {
  return el(
    "div",
    { class: "table-wrap", tabindex: "0", role: "region", "aria-label": caption, ...(id ? { id } : {}) },
    el(
      "table",
      {},
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, ...head.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c))))),
    ),
  );
}

/** One operand's values as a line. @param {any} o */
function operandText(o) {
  if (o.value !== undefined) return o.value === o.expr ? "" : `${o.expr} = ${o.value}`;
  if (!Array.isArray(o.values)) return "";
  const listed =
    o.values.map((/** @type {any} */ v) => `${v.value} ×${v.machines}`).join(", ") +
    ((o.distinct ?? 0) > o.values.length ? ", …" : "");
  return o.min !== undefined ? `${o.expr}: ${o.min} .. ${o.max} (${listed})` : `${o.expr}: ${listed}`;
}

/** The values a clause's comparison saw. @param {any} c */
function valuesText(c) {
  return (Array.isArray(c.values) ? c.values : []).map(operandText).filter(Boolean).join("; ");
}

/**
 * The analysis section of the match view, or null when the answer has none.
 * @param {any} analysis `trace.analysis`: the /v1/match/analyze body, or null when the work budget ran out
 * @returns {HTMLElement | null}
 */
export function analysisPart(analysis) {
  if (analysis === undefined) return null;
  const part = el(
    "section",
    { class: "trace-part", id: "analysis" },
    el("h3", {}, "Match analysis (as condor_q -better-analyze)"),
  );
  if (analysis === null) {
    part.append(el("p", {}, "The analysis spent the work budget (DECISION_BUDGET) before it was done."));
    return part;
  }
  const m = analysis.machines;
  const kept = m.total - m.discarded_by_policy;
  part.append(
    el(
      "p",
      { id: "analysis-summary" },
      `Of ${m.total} machines: ${m.discarded_by_policy} discarded by the pool policy, ${m.rejected_by_job} rejected by the job's Requirements, ${m.rejecting_job} reject the job by their own, ${m.matching} match.`,
    ),
    table(
      `Each condition of the job's Requirements (with NEGOTIATOR_PE_JOB_EXPR) and the machines it matches, of ${kept} the pool policy keeps`,
      ["Step", "Condition", "From", "Matched", "Values seen"],
      analysis.clauses.map((/** @type {any} */ c) => [
        `[${c.index}]`,
        el("code", {}, c.expr),
        c.origin,
        el("span", { class: c.matches === 0 ? "bad" : "ok" }, String(c.matches)),
        valuesText(c),
      ]),
      "analysis-clauses",
    ),
  );
  if (analysis.machine_side.length > 0) {
    part.append(
      table(
        "Machines that turn the job away, by the first condition of their own side that is not true",
        ["Machines", "Condition", "From", "Names"],
        analysis.machine_side.map((/** @type {any} */ g) => [
          String(g.machines),
          el("code", {}, g.expr),
          g.origin,
          g.names.join(", ") + (g.machines > g.names.length ? ", …" : ""),
        ]),
      ),
    );
  }
  if (analysis.suggestions.length > 0) {
    part.append(
      el("h4", {}, "Suggestions"),
      el(
        "ul",
        { id: "analysis-suggestions" },
        ...analysis.suggestions.map((/** @type {any} */ s) =>
          el("li", {}, s.clause !== undefined ? `[${s.clause}] ` : "", s.message),
        ),
      ),
    );
  }
  return part;
}
