// A plain-textarea YAML editor: line numbers, and server validation errors marked at their line
// (gutter ✗, line highlight and the message beside it). No third-party editor, works offline.

import { h, mount } from "./dom.js";

const LINE_HEIGHT = 20; // px, must match .code-editor in app.css
const PADDING_TOP = 8;

export function createEditor(container, { text = "", readOnly = false, label = "Scenario YAML", onChange = () => {} } = {}) {
  const numbers = h("pre.line-numbers", { "aria-hidden": "true" });
  const marks = h("div.marks");
  const gutter = h("div.gutter", numbers, marks);
  const highlights = h("div.highlights", { "aria-hidden": "true" });
  const textarea = h("textarea.code", {
    spellcheck: "false", autocomplete: "off", autocapitalize: "off", wrap: "off",
    "aria-label": label, readonly: readOnly, id: "yaml-text",
  });
  textarea.value = text;
  const root = h("div.code-editor", gutter, h("div.code-area", highlights, textarea));
  mount(container, root);

  let lineCount = 0;
  let errors = [];

  const renderNumbers = () => {
    const count = textarea.value.split("\n").length;
    if (count === lineCount) return;
    lineCount = count;
    numbers.textContent = Array.from({ length: count }, (_, i) => i + 1).join("\n");
  };

  const syncScroll = () => {
    numbers.style.transform = `translateY(${-textarea.scrollTop}px)`;
    marks.style.transform = `translateY(${-textarea.scrollTop}px)`;
    highlights.style.transform = `translate(${-textarea.scrollLeft}px, ${-textarea.scrollTop}px)`;
  };

  const top = (line) => `${PADDING_TOP + (line - 1) * LINE_HEIGHT}px`;

  const renderErrors = () => {
    const byLine = new Map();
    for (const error of errors) {
      if (!error.line) continue;
      if (!byLine.has(error.line)) byLine.set(error.line, []);
      byLine.get(error.line).push(error);
    }
    mount(marks, [...byLine].map(([line, list]) => {
      const text = list.map(describe).join("\n");
      const mark = h("button.mark", { type: "button", title: text, "aria-label": `line ${line}: ${text}`, onclick: () => goToLine(line) }, "✗");
      mark.style.top = top(line);
      return mark;
    }));
    mount(highlights, [...byLine].map(([line, list]) => {
      const row = h("div.error-line", { dataset: { line: String(line) } }, h("span.inline-error", `✗ ${list.map((e) => e.message).join(" · ")}`));
      row.style.top = top(line);
      return row;
    }));
  };

  const goToLine = (line) => {
    const lines = textarea.value.split("\n");
    const offset = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    textarea.focus();
    textarea.setSelectionRange(offset, offset + (lines[line - 1] || "").length);
    textarea.scrollTop = Math.max(0, (line - 4) * LINE_HEIGHT);
    syncScroll();
  };

  textarea.addEventListener("scroll", syncScroll);
  textarea.addEventListener("input", () => {
    renderNumbers();
    onChange(textarea.value);
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Tab" && !event.shiftKey && !event.ctrlKey && !readOnly && textarea.selectionStart === textarea.selectionEnd) {
      // Two spaces (YAML forbids tabs). Esc then Tab still leaves the editor.
      if (textarea.dataset.escaped === "1") return;
      event.preventDefault();
      document.execCommand("insertText", false, "  ");
    }
    textarea.dataset.escaped = event.key === "Escape" ? "1" : "";
  });
  renderNumbers();

  return {
    textarea,
    getText: () => textarea.value,
    /** Replace the whole text (a table edit); goes through the undo stack where the browser allows. */
    setText(value) {
      if (value === textarea.value) return;
      const { scrollTop, scrollLeft } = textarea;
      let done = false;
      if (!readOnly && value.length < 300_000 && document.execCommand) {
        const active = document.activeElement;
        textarea.focus({ preventScroll: true });
        if (document.activeElement === textarea) { // not when the YAML tab is hidden
          textarea.select();
          done = document.execCommand("insertText", false, value);
          active?.focus?.({ preventScroll: true });
        }
      }
      if (!done || textarea.value !== value) textarea.value = value;
      textarea.scrollTop = scrollTop;
      textarea.scrollLeft = scrollLeft;
      renderNumbers();
      syncScroll();
    },
    setErrors(list) {
      errors = list || [];
      renderErrors();
    },
    goToLine,
    focus: () => textarea.focus(),
  };
}

export function describe(error) {
  const where = [error.object, error.path].filter(Boolean).join(" ");
  return where ? `${where}: ${error.message}` : error.message;
}
