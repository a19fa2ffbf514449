// @ts-check
/**
 * The jq pane: the engine `jq` of the selector runs a jq 1.7.1 program (the
 * policy editor holds it) on an input (the request editor holds it) through
 * `POST /v1/playground/jq`, with the command line's toggles (-c, -r, -s, -n) and
 * `--arg`/`--argjson` pairs. Here: the options as the page keeps them, the body and
 * the commands they stand for, and the output as `arbiter jq` prints it.
 */
import { h } from "./render.js";
import { shellQuote } from "./share.js";

/** @typedef {{ name: string, value: string, json: boolean }} JqArg */
/** @typedef {{ compact: boolean, raw_output: boolean, slurp: boolean, null_input: boolean, args: JqArg[] }} JqOptions */

/** The toggles, by the body's field, with their jq flags. */
export const JQ_FLAGS = /** @type {const} */ ([
  ["compact", "-c"],
  ["raw_output", "-r"],
  ["slurp", "-s"],
  ["null_input", "-n"],
]);

/** Options with every toggle off and no arguments. @returns {JqOptions} */
export function noJqOptions() {
  return { compact: false, raw_output: false, slurp: false, null_input: false, args: [] };
}

/** Options read back from a share link, keeping only what they may hold. @param {any} o @returns {JqOptions} */
export function cleanJqOptions(o) {
  const out = noJqOptions();
  if (o === null || typeof o !== "object") return out;
  for (const [key] of JQ_FLAGS) out[key] = o[key] === true;
  if (Array.isArray(o.args))
    out.args = o.args
      .filter((/** @type {any} */ a) => a && typeof a.name === "string" && typeof a.value === "string")
      .map((/** @type {any} */ a) => ({ name: a.name, value: a.value, json: a.json === true }));
  return out;
}

/**
 * The body of `POST /v1/playground/jq`. @param {string} program @param {string} input @param {JqOptions} o
 */
export function jqBody(program, input, o) {
  return JSON.stringify({
    program,
    input,
    args: o.args.filter((a) => a.name !== ""),
    compact: o.compact,
    raw_output: o.raw_output,
    slurp: o.slurp,
    null_input: o.null_input,
  });
}

/** The `arbiter jq` arguments the pane stands for (as the route reports them in `argv`). @param {string} program @param {JqOptions} o */
export function jqArgv(program, o) {
  /** @type {string[]} */
  const argv = JQ_FLAGS.filter(([key]) => o[key]).map(([, flag]) => flag);
  for (const a of o.args) if (a.name !== "") argv.push(a.json ? "--argjson" : "--arg", a.name, a.value);
  argv.push("--", program);
  return argv;
}

/** `arbiter jq` running the same program on the same input. @param {string} program @param {string} input @param {JqOptions} o */
export function jqCommand(program, input, o) {
  return `printf '%s' ${shellQuote(input)} | npx arbiter jq ${jqArgv(program, o).map(shellQuote).join(" ")}`;
}

/**
 * What the run printed: standard output, then standard error, as `arbiter jq` would
 * print them in a terminal, under a line with the exit status.
 * @param {{ stdout: string, stderr: string, exit_status: number, truncated: boolean }} a
 */
export function renderJq(a) {
  const ok = a.exit_status === 0;
  const what = ok
    ? "exit status 0"
    : `exit status ${a.exit_status}${a.exit_status === 3 ? " (compile error)" : a.exit_status === 5 ? " (error)" : a.exit_status === 2 ? " (usage or input)" : ""}`;
  return [
    h(
      "div",
      { class: `verdict ${ok ? "ok" : "bad"}`, id: "verdict-line" },
      h("span", { class: "badge" }, ok ? "✓" : "✗"),
      h("span", { class: "verdict-text" }, what),
    ),
    h(
      "section",
      { class: "trace-part" },
      h("h3", {}, "Output"),
      h("pre", { id: "jq-stdout", class: "jq-out" }, a.stdout === "" ? "" : a.stdout),
    ),
    a.stderr !== ""
      ? h(
          "section",
          { class: "trace-part" },
          h("h3", {}, "Errors"),
          h("pre", { id: "jq-stderr", class: "jq-err" }, a.stderr),
        )
      : null,
    a.truncated ? h("p", { class: "why" }, "The output was cut at 1 MiB.") : null,
  ].filter((n) => n !== null);
}

/**
 * The option controls: the four toggles and the argument rows, read and written
 * as one `JqOptions`, calling `changed` after each edit.
 */
export class JqControls {
  /** @param {HTMLElement} root the `#jq-options` element @param {() => void} changed */
  constructor(root, changed) {
    this.root = root;
    this.changed = changed;
    this.rows = /** @type {HTMLElement} */ (root.querySelector("#jq-args"));
    for (const [key] of JQ_FLAGS) this.flag(key).addEventListener("change", changed);
    /** @type {HTMLButtonElement} */ (root.querySelector("#jq-add-arg")).addEventListener("click", () => {
      this.addRow({ name: "", value: "", json: false }).querySelector("input")?.focus();
    });
  }

  /** @param {string} key */
  flag(key) {
    return /** @type {HTMLInputElement} */ (this.root.querySelector(`#jq-${key.replace("_", "-")}`));
  }

  /** One `--arg` row. @param {JqArg} a */
  addRow(a) {
    const n = this.rows.children.length + 1;
    const name = h("input", {
      type: "text",
      class: "jq-arg-name",
      value: a.name,
      "aria-label": `Argument ${n} name`,
      spellcheck: "false",
      autocomplete: "off",
    });
    const value = h("input", {
      type: "text",
      class: "jq-arg-value",
      value: a.value,
      "aria-label": `Argument ${n} value`,
      spellcheck: "false",
      autocomplete: "off",
    });
    const json = h("input", {
      type: "checkbox",
      class: "jq-arg-json",
      "aria-label": `Argument ${n} is JSON (--argjson)`,
    });
    /** @type {HTMLInputElement} */ (json).checked = a.json;
    const remove = h(
      "button",
      { type: "button", class: "jq-arg-remove", "aria-label": `Remove argument ${n}` },
      "×",
    );
    const row = h("li", { class: "jq-arg" }, "$", name, " = ", value, h("label", {}, json, " JSON"), remove);
    for (const input of [name, value, json]) input.addEventListener("input", this.changed);
    remove.addEventListener("click", () => {
      row.remove();
      this.changed();
    });
    this.rows.append(row);
    return row;
  }

  /** The options as set. @returns {JqOptions} */
  get value() {
    const o = noJqOptions();
    for (const [key] of JQ_FLAGS) o[key] = this.flag(key).checked;
    o.args = [...this.rows.querySelectorAll("li")].map((row) => ({
      name: /** @type {HTMLInputElement} */ (row.querySelector(".jq-arg-name")).value.trim(),
      value: /** @type {HTMLInputElement} */ (row.querySelector(".jq-arg-value")).value,
      json: /** @type {HTMLInputElement} */ (row.querySelector(".jq-arg-json")).checked,
    }));
    return o;
  }

  /** Sets every control. @param {JqOptions} o */
  set value(o) {
    for (const [key] of JQ_FLAGS) this.flag(key).checked = o[key];
    this.rows.replaceChildren();
    for (const a of o.args) this.addRow(a);
  }
}
