// Building DOM from untrusted data: every string becomes a text node (never innerHTML).

/**
 * h("td#id.cell.fail", {title: reason, dataset: {node}}, "✗", child) — tag with optional .classes,
 * attributes (on* handlers are functions attached with addEventListener, never strings), children
 * (strings become text nodes; null/false are skipped; arrays are flattened).
 */
export function h(spec, attrs, ...children) {
  const tag = spec.match(/^[a-z0-9]*/i)[0];
  const id = spec.match(/#([\w-]+)/)?.[1];
  const classes = [...spec.matchAll(/\.([\w-]+)/g)].map((m) => m[1]);
  const el = document.createElement(tag || "div");
  if (id) el.id = id;
  if (classes.length) el.className = classes.join(" ");
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [key, value] of Object.entries(attrs || {})) setAttr(el, key, value);
  append(el, children);
  return el;
}

function setAttr(el, key, value) {
  if (value === null || value === undefined || value === false) return;
  if (key.startsWith("on") && typeof value === "function") {
    el.addEventListener(key.slice(2).toLowerCase(), value);
  } else if (key === "dataset") {
    Object.assign(el.dataset, value);
  } else if (key === "class") {
    el.className = value;
  } else if (key === "value" || key === "checked" || key === "disabled" || key === "selected") {
    el[key] = value;
  } else {
    el.setAttribute(key, value === true ? "" : String(value));
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace all children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

export function debounce(fn, ms) {
  let timer = null;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  wrapped.flush = (...args) => {
    clearTimeout(timer);
    fn(...args);
  };
  return wrapped;
}

/** A status line for messages to the user (role=status so screen readers hear it). */
export function notify(text, kind = "info") {
  let box = $("#notices");
  if (!box) return;
  const item = h(`div.notice.notice-${kind}`, { role: kind === "error" ? "alert" : "status" }, text,
    h("button.notice-close", { type: "button", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
  box.append(item);
  if (kind !== "error") setTimeout(() => item.remove(), 6000);
}

export function formatTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A size as people read it: "84.0 MB", "12 KB", "300 B". */
export function formatBytes(size) {
  return size >= 1 << 20 ? `${(size / (1 << 20)).toFixed(1)} MB` : size >= 1024 ? `${Math.round(size / 1024)} KB` : `${size} B`;
}

/** Page data comes from data-* attributes on <main> (no inline scripts). */
export function pageData() {
  return { ...($("main")?.dataset || {}) };
}

/** Trigger a download of text built in the browser. */
export function downloadText(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
