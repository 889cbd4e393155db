// The YAML editor: CodeMirror 6 (vendored, static/vendor/codemirror/, built by tools/codemirror),
// with YAML highlighting, folding, search (Ctrl+F), undo, and the server's problems at their lines:
// lint markers in the gutter (hover for the message, click to select the line), the line tinted and
// the message beside it. Nothing here runs on the typing path but CodeMirror's own update: the page
// debounces validation, drafts and tables (pages/editor.js).

import {
  Decoration, EditorState, EditorView, StateEffect, StateField, StreamLanguage, WidgetType, bracketMatching,
  defaultHighlightStyle, defaultKeymap, drawSelection, foldGutter, foldKeymap, foldService, highlightActiveLine,
  highlightActiveLineGutter, highlightSelectionMatches, highlightSpecialChars, history, historyKeymap, indentOnInput,
  indentUnit, keymap, lineNumbers, lintGutter, searchKeymap, setDiagnostics, syntaxHighlighting, yamlMode,
} from "../vendor/codemirror/codemirror.mjs";

// Line-based YAML highlighting: a keystroke re-reads from its own line on, whatever the file's size.
const YAML = StreamLanguage.define(yamlMode);

const setProblems = StateEffect.define();

class InlineMessage extends WidgetType {
  constructor(text) {
    super();
    this.text = text;
  }

  eq(other) {
    return other.text === this.text;
  }

  toDOM() {
    const span = document.createElement("span");
    span.className = "inline-error";
    span.textContent = `✗ ${this.text}`; // scenario text is untrusted: text only
    return span;
  }
}

const indentOf = (text) => text.length - text.trimStart().length;
const isBlank = (text) => !text.trim() || text.trimStart().startsWith("#");

/** YAML folds by indentation: a line folds the lines under it that are indented deeper, and a
 * `key:` also the `- item` lines written at its own indent (as kubectl writes lists). */
const foldByIndent = foldService.of((state, lineStart, lineEnd) => {
  const line = state.doc.lineAt(lineStart);
  if (isBlank(line.text)) return null;
  const indent = indentOf(line.text);
  const opensList = /:\s*$/.test(line.text);
  let last = line;
  for (let number = line.number + 1; number <= state.doc.lines; number += 1) {
    const next = state.doc.line(number);
    if (isBlank(next.text)) continue;
    const depth = indentOf(next.text);
    const listItem = opensList && depth === indent && next.text.trimStart().startsWith("- ");
    if (depth <= indent && !listItem) break;
    last = next;
  }
  return last.number > line.number ? { from: lineEnd, to: last.to } : null;
});

/** Each problem line tinted (class error-line, data-line) with its messages beside it. */
const problemLines = StateField.define({
  create: () => Decoration.none,
  update(decorations, transaction) {
    for (const effect of transaction.effects) if (effect.is(setProblems)) return effect.value;
    return decorations.map(transaction.changes);
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Problems grouped by their (1-based) line, lines that exist in the text only. */
function byLine(errors, doc) {
  const lines = new Map();
  for (const error of errors || []) {
    if (!error.line || error.line < 1 || error.line > doc.lines) continue;
    if (!lines.has(error.line)) lines.set(error.line, []);
    lines.get(error.line).push(error);
  }
  return [...lines].sort((a, b) => a[0] - b[0]);
}

function decorationsFor(grouped, doc) {
  const ranges = [];
  for (const [number, list] of grouped) {
    const line = doc.line(number);
    ranges.push(Decoration.line({ attributes: { class: "error-line", "data-line": String(number) } }).range(line.from));
    ranges.push(Decoration.widget({ widget: new InlineMessage(list.map((e) => e.message).join(" · ")), side: 1 }).range(line.to));
  }
  return Decoration.set(ranges, true);
}

function diagnosticsFor(grouped, doc) {
  return grouped.flatMap(([number, list]) => {
    const line = doc.line(number);
    return list.map((error) => ({ from: line.from, to: line.to, severity: "error", message: describe(error), source: error.object || undefined }));
  });
}

export function createEditor(container, { text = "", readOnly = false, label = "Scenario YAML", onChange = () => {} } = {}) {
  const root = document.createElement("div");
  root.className = "code-editor";
  container.replaceChildren(root);

  const extensions = [
    lineNumbers(), foldGutter(), lintGutter(), highlightActiveLineGutter(), highlightSpecialChars(), history(),
    drawSelection(), indentOnInput(), bracketMatching(), highlightActiveLine(), highlightSelectionMatches(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }), YAML, foldByIndent, indentUnit.of("  "), problemLines,
    EditorState.tabSize.of(2), EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly),
    EditorView.contentAttributes.of({ id: "yaml-text", "aria-label": label, spellcheck: "false", autocapitalize: "off", autocorrect: "off" }),
    tabIndentsWithSpaces(readOnly),
    keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, ...searchKeymap]),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange();
    }),
  ];
  const view = new EditorView({ state: EditorState.create({ doc: text, extensions }), parent: root });
  let errors = [];

  const showErrors = () => {
    const grouped = byLine(errors, view.state.doc);
    view.dispatch(setDiagnostics(view.state, diagnosticsFor(grouped, view.state.doc)), { effects: setProblems.of(decorationsFor(grouped, view.state.doc)) });
  };

  const goToLine = (number) => {
    const line = view.state.doc.line(Math.max(1, Math.min(number, view.state.doc.lines)));
    view.dispatch({ selection: { anchor: line.from, head: line.to }, effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
    view.focus();
  };

  return {
    view,
    getText: () => view.state.doc.toString(),
    /** The document as CodeMirror keeps it (cheap to compare with Text.eq; no 5 MB string). */
    getDoc: () => view.state.doc,
    /** Replace the text (a table edit) by changing only what differs: one undoable change, the
     * scroll position and the markers elsewhere stay. */
    setText(value) {
      const current = view.state.doc.toString();
      if (value === current) return;
      const scroll = view.scrollDOM.scrollTop;
      view.dispatch({ changes: differingRange(current, value) });
      view.scrollDOM.scrollTop = scroll;
    },
    setErrors(list) {
      errors = list || [];
      showErrors();
    },
    goToLine,
    focus: () => view.focus(),
  };
}

/** The one change turning `before` into `after`: what lies between their common prefix and suffix. */
export function differingRange(before, after) {
  let start = 0;
  const shortest = Math.min(before.length, after.length);
  while (start < shortest && before.charCodeAt(start) === after.charCodeAt(start)) start += 1;
  let end = 0;
  while (end < shortest - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end += 1;
  return { from: start, to: before.length - end, insert: after.slice(start, after.length - end) };
}

/** Tab indents with two spaces (YAML forbids tabs); Esc then Tab leaves the editor (keyboard users). */
function tabIndentsWithSpaces(readOnly) {
  let escaped = false;
  return EditorView.domEventHandlers({
    keydown(event, view) {
      const plainTab = event.key === "Tab" && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey;
      if (!plainTab) {
        escaped = event.key === "Escape";
        return false;
      }
      if (readOnly || escaped) {
        escaped = false;
        return false; // the browser moves the focus on
      }
      event.preventDefault();
      view.dispatch(view.state.replaceSelection("  "));
      return true;
    },
  });
}

export function describe(error) {
  const where = [error.file, error.object, error.path].filter(Boolean).join(" ");
  return where ? `${where}: ${error.message}` : error.message;
}
