// What SchedLab's editor uses from CodeMirror 6, re-exported as one ES module.
export { EditorState, StateEffect, StateField, Compartment } from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  highlightSpecialChars, rectangularSelection, dropCursor, Decoration, WidgetType,
} from "@codemirror/view";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { searchKeymap, highlightSelectionMatches, openSearchPanel } from "@codemirror/search";
export {
  foldGutter, foldKeymap, foldService, indentOnInput, syntaxHighlighting, defaultHighlightStyle, bracketMatching,
  foldAll, unfoldAll, indentUnit, StreamLanguage,
} from "@codemirror/language";
export { linter, lintGutter, setDiagnostics, forEachDiagnostic, nextDiagnostic, lintKeymap } from "@codemirror/lint";
// YAML as a line-based stream mode: a keystroke re-reads from its line on (the Lezer grammar of
// @codemirror/lang-yaml re-parsed ~20 ms per keystroke at the end of a 5 MB file).
export { yaml as yamlMode } from "@codemirror/legacy-modes/mode/yaml";
