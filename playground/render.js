// @ts-check
/**
 * Turns a playground answer into DOM: a one-line verdict, then the trace in
 * each origin's own terms (pScheduler's diagnostics, YuniKorn's rule chain,
 * HTCondor's match table, customs' ratings, Ganeti's rule walk), then the
 * whole trace as a tree. Text only ever goes in through textContent.
 */
import { analysisPart } from "./analysis.js";

/**
 * Makes an element.
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** @param {unknown} v */
const text = (v) => (typeof v === "string" ? v : JSON.stringify(v));

/** A yes/no cell with a word, not only a colour. @param {boolean} ok @param {string} yes @param {string} no */
function flag(ok, yes = "yes", no = "no") {
  return h("span", { class: ok ? "ok" : "bad" }, ok ? `✓ ${yes}` : `✗ ${no}`);
}

/**
 * A table from rows of cells.
 * @param {string} caption
 * @param {string[]} head
 * @param {(Node | string)[][]} rows
 * @param {(i: number) => boolean} [chosen]
 */
function table(caption, head, rows, chosen = () => false) {
  return h(
    "div",
    { class: "table-wrap", tabindex: "0", role: "region", "aria-label": caption },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...rows.map((r, i) => h("tr", chosen(i) ? { class: "chosen" } : {}, ...r.map((c) => h("td", {}, c)))),
      ),
    ),
  );
}

/** A section of the trace. @param {string} title @param {...(Node | string | null | false)} body */
function section(title, ...body) {
  return h("section", { class: "trace-part" }, h("h3", {}, title), ...body);
}

/**
 * Any JSON value as a tree: each object or array opens and closes, each
 * scalar sits beside its key.
 * @param {unknown} value
 * @param {string} [label]
 * @param {number} [depth]
 * @returns {Node}
 */
export function tree(value, label = "trace", depth = 0) {
  const key = h("span", { class: "key" }, label);
  if (value === null || typeof value !== "object") {
    return h(
      "div",
      { class: "leaf-row" },
      key,
      ": ",
      h("span", { class: `leaf ${value === null ? "null" : typeof value}` }, text(value)),
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const size = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0)
    return h("div", { class: "leaf-row" }, key, `: ${Array.isArray(value) ? "[]" : "{}"}`);
  return h(
    "details",
    depth < 3 ? { open: "" } : {},
    h("summary", {}, key, ` ${size}`),
    h("ul", { class: "tree" }, ...entries.map(([k, v]) => h("li", {}, tree(v, k, depth + 1)))),
  );
}

/** @param {any} a */
function limitsView(a) {
  const t = a.trace ?? {};
  const summary = [
    a.allowed ? "Allowed" : "Denied",
    a.priority !== null && a.priority !== undefined ? `priority ${a.priority}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  const parts = [
    section("Diagnostics", h("pre", { class: "diagnostics" }, a.diagnostics ?? "")),
    Array.isArray(t.identifiers) &&
      section(
        "Identifiers",
        h(
          "ul",
          { class: "checks" },
          ...t.identifiers.map((/** @type {any} */ i) =>
            h(
              "li",
              {},
              flag(i.identified, i.name, i.name),
              i.error || i.note ? h("span", { class: "why" }, ` (${i.error ?? i.note})`) : null,
            ),
          ),
        ),
      ),
    Array.isArray(t.classifiers) &&
      section("Classifiers", h("p", {}, t.classifiers.length ? t.classifiers.join(", ") : "none")),
    Array.isArray(t.limits) &&
      section(
        "Limits",
        t.limits.length === 0
          ? h("p", {}, "no limit was checked")
          : h(
              "ul",
              { class: "checks" },
              ...t.limits.map((/** @type {any} */ l) =>
                h(
                  "li",
                  {},
                  flag(l.passed, l.limit, l.limit),
                  l.reasons?.length ? h("span", { class: "why" }, `: ${l.reasons.join("; ")}`) : null,
                ),
              ),
            ),
      ),
    a.changes?.length
      ? section("Rewrites", h("ul", {}, ...a.changes.map((/** @type {string} */ c) => h("li", {}, c))))
      : null,
  ];
  return { summary, ok: a.allowed === true, parts };
}

/** @param {any} a */
function placementView(a) {
  const t = a.trace ?? {};
  const rule = a.rule ? ` by rule ${a.rule.index} (${a.rule.name})` : "";
  const summary = a.rejected
    ? `Rejected${rule}: ${a.reason ?? ""}`
    : `Placed in ${a.queue}${a.create ? " (to be created)" : ""}${rule}`;
  const steps = Array.isArray(t.rules) ? t.rules : [];
  const parts = [
    section(
      `Rule chain${t.partition ? ` of partition ${t.partition}` : ""}`,
      steps.length === 0
        ? h("p", {}, "no rule ran")
        : h(
            "ol",
            { class: "chain", start: "0" },
            ...steps.map((/** @type {any} */ s) =>
              h(
                "li",
                { value: String(s.index), class: s.result === "placed" ? "chosen" : "" },
                h("strong", {}, s.rule),
                ` → ${s.result}`,
                s.queue ? ` ${s.queue}` : "",
                s.why ? h("div", { class: "why" }, s.why) : null,
              ),
            ),
          ),
    ),
    t.creation ? section("Queue creation", h("p", {}, text(t.creation))) : null,
  ];
  return { summary, ok: !a.rejected, parts };
}

/** @param {any} a */
function matchView(a) {
  const t = a.trace ?? {};
  /** @type {Map<string, any>} */
  const pairs = new Map((t.pairs ?? []).map((/** @type {any} */ p) => [p.machine, p]));
  const machines = Array.isArray(a.machines) ? a.machines : [];
  const summary = a.job?.discarded
    ? "The job is discarded (NEGOTIATOR_PE_JOB_ONLY_EXPR)"
    : a.best
      ? `Best machine: ${a.best}`
      : "No machine matches";
  const rows = machines.map((/** @type {any} */ m) => {
    const p = pairs.get(m.name) ?? {};
    return [
      m.name ?? "",
      m.discarded ? flag(false, "", "discarded") : "kept",
      p.machine_requirements ?? "",
      p.job_requirements ?? "",
      p.resource_expr ?? "",
      p.job_expr ?? "",
      m.discarded ? "" : flag(m.match === true, "match", "no match"),
      m.discarded || m.rank === undefined || m.rank === null ? "" : text(m.rank),
    ];
  });
  const policy = t.policy && typeof t.policy === "object" ? Object.entries(t.policy) : [];
  const parts = [
    section(
      "Match table",
      table(
        "Each machine: the startd filter, the machine's and the job's Requirements, the pool's resource and job expressions, the match and the job's Rank",
        [
          "Machine",
          "Startd filter",
          "Machine Requirements",
          "Job Requirements",
          "PE resource expr",
          "PE job expr",
          "Match",
          "Rank",
        ],
        rows,
        (i) => machines[i]?.name === a.best,
      ),
    ),
    analysisPart(t.analysis),
    a.log?.length ? section("Negotiator log", h("pre", {}, a.log.join("\n"))) : null,
    policy.length
      ? section(
          "Pool policy",
          h(
            "dl",
            { class: "exprs" },
            ...policy.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, h("code", {}, text(v)))]),
          ),
        )
      : null,
  ];
  return { summary, ok: Boolean(a.best), parts };
}

/** @param {any} a */
function customsView(a) {
  const ratings = Object.entries(a.trace?.ratings ?? {});
  const summary = a.host
    ? `Host ${a.host}${a.address ? ` (${a.address})` : ""}`
    : `No host: ${a.reason ?? "none available"}`;
  const limits =
    a.limits && typeof a.limits === "object"
      ? Object.entries(a.limits)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")
      : "";
  const parts = [
    a.permit
      ? section(
          "Permit",
          h(
            "p",
            {},
            `permit ${a.permit.id}, until ${a.permit.expires_at}${limits ? `; job limits: ${limits}` : ""}`,
          ),
        )
      : null,
    section(
      "Ratings per host",
      table(
        "Each host in scan order: its customs rating, or why it was unavailable or excluded",
        ["Host", "Rating or reason"],
        ratings.map(([name, r]) => [name === a.host ? h("strong", {}, `${name} (chosen)`) : name, text(r)]),
        (i) => ratings[i]?.[0] === a.host,
      ),
    ),
  ];
  return { summary, ok: Boolean(a.host), parts };
}

/** @param {any} a */
function jobfilterView(a) {
  const rules = Array.isArray(a.trace?.rules) ? a.trace.rules : [];
  const buckets = Array.isArray(a.trace?.buckets) ? a.trace.buckets : [];
  const state = a.run
    ? `runs now${a.lease ? ` (lease until ${a.lease.expires_at})` : ""}`
    : a.state === "cancelled"
      ? "cancelled"
      : "held in the queue";
  const summary = `${a.action}${a.rule ? ` by rule ${a.rule}` : " (no rule applies)"}: ${state}`;
  const parts = [
    section(
      "Rule walk",
      rules.length === 0
        ? h("p", {}, "no filter rules: every job is accepted")
        : table(
            "Each rule in evaluation order (priority, then watermark): its action, what became of it (applied, continued, no_match, not_reached) and why, naming the predicate that failed",
            ["#", "Priority", "Rule", "Action", "Watermark", "Matches", "Result", "Why"],
            rules.map((/** @type {any} */ r, /** @type {number} */ i) => [
              String(i),
              text(r.priority),
              r.uuid,
              text(r.action),
              text(r.watermark),
              flag(r.matches === true, "matches", "no"),
              text(r.result ?? ""),
              text(r.why ?? ""),
            ]),
            (i) => rules[i]?.uuid === a.rule,
          ),
    ),
    buckets.length
      ? section(
          "Ad-hoc rate-limit buckets",
          h(
            "ul",
            {},
            ...buckets.map((/** @type {any} */ b) => h("li", {}, `${b.key}: at most ${b.limit} running`)),
          ),
        )
      : null,
  ];
  return { summary, ok: a.action === "ACCEPT", parts };
}

const VIEWS = {
  limits: limitsView,
  placement: placementView,
  match: matchView,
  customs: customsView,
  jobfilter: jobfilterView,
};

/**
 * The verdict line and the trace of one answer.
 * @param {string} engine
 * @param {any} answer the JSON body of `POST /v1/playground/{engine}`
 */
export function renderAnswer(engine, answer) {
  const view = (VIEWS[/** @type {keyof typeof VIEWS} */ (engine)] ?? limitsView)(answer);
  const verdict = h(
    "div",
    { class: `verdict ${view.ok ? "ok" : "bad"}`, id: "verdict-line" },
    h("span", { class: "badge" }, view.ok ? "✓" : "✗"),
    h("span", { class: "verdict-text" }, view.summary),
  );
  const meta = h(
    "p",
    { class: "meta" },
    `revision ${String(answer.revision).slice(0, 12)}… · decision ${answer.decision_id}`,
  );
  const raw = h(
    "details",
    { class: "raw" },
    h("summary", {}, "The whole answer (JSON)"),
    h("pre", {}, JSON.stringify(answer, null, 2)),
  );
  const traceTree = answer.trace !== undefined ? section("Trace as a tree", tree(answer.trace)) : null;
  return [verdict, meta, ...view.parts.filter(Boolean), traceTree, raw].filter(
    (n) => n !== null && n !== false,
  );
}

/**
 * An error answer: its code and message, and each detail that could not be
 * shown beside a line.
 * @param {{ code?: string, message?: string }} error
 * @param {{ message: string, at?: string }[]} unplaced
 */
export function renderError(error, unplaced) {
  return [
    h(
      "div",
      { class: "verdict bad", id: "verdict-line" },
      h("span", { class: "badge" }, "!"),
      h("span", { class: "verdict-text" }, `${error.code ?? "error"}: ${error.message ?? ""}`),
    ),
    unplaced.length
      ? h(
          "ul",
          { class: "unplaced" },
          ...unplaced.map((d) => h("li", {}, d.at ? `${d.at}: ${d.message}` : d.message)),
        )
      : null,
  ].filter((n) => n !== null);
}
