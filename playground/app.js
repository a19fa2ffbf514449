// @ts-check
/**
 * The playground page: pick an engine, edit its policy and a request, Decide.
 * Talks only to this Worker: `GET /v1/status`, `GET /v1/policies/{engine}`
 * (the active policy) and `POST /v1/playground/{engine}` (compile in memory,
 * decide with the trace). The state goes into the URL fragment as it changes.
 */
import { wireChangeButtons } from "./change.js";
import { PageEditor } from "./editor.js";
import { ENGINES, engineInfo, exampleText } from "./engines.js";
import { locate, placeOf, scanJson } from "./locate.js";
import { figuresScope, statusFigures } from "./figures.js";
import { JqControls, cleanJqOptions, jqBody, jqCommand, noJqOptions, renderJq } from "./jq-pane.js";
import { renderAnswer, renderError } from "./render.js";
import { curlCommand, decodeState, encodeState, evalCommand, playgroundBody } from "./share.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

const engineSelect = /** @type {HTMLSelectElement} */ ($("engine"));
const tokenInput = /** @type {HTMLInputElement} */ ($("token"));
/** @type {PageEditor} */
let policyEditor;
/** @type {PageEditor} */
let requestEditor;
/** The match engine's ClassAd text editors: the job ad, and the machine ads (made when match is first shown). @type {PageEditor[]} */
let adEditors = [];
/** The loaded editor module (null: the plain editors), for the editors made later. @type {import("./editor.js").EditorModule | null} */
let editorModule = null;
const liveBox = /** @type {HTMLInputElement} */ ($("live"));
const jqControls = new JqControls($("jq-options"), () => edited("policy"));
const result = $("result-body");
const output = $("result-body");
const commandBox = $("command");
const notice = $("notice");

/** @type {{ auth: boolean, status: any }} */
const server = { auth: false, status: null };
/** Texts per engine this session, so switching engines back and forth keeps edits. @type {Map<string, { policy: string, request: string, options?: import("./jq-pane.js").JqOptions }>} */
const drafts = new Map();
let current = engineInfo(null);
/** Whether the editors hold an engine's texts yet (not before the first engine is shown). */
let shown = false;
let lastFragment = "";

const TOKEN_KEY = "arbiter-playground-token";
/** Policies longer than this are not decided as you type unless the box is ticked. */
const LIVE_LIMIT = 20_000;
/** Whether the user set the live box (then it stays as they set it). */
let liveSet = false;
/** The pause after typing before the check (or the decision as you type). */
let typingTimer = 0;

/** Headers of a call to the Worker, with the admin token when one is entered. */
function headers(/** @type {Record<string, string>} */ extra = {}) {
  const token = tokenInput.value.trim();
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** Shows a short message in the notice line (announced politely). @param {string} text */
function say(text) {
  notice.textContent = text;
}

/** Reads `/v1/status` for the header lines (revision, auth, the headline figures) and whether the API wants a token. */
async function loadStatus() {
  try {
    // With auth on, the figures need the metrics or admin token; without one the answer is only `ok` and `auth`.
    const res = await fetch("/v1/status", { headers: headers() });
    const status = await res.json();
    server.status = status;
    server.auth =
      res.status === 401 ||
      res.status === 403 ||
      (status.auth !== "disabled" && status.auth_routes?.admin !== "open");
    const parts = [
      `revision ${String(status.revision ?? "?").slice(0, 12)}…`,
      `bundle ${status.bundle?.source ?? "?"}`,
      `auth ${status.auth ?? "?"}`,
    ];
    $("status").textContent = parts.join(" · ");
    const figures = statusFigures(status);
    const line = $("figures");
    line.textContent = figures.length > 0 ? `${figuresScope(status)}: ${figures.join(" · ")}` : "";
    line.title =
      status.metrics?.scope === "isolate"
        ? "Counters of the isolate that answered (GET /metrics has them all; docs/operations.md, Metrics)"
        : "";
    line.hidden = figures.length === 0;
  } catch {
    $("status").textContent = "status unavailable";
  }
  $("token-field").hidden = !server.auth;
}

/** The active policy of an engine, or null with a notice when it cannot be read. @param {string} engine */
async function activePolicy(engine) {
  try {
    const res = await fetch(`/v1/policies/${engine}`, { headers: headers() });
    if (res.ok) return await res.text();
    const body = await res.json().catch(() => ({}));
    if (res.status === 401 || res.status === 403)
      say(
        `Enter the admin token to load the active ${engine} policy (${body.error?.message ?? res.status}).`,
      );
    else if (res.status === 404) say(`No ${engine} policy is active: write one.`);
    else say(`Could not load the active ${engine} policy: ${body.error?.message ?? res.status}`);
  } catch (e) {
    say(
      `Could not load the active ${engine} policy: the server did not answer (${e}). Check the connection, then press “Load the active policy”; your edits are kept.`,
    );
  }
  return null;
}

/**
 * Puts an engine's texts in the editors (and the jq pane's options).
 * @param {{ name: string }} engine @param {string} policy @param {string} request @param {import("./jq-pane.js").JqOptions} [options]
 */
function show(engine, policy, request, options = noJqOptions()) {
  current = engineInfo(engine.name);
  if (current.name === "match") makeAdEditors();
  const jq = current.name === "jq";
  $("policy-label").textContent = jq ? "Program" : "Policy";
  $("request-label").textContent = jq ? "Input" : "Request";
  $("copy-eval-name").textContent = jq ? "arbiter jq" : "arbiter eval";
  jqControls.value = options;
  shown = true;
  document.body.dataset.engine = current.name;
  engineSelect.value = current.name;
  $("policy-format").textContent = current.format;
  $("request-help").textContent = current.requestHelp;
  policyEditor.setLanguage(current.language);
  policyEditor.value = policy;
  requestEditor.value = request;
  if (!liveSet) liveBox.checked = policy.length <= LIVE_LIMIT;
  clearResult();
  linted = "";
  $("check-state").textContent = "";
  // A policy put in the editor is checked (and linted) as an edit would be, once the page has settled.
  clearTimeout(typingTimer);
  if (!jq && policy.trim() !== "") typingTimer = window.setTimeout(() => void checkPolicy(), 400);
}

function clearResult() {
  const hint = document.createElement("p");
  hint.className = "placeholder";
  hint.textContent = "Press Decide (or Ctrl+Enter) to see the verdict and its trace.";
  output.replaceChildren(hint);
  commandBox.textContent = "";
  commandBox.hidden = true;
}

let switches = 0;

/** Switches to an engine: this session's draft, else the active policy and the example request. @param {string} name */
async function switchEngine(name) {
  saveDraft();
  const engine = engineInfo(name);
  const draft = drafts.get(engine.name);
  const mine = ++switches;
  if (draft) {
    delete document.body.dataset.loading;
    show(engine, draft.policy, draft.request, draft.options);
    return writeFragment();
  }
  if (engine.program !== undefined) {
    delete document.body.dataset.loading;
    say("");
    show(engine, engine.program, exampleText(engine));
    return writeFragment();
  }
  document.body.dataset.loading = "true";
  const asked = early !== null && early.engine === engine.name ? early.text : null;
  early = null;
  // The policy asked for early says itself what became of it (it may have already).
  if (asked === null) say(`Loading the active ${engine.name} policy…`);
  const policy = await (asked ?? activePolicy(engine.name));
  // A later switch wins: its answer must not be overwritten by this one's.
  if (mine !== switches) return;
  delete document.body.dataset.loading;
  if (policy !== null) say(`Loaded the active ${engine.name} policy.`);
  show(engine, policy ?? "", exampleText(engine));
  await writeFragment();
}

function saveDraft() {
  if (shown)
    drafts.set(current.name, {
      policy: policyEditor.value,
      request: requestEditor.value,
      options: current.name === "jq" ? jqControls.value : undefined,
    });
}

/** Writes the state into the fragment without adding a history entry. */
async function writeFragment() {
  const fragment = await encodeState({
    engine: current.name,
    policy: policyEditor.value,
    request: requestEditor.value,
    options: current.name === "jq" ? jqControls.value : undefined,
  });
  lastFragment = fragment;
  history.replaceState(null, "", `#${fragment}`);
}

let fragmentTimer = 0;
function scheduleFragment() {
  clearTimeout(fragmentTimer);
  fragmentTimer = window.setTimeout(() => void writeFragment(), 250);
}

/** Restores the state a fragment holds; false when it holds none. */
async function readFragment() {
  const fragment = location.hash.replace(/^#/, "");
  if (fragment === "") return false;
  if (fragment === lastFragment) return true;
  const state = await decodeState(fragment);
  if (state === null) return false;
  const engine = engineInfo(state.engine);
  if ("policy" in state) {
    const options = cleanJqOptions("options" in state ? state.options : null);
    show(engine, state.policy, state.request, options);
    drafts.set(engine.name, { policy: state.policy, request: state.request, options });
    lastFragment = fragment;
    return true;
  }
  await switchEngine(engine.name);
  return true;
}

/**
 * Marks errors in the editors: policy details by `at` (line:column, or a JSON
 * pointer into a JSON policy), request details by their pointer under `/request`.
 * @param {{ code?: string, message?: string, details?: { code?: string, message: string, at?: string }[] }} error
 */
function showErrors(error) {
  const details = error.details?.length ? error.details : [{ message: error.message ?? "", at: undefined }];
  const policyMarks = [];
  const requestMarks = [];
  const unplaced = [];
  for (const d of details) {
    if (error.code === "policy_invalid") {
      const place = locate(d.at, policyEditor.value, { comments: current.comments });
      if (place) policyMarks.push({ ...place, message: d.message });
      else unplaced.push(d);
    } else {
      const place = locate(d.at, requestEditor.value, { strip: "/request" });
      if (place) requestMarks.push({ ...place, message: d.message });
      else unplaced.push(d);
    }
  }
  policyEditor.setMarks(policyMarks, true);
  // Lint runs on valid policies only: an invalid one shows its errors alone.
  if (error.code === "policy_invalid") policyEditor.setFindings([]);
  requestEditor.setMarks(requestMarks, true);
  output.replaceChildren(...renderError(error, unplaced));
}

/** The last answer Decide got: its texts, and the body when it was a verdict. @type {{ engine: string, policy: string, request: string, ok: boolean, body: any } | null} */
let lastAnswer = null;

let deciding = false;
/** Whether an edit came while a decision was under way (then it is decided again). */
let again = false;

/** Posts the policy and the request to the playground route and shows the answer. @returns {Promise<void>} */
async function decide() {
  // A check still waiting for typing to pause would only clear the marks this decision shows.
  clearTimeout(typingTimer);
  if (deciding) {
    again = true;
    return;
  }
  again = false;
  if (current.name === "jq") return runJq();
  const scan = scanJson(requestEditor.value);
  if (!scan.ok) {
    policyEditor.setMarks([]);
    const place = placeOf(requestEditor.value, scan.offset);
    requestEditor.setMarks([{ ...place, message: `the request is not valid JSON: ${scan.message}` }], true);
    output.replaceChildren(
      ...renderError(
        {
          code: "invalid_json",
          message: `the request is not valid JSON: ${scan.message} (line ${place.line}, column ${place.column})`,
        },
        [],
      ),
    );
    document.body.dataset.decided = String(Number(document.body.dataset.decided ?? "0") + 1);
    return;
  }
  deciding = true;
  result.setAttribute("aria-busy", "true");
  const button = /** @type {HTMLButtonElement} */ ($("decide"));
  button.disabled = true;
  try {
    const res = await fetch(`/v1/playground/${current.name}`, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: playgroundBody(policyEditor.value, requestEditor.value),
    });
    const body = await res
      .json()
      .catch(() => ({ error: { code: "internal_error", message: `HTTP ${res.status}` } }));
    lastAnswer = {
      engine: current.name,
      policy: policyEditor.value,
      request: requestEditor.value,
      ok: res.ok,
      body,
    };
    if (res.ok) {
      policyEditor.setMarks([]);
      requestEditor.setMarks([]);
      output.replaceChildren(...renderAnswer(current.name, body));
      // The policy compiled, so it is valid: lint it (once per text) as the check as you type would.
      if (lastAnswer.policy !== linted) void lintPolicy(current.name, lastAnswer.policy);
    } else showErrors(body.error ?? { code: String(res.status), message: "request failed" });
  } catch (e) {
    output.replaceChildren(
      ...renderError(
        {
          code: "network_error",
          message: `the server did not answer (${e}): check the connection and press Decide again; your texts are kept`,
        },
        [],
      ),
    );
  } finally {
    deciding = false;
    button.disabled = false;
    result.setAttribute("aria-busy", "false");
    document.body.dataset.decided = String(Number(document.body.dataset.decided ?? "0") + 1);
  }
  if (again) return decide();
  // The figures count the service's decisions (playground trials are not among them): refresh them as the user works.
  void loadStatus();
}

/** Runs the jq pane's program on its input (`POST /v1/playground/jq`) and shows what it printed. @returns {Promise<void>} */
async function runJq() {
  deciding = true;
  result.setAttribute("aria-busy", "true");
  const button = /** @type {HTMLButtonElement} */ ($("decide"));
  button.disabled = true;
  try {
    const res = await fetch("/v1/playground/jq", {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: jqBody(policyEditor.value, requestEditor.value, jqControls.value),
    });
    const body = await res
      .json()
      .catch(() => ({ error: { code: "internal_error", message: `HTTP ${res.status}` } }));
    output.replaceChildren(
      ...(res.ok
        ? renderJq(body)
        : renderError(
            body.error ?? { code: String(res.status), message: "request failed" },
            body.error?.details ?? [],
          )),
    );
  } catch (e) {
    output.replaceChildren(
      ...renderError(
        {
          code: "network_error",
          message: `the server did not answer (${e}): check the connection and press Decide again`,
        },
        [],
      ),
    );
  } finally {
    deciding = false;
    button.disabled = false;
    result.setAttribute("aria-busy", "false");
    document.body.dataset.decided = String(Number(document.body.dataset.decided ?? "0") + 1);
  }
  if (again) return decide();
}

let checks = 0;
let lints = 0;
/** The policy text the findings shown are for. */
let linted = "";

/** `✓ valid`, with the lint findings counted when there are any. @param {{ severity: string }[]} findings */
function validWord(findings) {
  const count = (/** @type {string} */ severity, /** @type {string} */ plural) => {
    const n = findings.filter((f) => f.severity === severity).length;
    return n === 0 ? [] : [`${n} ${n === 1 ? severity : plural}`];
  };
  const parts = [...count("warning", "warnings"), ...count("info", "infos")];
  return parts.length === 0 ? "✓ valid" : `✓ valid, ${parts.join(", ")}`;
}

/**
 * Lints a policy that validated: `POST /v1/policies/{engine}/lint` (which stores
 * nothing), its findings shown in the editor as warnings and infos, each under its
 * line. A later lint wins; an answer for a text since edited is dropped (the edit
 * brings its own check). A failed lint leaves the editor as it was.
 * @param {string} engine @param {string} text
 */
async function lintPolicy(engine, text) {
  const mine = ++lints;
  const fresh = () => mine === lints && engine === current.name && text === policyEditor.value;
  try {
    const res = await fetch(`/v1/policies/${engine}/lint`, {
      method: "POST",
      headers: headers({ "content-type": "text/plain" }),
      body: text,
    });
    const body = res.ok ? await res.json() : null;
    if (!fresh() || body === null) return;
    /** @type {{ code: string, severity: "warning" | "info", message: string, at: string }[]} */
    const found = Array.isArray(body.findings) ? body.findings : [];
    const findings = found.map((f) => ({
      ...(locate(f.at, text, { comments: current.comments }) ?? { line: 1, column: 1 }),
      code: f.code,
      severity: f.severity,
      message: f.message,
    }));
    linted = text;
    policyEditor.setFindings(findings);
    $("check-state").textContent = validWord(findings);
  } catch {
    // The check's own message already says when the server does not answer.
  } finally {
    if (mine === lints)
      document.body.dataset.linted = String(Number(document.body.dataset.linted ?? "0") + 1);
  }
}

/**
 * Checks the policy as it is typed: `POST /v1/policies/{engine}/validate` (which
 * stores nothing) and its errors shown in the editor; a later check wins. A valid
 * policy is then linted (`lintPolicy`).
 */
async function checkPolicy() {
  const mine = ++checks;
  const engine = current.name;
  const text = policyEditor.value;
  const state = $("check-state");
  const done = (/** @type {string} */ word) => {
    if (mine !== checks) return false;
    state.textContent = word;
    document.body.dataset.checked = String(Number(document.body.dataset.checked ?? "0") + 1);
    return true;
  };
  state.textContent = "checking…";
  try {
    const res = await fetch(`/v1/policies/${engine}/validate`, {
      method: "POST",
      headers: headers({ "content-type": "text/plain" }),
      body: text,
    });
    if (mine !== checks || engine !== current.name) return;
    if (res.ok) {
      if (done("✓ valid")) {
        policyEditor.setMarks([]);
        await lintPolicy(engine, text);
      }
      return;
    }
    const body = await res.json().catch(() => ({}));
    const error = body.error ?? {};
    if (error.code === "policy_invalid") {
      const details = error.details?.length
        ? error.details
        : [{ message: error.message ?? "", at: undefined }];
      const marks = [];
      for (const d of details) {
        const place = locate(d.at, text, { comments: current.comments }) ?? { line: 1, column: 1 };
        marks.push({ ...place, message: d.message });
      }
      if (done(`✗ ${marks.length} error${marks.length === 1 ? "" : "s"}`)) {
        policyEditor.setMarks(marks);
        policyEditor.setFindings([]);
        linted = "";
      }
    } else if (res.status === 401 || res.status === 403) done("enter the admin token to check as you type");
    else done(`not checked: ${error.message ?? res.status}`);
  } catch (e) {
    done(`not checked: the server did not answer (${e instanceof Error ? e.message : e})`);
  }
}

/** Marks the request where it stops being JSON, as it is typed; true when it is JSON. */
function checkRequest() {
  const scan = scanJson(requestEditor.value);
  if (scan.ok) requestEditor.setMarks([]);
  else
    requestEditor.setMarks([
      {
        ...placeOf(requestEditor.value, scan.offset),
        message: `the request is not valid JSON: ${scan.message}`,
      },
    ]);
  return scan.ok;
}

/**
 * The match request from the ClassAd text editors: the job ad as its text (or the
 * one ad of `condor_q -json`), the machine ads as one text, which the API splits at
 * blank lines (or reads as `condor_status -json`).
 */
function adsToRequest() {
  const [job, machines] = adEditors.map((ed) => ed.value.trim());
  requestEditor.value = `${JSON.stringify({ job, machines: machines === "" ? [] : machines }, null, 2)}\n`;
  edited("request");
}

/** After an edit: the link, then (once typing pauses) the verdict when deciding as you type, else the check. @param {"policy" | "request"} which */
function edited(which) {
  scheduleFragment();
  clearTimeout(typingTimer);
  typingTimer = window.setTimeout(() => {
    if (liveBox.checked) void decide();
    else if (current.name === "jq") return;
    else if (which === "policy") void checkPolicy();
    else checkRequest();
  }, 400);
}

/** Copies a command and also shows it, for browsers that refuse the clipboard. @param {string} label @param {string} command */
async function copy(label, command) {
  commandBox.textContent = command;
  commandBox.hidden = false;
  try {
    await navigator.clipboard.writeText(command);
    $("copied").textContent = `Copied ${label} to the clipboard.`;
  } catch {
    $("copied").textContent = `${label} is shown below: select it to copy.`;
  }
}

function wire() {
  for (const e of ENGINES) engineSelect.append(new Option(e.title, e.name));
  tokenInput.value = sessionStorage.getItem(TOKEN_KEY) ?? "";
  tokenInput.addEventListener("change", async () => {
    sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
    if (policyEditor.value.trim() !== "") return;
    const policy = await activePolicy(current.name);
    if (policy !== null) {
      policyEditor.value = policy;
      say(`Loaded the active ${current.name} policy.`);
      edited("policy");
    }
  });
  engineSelect.addEventListener("change", () => void switchEngine(engineSelect.value));
  $("load-active").addEventListener("click", async () => {
    const policy = await activePolicy(current.name);
    if (policy !== null) {
      policyEditor.value = policy;
      say(`Loaded the active ${current.name} policy.`);
      edited("policy");
    }
  });
  $("load-example").addEventListener("click", () => {
    requestEditor.value = exampleText(current);
    edited("request");
  });
  policyEditor.onChange(() => edited("policy"));
  requestEditor.onChange(() => edited("request"));
  liveBox.addEventListener("change", () => {
    liveSet = true;
    if (liveBox.checked) void decide();
  });
  $("form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    void decide();
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      void decide();
    }
  });
  $("copy-curl").addEventListener("click", () => {
    const body =
      current.name === "jq" ? jqBody(policyEditor.value, requestEditor.value, jqControls.value) : undefined;
    void copy(
      "the curl command",
      curlCommand({
        origin: location.origin,
        engine: current.name,
        policy: policyEditor.value,
        request: requestEditor.value,
        auth: server.auth,
        body,
      }),
    );
  });
  $("copy-eval").addEventListener("click", () =>
    current.name === "jq"
      ? copy("the arbiter jq command", jqCommand(policyEditor.value, requestEditor.value, jqControls.value))
      : copy(
          "the arbiter eval command",
          evalCommand({ engine: current.name, policy: policyEditor.value, request: requestEditor.value }),
        ),
  );
  window.addEventListener("hashchange", () => void readFragment());
  wireChangeButtons({
    engine: () => current.name,
    policy: () => policyEditor.value,
    request: () => requestEditor.value,
    headers,
    decide: async () => {
      const fresh = () =>
        lastAnswer !== null &&
        lastAnswer.engine === current.name &&
        lastAnswer.policy === policyEditor.value &&
        lastAnswer.request === requestEditor.value;
      if (!fresh()) await decide();
      // A decision already under way finishes (and decides these texts again) first.
      while (deciding) await new Promise((resolve) => setTimeout(resolve, 50));
      return fresh() && lastAnswer !== null ? lastAnswer : { ok: false, body: null };
    },
    show: (nodes) => output.replaceChildren(...nodes),
    copy,
  });
}

/** Shows what failed to load and what to do, in the alert under the title (where boot.js puts its own). @param {string} text */
function failure(text) {
  const box = $("boot");
  box.textContent = text;
  box.hidden = false;
  document.body.dataset.failure = text;
}

/** The ClassAd text editors, made the first time the match engine is shown (no other engine has them). */
function makeAdEditors() {
  if (adEditors.length > 0) return;
  adEditors = ["job-ad", "machine-ads"].map(
    (id) => new PageEditor($(`${id}-editor`), $(`${id}-errors`), "condor"),
  );
  for (const ed of adEditors) {
    ed.onChange(adsToRequest);
    if (editorModule !== null) ed.upgrade(editorModule);
  }
}

/** The page's editors, plain textareas until CodeMirror is loaded (`upgradeEditors`). */
function makeEditors() {
  policyEditor = new PageEditor($("policy-editor"), $("policy-errors"), current.language);
  requestEditor = new PageEditor($("request-editor"), $("request-errors"), "json");
}

/** Loads CodeMirror and puts it in place of the textareas, else keeps them with a notice saying so. */
async function upgradeEditors() {
  const url = "./codemirror.js";
  try {
    const cm = await import(url);
    performance.mark("editor");
    editorModule = cm;
    for (const ed of [policyEditor, requestEditor, ...adEditors]) ed.upgrade(cm);
  } catch (e) {
    failure(
      `The code editor (/playground/codemirror.js) did not load (${e instanceof Error ? e.message : e}): you are editing in plain text boxes, without highlighting, bracket matching or search. Checks as you type and Decide still work; reload the page to try again.`,
    );
  }
}

/** The first engine's active policy, asked for as the page starts (null: not asked). @type {{ engine: string, text: Promise<string | null> } | null} */
let early = null;

async function main() {
  tokenInput.value = sessionStorage.getItem(TOKEN_KEY) ?? "";
  // The status and the first engine's policy are fetched at once, while the page's controls are wired.
  if (location.hash.replace(/^#/, "") === "")
    early = { engine: ENGINES[0].name, text: activePolicy(ENGINES[0].name) };
  const status = loadStatus();
  makeEditors();
  wire();
  await status;
  if (!(await readFragment())) await switchEngine(engineSelect.value);
  // Usable in plain text boxes: the policy in place, Decide wired (the figure bench:playground reports).
  document.body.dataset.usable = "true";
  performance.mark("usable");
  // Then the code editor, which a first visit would otherwise wait for (issue 28: usable under 1 s).
  await upgradeEditors();
  document.body.dataset.ready = "true";
  // When the code editor is in place too (or has failed to load), for the browser test's and bench:playground's figures.
  performance.mark("ready");
}

void main();
