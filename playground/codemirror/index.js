// @ts-check
/**
 * The playground's code editor: CodeMirror 6 with the languages the policies are
 * written in, bundled by scripts/build-playground.mjs into `/playground/codemirror.js`
 * (the only file of the page built from npm packages). An editor here is a small
 * object the page drives: its text, its language, the errors to show, each as a
 * diagnostic (underlined, marked in the gutter) with its message in a line under
 * the line it concerns, and the lint findings, shown the same way as warnings or
 * infos, in their own colours.
 */
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  foldGutter,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState, RangeSet, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  EditorView,
  GutterMarker,
  WidgetType,
  drawSelection,
  gutterLineClass,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tagHighlighter, tags as t } from "@lezer/highlight";
import { StyleModule } from "style-mod";
import { condor, jq, jsonc } from "./modes.js";

/**
 * CodeMirror's own styles go into the document through a constructed stylesheet
 * (`document.adoptedStyleSheets`), as style-mod already does for shadow roots, and not
 * through a `<style>` element, which the page's Content-Security-Policy (`style-src 'self'`)
 * refuses. style-mod keeps its stylesheet under a private symbol on the root: the one it
 * makes for a detached shadow root is handed to the document.
 */
function adoptStyles() {
  const shadow = document.createElement("div").attachShadow({ mode: "open" });
  if (!("adoptedStyleSheets" in document)) return;
  StyleModule.mount(shadow, new StyleModule({}));
  const key = Object.getOwnPropertySymbols(shadow).find((s) => s.description === "styleSet");
  if (key !== undefined && !(key in document))
    /** @type {any} */ (document)[key] = /** @type {any} */ (shadow)[key];
}
adoptStyles();

/** @typedef {{ line: number, column: number, message: string }} Mark */
/** @typedef {{ line: number, column: number, message: string, code: string, severity: "warning" | "info" }} Finding */
/** @typedef {{ from: number, to: number, line: number, message: string, severity: "error" | "warning" | "info", code?: string }} Placed */

/** Each highlighting tag as a `tk-*` class, coloured by style.css in light and dark schemes. */
const highlighter = tagHighlighter([
  { tag: t.keyword, class: "tk-keyword" },
  { tag: [t.string, t.special(t.string)], class: "tk-string" },
  { tag: t.number, class: "tk-number" },
  { tag: [t.bool, t.null, t.atom], class: "tk-atom" },
  { tag: [t.comment, t.lineComment, t.blockComment], class: "tk-comment" },
  { tag: [t.propertyName, t.definition(t.propertyName)], class: "tk-property" },
  { tag: [t.special(t.variableName), t.macroName, t.labelName], class: "tk-special" },
  { tag: t.function(t.variableName), class: "tk-function" },
  { tag: [t.meta, t.typeName, t.processingInstruction], class: "tk-meta" },
  { tag: t.operator, class: "tk-operator" },
  { tag: t.invalid, class: "tk-invalid" },
]);

/** The languages by the name the page gives them. */
const LANGUAGES = {
  json: () => [json(), indentUnit.of("  ")],
  jsonc: () => [jsonc, indentUnit.of("  ")],
  yaml: () => [yaml(), indentUnit.of("  ")],
  condor: () => [condor, indentUnit.of("    ")],
  jq: () => [jq, indentUnit.of("  ")],
};

/** Replaces the marks shown under lines (errors and lint findings). */
const setNotes = StateEffect.define({
  map: (/** @type {Placed[]} */ v) => v,
});

/** A message shown as a line of its own under the line it concerns: an error (`note`) or a lint finding (`finding`). */
class NoteWidget extends WidgetType {
  /** @param {number} line @param {string} text @param {"error" | "warning" | "info"} severity */
  constructor(line, text, severity) {
    super();
    this.line = line;
    this.text = text;
    this.severity = severity;
  }
  /** @param {NoteWidget} other */
  eq(other) {
    return other.line === this.line && other.text === this.text && other.severity === this.severity;
  }
  toDOM() {
    const div = document.createElement("div");
    div.className = this.severity === "error" ? "note" : `finding finding-${this.severity}`;
    div.dataset.line = String(this.line);
    div.dataset.severity = this.severity;
    div.setAttribute("role", "note");
    div.textContent = `${this.severity === "error" ? "↑" : `↑ ${this.severity}:`} ${this.text}`;
    return div;
  }
}

const SEVERITIES = /** @type {const} */ (["error", "warning", "info"]);

/** The gutter's class for a line with an error (`bad`, as the plain editor had it). */
const badLine = new (class extends GutterMarker {
  elementClass = "bad";
})();

/** The notes under lines and the gutter marks, mapped through edits until replaced. */
const notesField = StateField.define({
  create: () => ({ deco: Decoration.none, gutter: /** @type {RangeSet<GutterMarker>} */ (RangeSet.empty) }),
  update(value, tr) {
    let { deco, gutter } = value;
    deco = deco.map(tr.changes);
    gutter = gutter.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setNotes)) continue;
      const lines = [...new Set(e.value.map((n) => n.line))].sort((a, b) => a - b);
      // Under each line, its errors' note first, then its warnings', then its infos'.
      deco = Decoration.set(
        lines.flatMap((line) =>
          SEVERITIES.flatMap((severity, order) => {
            const messages = e.value
              .filter((n) => n.line === line && n.severity === severity)
              .map((n) => (n.code ? `${n.code}: ${n.message}` : n.message));
            if (messages.length === 0) return [];
            const end = tr.state.doc.line(line).to;
            return [
              Decoration.widget({
                widget: new NoteWidget(line, messages.join("; "), severity),
                block: true,
                side: 1 + order,
              }).range(end),
            ];
          }),
        ),
        true,
      );
      const bad = [...new Set(e.value.filter((n) => n.severity === "error").map((n) => n.line))];
      gutter = RangeSet.of(
        bad.map((line) => badLine.range(tr.state.doc.line(line).from)),
        true,
      );
    }
    return { deco, gutter };
  },
  provide: (f) => [EditorView.decorations.from(f, (v) => v.deco), gutterLineClass.from(f, (v) => v.gutter)],
});

/** One editor on the page. */
export class Editor {
  /**
   * @param {HTMLElement} parent where the editor goes
   * @param {{ text: string, language: keyof typeof LANGUAGES, label: string, describedBy?: string, onChange?: () => void }} options
   */
  constructor(parent, options) {
    this.language = new Compartment();
    /** The errors shown, and the lint findings shown, as placed in the text. @type {Placed[]} */
    this.errors = [];
    /** @type {Placed[]} */
    this.findings = [];
    /** @type {(() => void)[]} */
    this.listeners = options.onChange ? [options.onChange] : [];
    this.quiet = false;
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: options.text,
        extensions: [
          lineNumbers(),
          foldGutter(),
          lintGutter(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightSelectionMatches(),
          search({ top: true }),
          syntaxHighlighting(highlighter),
          keymap.of([
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...searchKeymap,
            ...historyKeymap,
            indentWithTab,
          ]),
          this.language.of(LANGUAGES[options.language]()),
          notesField,
          EditorView.contentAttributes.of({
            "aria-label": options.label,
            ...(options.describedBy ? { "aria-describedby": options.describedBy } : {}),
            spellcheck: "false",
            autocapitalize: "off",
            autocorrect: "off",
          }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            // The marks held follow the text, as CodeMirror's own diagnostics do, until replaced.
            const map = (/** @type {Placed} */ p) => {
              const from = u.changes.mapPos(p.from, 1);
              return { ...p, from, to: Math.max(from, u.changes.mapPos(p.to, -1)) };
            };
            this.errors = this.errors.map(map);
            this.findings = this.findings.map(map);
            if (!this.quiet) for (const f of this.listeners) f();
          }),
        ],
      }),
    });
  }

  /** The text. */
  get value() {
    return this.view.state.doc.toString();
  }

  /** Replaces the text (without telling the change listeners) and clears the marks and findings. @param {string} text */
  set value(text) {
    this.quiet = true;
    try {
      this.view.dispatch({
        changes: { from: 0, to: this.view.state.doc.length, insert: text },
        selection: { anchor: 0 },
        scrollIntoView: true,
      });
    } finally {
      this.quiet = false;
    }
    this.findings = [];
    this.setMarks([]);
  }

  /** Calls `f` after each edit. @param {() => void} f */
  onChange(f) {
    this.listeners.push(f);
  }

  /** Switches the language. @param {keyof typeof LANGUAGES} name */
  setLanguage(name) {
    this.view.dispatch({ effects: this.language.reconfigure((LANGUAGES[name] ?? LANGUAGES.json)()) });
  }

  /**
   * Where marks go in the text now: each from its column to the end of the word there.
   * @param {(Mark & { code?: string })[]} marks @param {"error" | "warning" | "info" | ((m: any) => "error" | "warning" | "info")} severity
   * @returns {Placed[]}
   */
  place(marks, severity) {
    const doc = this.view.state.doc;
    return marks.map((m) => {
      const line = doc.line(Math.min(Math.max(m.line, 1), doc.lines));
      const from = Math.min(line.from + Math.max(m.column - 1, 0), line.to);
      const word = /^[^\s,;:)\]}]*/.exec(doc.sliceString(from, line.to))?.[0].length ?? 0;
      return {
        from,
        to: Math.max(from + word, Math.min(from + 1, line.to)),
        line: line.number,
        message: m.message,
        severity: typeof severity === "function" ? severity(m) : severity,
        ...(m.code ? { code: m.code } : {}),
      };
    });
  }

  /**
   * Shows the errors and the findings held as diagnostics and notes under their lines;
   * with `reveal`, scrolls the first error into view if it is not.
   * @param {Placed[]} placed the errors just placed (the findings kept are mapped through edits)
   * @param {boolean} reveal
   */
  paint(placed, reveal) {
    const doc = this.view.state.doc;
    const all = [...placed, ...this.findings].map((p) => ({ ...p, line: doc.lineAt(p.from).number }));
    this.view.dispatch(
      setDiagnostics(
        this.view.state,
        all.map((p) => ({
          from: p.from,
          to: p.to,
          severity: p.severity,
          message: p.message,
          ...(p.code ? { source: p.code } : {}),
        })),
      ),
      {
        effects: [
          setNotes.of(all),
          ...(reveal && placed.length > 0
            ? [
                EditorView.scrollIntoView(Math.min(...placed.map((p) => p.from)), {
                  y: "nearest",
                  yMargin: 40,
                }),
              ]
            : []),
        ],
      },
    );
  }

  /**
   * Shows a set of errors as diagnostics and notes under their lines (an empty list
   * clears them), beside the lint findings shown; with `reveal`, scrolls the first
   * into view if it is not.
   * @param {Mark[]} marks @param {boolean} [reveal]
   */
  setMarks(marks, reveal = false) {
    this.errors = this.place(marks, "error");
    this.paint(this.errors, reveal);
    this.view.contentDOM.setAttribute("aria-invalid", marks.length > 0 ? "true" : "false");
  }

  /**
   * Shows lint findings as diagnostics of severity `warning` or `info` with notes
   * under their lines, beside the errors shown (an empty list clears them).
   * @param {Finding[]} findings
   */
  setFindings(findings) {
    this.findings = this.place(findings, (f) => f.severity);
    this.paint(this.errors, false);
  }

  /** Puts the caret at a line and column and scrolls it into view. @param {{ line: number, column: number }} place */
  focusAt(place) {
    const doc = this.view.state.doc;
    const line = doc.line(Math.min(Math.max(place.line, 1), doc.lines));
    const pos = Math.min(line.from + Math.max(place.column - 1, 0), line.to);
    this.view.dispatch({
      selection: { anchor: pos },
      effects: EditorView.scrollIntoView(pos, { y: "center" }),
    });
    this.view.focus();
  }

  /** Gives the editor the keyboard focus. */
  focus() {
    this.view.focus();
  }
}
