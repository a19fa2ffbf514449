// @ts-check
/**
 * The page's two kinds of editor behind one interface (`value`, `onChange`,
 * `setLanguage`, `setMarks`, `setFindings`, `focusAt`). `RichEditor` is CodeMirror (from
 * `/playground/codemirror.js`), with highlighting, the errors as diagnostics with
 * their messages under their lines, and lint findings the same way as warnings and
 * infos. `CodeEditor` is the plain textarea the
 * page falls back to when that module cannot be loaded: line numbers, each
 * error's line numbered in red in the gutter, banded in the text, and its message
 * beside the line (in the margin on wide screens). Both list the errors (and the
 * findings, in a list of their own) under the editor as buttons that put the caret
 * on the spot.
 */
import { offsetOf } from "./locate.js";

/** @typedef {{ line: number, column: number, message: string }} Mark */
/** @typedef {Mark & { code: string, severity: "warning" | "info" }} Finding */
/** @typedef {{ Editor: new (parent: HTMLElement, options: { text: string, language: any, label: string, describedBy?: string }) => any }} EditorModule */

/**
 * Fills an error list: one button per error, which calls `go` with it.
 * @param {HTMLElement} list @param {Mark[]} marks @param {(m: Mark) => void} go
 */
function listMarks(list, marks, go) {
  list.replaceChildren(
    ...marks.map((m) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "error-link";
      button.dataset.line = String(m.line);
      button.textContent = `line ${m.line}, column ${m.column}: ${m.message}`;
      button.addEventListener("click", () => go(m));
      item.append(button);
      return item;
    }),
  );
}

/**
 * Fills a findings list: one button per lint finding (its severity, place, code and
 * message), which calls `go` with it.
 * @param {HTMLElement | null} list @param {Finding[]} findings @param {(m: Mark) => void} go
 */
function listFindings(list, findings, go) {
  if (list === null) return;
  list.hidden = findings.length === 0;
  list.replaceChildren(
    ...findings.map((f) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = `finding-link finding-${f.severity}`;
      button.dataset.line = String(f.line);
      button.dataset.severity = f.severity;
      button.textContent = `${f.severity}, line ${f.line}, column ${f.column}: ${f.code}: ${f.message}`;
      button.addEventListener("click", () => go(f));
      item.append(button);
      return item;
    }),
  );
}

/**
 * CodeMirror in place of an editor's textarea. The textarea stays in the page,
 * hidden, and holds the same text after every edit (what a form would submit).
 */
export class RichEditor {
  /**
   * @param {EditorModule} cm the loaded editor module
   * @param {HTMLElement} root the `.editor` element holding the textarea
   * @param {HTMLElement} list the `<ul>` the error list goes into
   * @param {string} language
   */
  constructor(cm, root, list, language) {
    this.root = root;
    this.list = list;
    this.textarea = /** @type {HTMLTextAreaElement} */ (root.querySelector("textarea"));
    /** The list of lint findings (`#<textarea id>-findings`), where the page has one. */
    this.findingsList = document.getElementById(`${this.textarea.id}-findings`);
    root.classList.add("rich");
    const label = document.querySelector(`label[for="${this.textarea.id}"]`)?.textContent ?? this.textarea.id;
    this.editor = new cm.Editor(root, {
      text: this.textarea.value,
      language,
      label,
      describedBy: this.textarea.getAttribute("aria-describedby") ?? undefined,
    });
    this.editor.view.contentDOM.dataset.editor = this.textarea.id;
    this.editor.onChange(() => {
      this.textarea.value = this.editor.value;
    });
  }

  /** The text. */
  get value() {
    return this.editor.value;
  }

  /** Replaces the text and clears the marks and findings. @param {string} text */
  set value(text) {
    this.editor.value = text;
    this.textarea.value = text;
    this.setMarks([]);
    listFindings(this.findingsList, [], () => {});
  }

  /** Calls `f` after each edit by the user. @param {() => void} f */
  onChange(f) {
    this.editor.onChange(f);
  }

  /** Switches the highlighting and indentation to a language (json, jsonc, yaml, condor, jq). @param {string} name */
  setLanguage(name) {
    this.editor.setLanguage(name);
  }

  /** Shows a new set of errors (an empty list clears them); with `reveal`, scrolls to the first. @param {Mark[]} marks @param {boolean} [reveal] */
  setMarks(marks, reveal = false) {
    this.editor.setMarks(marks, reveal);
    listMarks(this.list, marks, (m) => this.focusAt(m));
  }

  /** Shows lint findings as warning and info diagnostics (an empty list clears them). @param {Finding[]} findings */
  setFindings(findings) {
    this.editor.setFindings(findings);
    listFindings(this.findingsList, findings, (m) => this.focusAt(m));
  }

  /** Puts the caret at a line and column and scrolls it into view. @param {{ line: number, column: number }} place */
  focusAt(place) {
    this.editor.focusAt(place);
  }
}

export class CodeEditor {
  /**
   * @param {HTMLElement} root the `.editor` element holding `.gutter`, `.bands`, a textarea and `.notes`
   * @param {HTMLElement} list the `<ul>` the error list goes into
   */
  constructor(root, list) {
    this.root = root;
    this.list = list;
    this.textarea = /** @type {HTMLTextAreaElement} */ (root.querySelector("textarea"));
    this.findingsList = document.getElementById(`${this.textarea.id}-findings`);
    this.gutter = /** @type {HTMLElement} */ (root.querySelector(".gutter"));
    this.bands = /** @type {HTMLElement} */ (root.querySelector(".bands"));
    this.notes = /** @type {HTMLElement} */ (root.querySelector(".notes"));
    /** @type {Mark[]} */
    this.marks = [];
    this.lines = 0;
    this.textarea.addEventListener("input", () => this.refresh());
    this.textarea.addEventListener("scroll", () => this.syncScroll());
    this.refresh();
  }

  /** The text. */
  get value() {
    return this.textarea.value;
  }

  /** Replaces the text and clears the marks and findings. @param {string} text */
  set value(text) {
    this.textarea.value = text;
    this.setMarks([]);
    this.setFindings([]);
    this.textarea.scrollTop = 0;
    this.refresh();
  }

  /** Calls `f` after each edit by the user. @param {() => void} f */
  onChange(f) {
    this.textarea.addEventListener("input", f);
  }

  /** The plain editor does not highlight. @param {string} _name */
  setLanguage(_name) {}

  /** Redraws line numbers after an edit. */
  refresh() {
    const count = this.textarea.value.split("\n").length;
    if (count !== this.lines) {
      this.lines = count;
      this.root.style.setProperty("--digits", String(String(count).length));
      this.paintMarks();
    }
    this.syncScroll();
  }

  /** Keeps the gutter, the bands and the margin notes level with the text. */
  syncScroll() {
    const y = `translateY(${-this.textarea.scrollTop}px)`;
    this.gutter.style.transform = y;
    this.bands.style.transform = y;
    this.notes.style.transform = y;
  }

  /** Shows a new set of errors (an empty list clears them); with `reveal`, scrolls to the first. @param {Mark[]} marks @param {boolean} [reveal] */
  setMarks(marks, reveal = false) {
    this.marks = marks;
    this.root.classList.toggle("has-marks", marks.length > 0);
    this.paintMarks();
    listMarks(this.list, marks, (m) => this.focusAt(m));
    this.textarea.setAttribute("aria-invalid", marks.length > 0 ? "true" : "false");
    if (reveal && marks.length > 0) this.reveal(Math.min(...marks.map((m) => m.line)));
  }

  /** Lists lint findings under the editor (the plain editor marks only errors in the text). @param {Finding[]} findings */
  setFindings(findings) {
    listFindings(this.findingsList, findings, (m) => this.focusAt(m));
  }

  /** Draws the gutter numbers, bands and margin notes of the current marks. */
  paintMarks() {
    const lineHeight = parseFloat(getComputedStyle(this.textarea).lineHeight) || 20;
    const pad = parseFloat(getComputedStyle(this.textarea).paddingTop) || 0;
    /** @type {Map<number, string[]>} */
    const byLine = new Map();
    for (const m of this.marks) byLine.set(m.line, [...(byLine.get(m.line) ?? []), m.message]);
    const bands = [];
    const notes = [];
    for (const [line, messages] of byLine) {
      const top = `${pad + (line - 1) * lineHeight}px`;
      const band = document.createElement("div");
      band.className = "band";
      band.style.top = top;
      band.style.height = `${lineHeight}px`;
      bands.push(band);
      const note = document.createElement("div");
      note.className = "note";
      note.dataset.line = String(line);
      note.style.top = top;
      note.textContent = `${line}: ${messages.join("; ")}`;
      note.title = messages.join("\n");
      notes.push(note);
    }
    this.bands.replaceChildren(...bands);
    this.notes.replaceChildren(...notes);
    const numbers = [];
    for (let line = 1; line <= this.lines; line++) {
      const span = document.createElement("span");
      span.textContent = String(line);
      if (byLine.has(line)) span.className = "bad";
      numbers.push(span);
    }
    this.gutter.replaceChildren(...numbers);
  }

  /** Scrolls a line into the middle of the view, leaving the focus where it is. @param {number} line */
  reveal(line) {
    const lineHeight = parseFloat(getComputedStyle(this.textarea).lineHeight) || 20;
    this.textarea.scrollTop = Math.max(0, (line - 1) * lineHeight - this.textarea.clientHeight / 2);
    this.syncScroll();
  }

  /** Puts the caret at a line and column and scrolls it into view. @param {{ line: number, column: number }} place */
  focusAt(place) {
    const offset = offsetOf(this.textarea.value, place);
    this.textarea.focus();
    this.textarea.setSelectionRange(offset, offset);
    this.reveal(place.line);
  }
}

/**
 * An editor of the page: the plain textarea at first, usable as soon as the page's
 * own module runs, and CodeMirror once `upgrade` is given the editor module (loaded
 * after the page is usable, so a first visit does not wait for it). The text, the
 * selection and the focus, the language, the errors and findings shown, and the change
 * listeners carry over.
 */
export class PageEditor {
  /**
   * @param {HTMLElement} root the `.editor` element holding the textarea
   * @param {HTMLElement} list the `<ul>` the error list goes into
   * @param {string} language the language CodeMirror will highlight
   */
  constructor(root, list, language) {
    this.root = root;
    this.list = list;
    this.language = language;
    /** @type {CodeEditor | RichEditor} */
    this.inner = new CodeEditor(root, list);
    /** @type {(() => void)[]} */
    this.listeners = [];
    /** @type {Mark[]} */
    this.marks = [];
    /** @type {Finding[]} */
    this.findings = [];
  }

  /** Whether CodeMirror is in place. */
  get rich() {
    return this.inner instanceof RichEditor;
  }

  /** The text. */
  get value() {
    return this.inner.value;
  }

  /** Replaces the text and clears the marks and findings. @param {string} text */
  set value(text) {
    this.inner.value = text;
    this.marks = [];
    this.findings = [];
  }

  /** Calls `f` after each edit by the user. @param {() => void} f */
  onChange(f) {
    this.listeners.push(f);
    this.inner.onChange(f);
  }

  /** Switches the highlighting and indentation to a language (json, jsonc, yaml, condor, jq). @param {string} name */
  setLanguage(name) {
    this.language = name;
    this.inner.setLanguage(name);
  }

  /** Shows a new set of errors (an empty list clears them); with `reveal`, scrolls to the first. @param {Mark[]} marks @param {boolean} [reveal] */
  setMarks(marks, reveal = false) {
    this.marks = marks;
    this.inner.setMarks(marks, reveal);
  }

  /** Shows lint findings (an empty list clears them). @param {Finding[]} findings */
  setFindings(findings) {
    this.findings = findings;
    this.inner.setFindings(findings);
  }

  /** Puts the caret at a line and column and scrolls it into view. @param {{ line: number, column: number }} place */
  focusAt(place) {
    this.inner.focusAt(place);
  }

  /** Puts CodeMirror in place of the textarea, keeping what the user sees and does. @param {EditorModule} cm */
  upgrade(cm) {
    if (!(this.inner instanceof CodeEditor)) return;
    const textarea = this.inner.textarea;
    const focused = document.activeElement === textarea;
    const [anchor, head] = [textarea.selectionStart, textarea.selectionEnd];
    this.inner.setMarks([]);
    const rich = new RichEditor(cm, this.root, this.list, this.language);
    this.inner = rich;
    for (const f of this.listeners) rich.onChange(f);
    rich.setMarks(this.marks);
    rich.setFindings(this.findings);
    if (focused) {
      rich.editor.view.dispatch({ selection: { anchor, head } });
      rich.editor.focus();
    }
  }
}
