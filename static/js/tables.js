// Structured tables for Nodes and Pods that edit the same YAML text as the editor.
// Every action is a text -> text function from yamldocs.js handed to onEdit. Paged (PAGE rows at a
// time, so 5000 nodes cost one page of DOM); every label and taint is shown as a chip, every
// container's requests per resource, and the priority (or its PriorityClass name).

import { $, h, mount } from "./dom.js";
import {
  appendObject, duplicate, formatMap, formatTaints, getObject, insertAfter, newNode, newPod,
  nodeFields, podFields, removeObject, uniqueName, updateObject,
} from "./yamldocs.js";

export const PAGE = 50;

/**
 * renderTables(container, parsed, {onEdit, readOnly, state}) where parsed = readScenario(text)
 * and state keeps {nodeFilter, podFilter, nodePage, podPage} across re-renders.
 */
export function renderTables(container, parsed, { onEdit, readOnly = false, state }) {
  const focusedKey = document.activeElement?.dataset?.key;
  const edit = (fn) => onEdit(fn);
  const nodeNames = parsed.nodes.map((n) => n.name);
  const podNames = parsed.pods.map((p) => p.name);

  const nodeRows = filtered(parsed.nodes, state.nodeFilter, (n) => `${n.name} ${formatMap(n.labels)} ${formatTaints(n.taints)}`);
  const podRows = filtered(parsed.pods, state.podFilter, (p) => `${p.namespace}/${p.name} ${formatMap(p.labels)} ${p.nodeName}`);
  const nodePage = pageOf(nodeRows, state.nodePage);
  const podPage = pageOf(podRows, state.podPage);
  state.nodePage = nodePage.index;
  state.podPage = podPage.index;

  mount(container,
    parsed.errors.length
      ? h("p.notice.notice-error", { role: "alert" },
        `${parsed.errors.length} document(s) are not valid YAML (first at line ${parsed.errors[0].line}); the tables show the others. Fix them in the YAML tab.`)
      : null,
    h("section.panel",
      h("div.table-head",
        h("h3", `Nodes (${parsed.nodes.length})`),
        filterInput("node-filter", state.nodeFilter, (v) => { state.nodeFilter = v; state.nodePage = 0; state.rerender(); }),
        readOnly ? null : h("button#add-node", { type: "button", onclick: () => edit((text) => appendObject(text, newNode(uniqueName("node-0", nodeNames)))) }, "+ Add node")),
      pager("nodes", nodePage, nodeRows.length, (index) => { state.nodePage = index; state.rerender(); }),
      h("div.scroll-x", h("table.data.edit-table#nodes-table",
        h("thead", h("tr", ["name", "labels (k=v, …)", "taints (k=v:Effect, …)", "allocatable (cpu=…, memory=…, pods=…)", "unschedulable", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", nodePage.rows.map((row, i) => nodeRow(row, nodePage.start + i, { edit, readOnly, nodeNames })))))),
    h("section.panel",
      h("div.table-head",
        h("h3", `Pods (${parsed.pods.length}, ${parsed.pods.filter((p) => !p.nodeName).length} pending)`),
        filterInput("pod-filter", state.podFilter, (v) => { state.podFilter = v; state.podPage = 0; state.rerender(); }),
        readOnly ? null : h("button#add-pod", { type: "button", onclick: () => edit((text) => appendObject(text, newPod(uniqueName("pod-0", podNames)))) }, "+ Add pod")),
      pager("pods", podPage, podRows.length, (index) => { state.podPage = index; state.rerender(); }),
      h("div.scroll-x", h("table.data.edit-table#pods-table",
        h("thead", h("tr", ["namespace/name", "labels", "node (empty: pending)", "priority", "requests per container and resource", "constraints", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", podPage.rows.map((row, i) => podRow(row, podPage.start + i, { edit, readOnly, podNames })))))));

  if (focusedKey) $(`[data-key="${CSS.escape(focusedKey)}"]`, container)?.focus();
}

function filtered(rows, text, haystack) {
  if (!text) return rows;
  const needle = text.toLowerCase();
  return rows.filter((r) => haystack(r).toLowerCase().includes(needle));
}

function filterInput(id, value, onChange) {
  return h("input.filter", { id, type: "search", placeholder: "filter…", value: value || "", "aria-label": "filter rows", onchange: (e) => onChange(e.target.value) });
}

function pageOf(rows, wanted) {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const index = Math.min(Math.max(0, wanted || 0), pages - 1);
  const start = index * PAGE;
  return { index, pages, start, rows: rows.slice(start, start + PAGE) };
}

/** "Rows 51–100 of 5000 · ◀ page 2 of 100 ▶" with a page number to jump to. */
function pager(kind, page, total, go) {
  if (total <= PAGE) return null;
  const last = Math.min(page.start + PAGE, total);
  return h(`nav.pager#${kind}-pager`, { "aria-label": `${kind} pages` },
    h("span.muted", `rows ${page.start + 1}–${last} of ${total}`),
    h("button", { type: "button", disabled: page.index === 0, "aria-label": `previous ${kind} page`, dataset: { page: "prev" }, onclick: () => go(page.index - 1) }, "◀"),
    h("label", "page ", h("input.page-input", {
      type: "number", min: "1", max: String(page.pages), value: String(page.index + 1), "aria-label": `${kind} page`,
      onchange: (e) => go(Number(e.target.value) - 1),
    }), ` of ${page.pages}`),
    h("button", { type: "button", disabled: page.index >= page.pages - 1, "aria-label": `next ${kind} page`, dataset: { page: "next" }, onclick: () => go(page.index + 1) }, "▶"));
}

function chips(items, kind) {
  if (!items.length) return null;
  return h("ul.chips", { "aria-label": kind }, items.map((text) => h("li.chip", { title: text }, text)));
}

const mapChips = (map) => Object.entries(map || {}).map(([k, v]) => (v === "" ? k : `${k}=${v}`));
const taintChips = (taints) => formatTaints(taints).split(", ").filter(Boolean);

function input(key, value, label, onCommit, readOnly, extra = {}) {
  return h("input.cell-input", {
    type: "text", value, "aria-label": label, readonly: readOnly, dataset: { key }, ...extra,
    onchange: (e) => onCommit(e.target.value),
    onkeydown: (e) => { if (e.key === "Enter") e.target.blur(); },
  });
}

function actions(kind, row, { edit, readOnly, names }) {
  if (readOnly) return h("td");
  return h("td", h("span.row-actions",
    h("button", { type: "button", title: `duplicate ${kind} ${row.name}`, "aria-label": `duplicate ${row.name}`, dataset: { action: "duplicate" },
      onclick: () => edit((text) => insertAfter(text, row.ref, duplicate(getObject(text, row.ref), uniqueName(row.name, names)))) }, "Duplicate"),
    h("button", { type: "button", title: `remove ${kind} ${row.name}`, "aria-label": `remove ${row.name}`, dataset: { action: "remove" },
      onclick: () => edit((text) => removeObject(text, row.ref)) }, "Remove")));
}

function nodeRow(row, i, { edit, readOnly, nodeNames }) {
  const set = (field) => (value) => edit((text) => updateObject(text, row.ref, (obj) => nodeFields[field](obj, value)));
  const key = (field) => `node-${i}-${field}`;
  return h("tr", { dataset: { line: String(row.line) } },
    h("td", input(key("name"), row.name, "node name", set("name"), readOnly)),
    h("td", chips(mapChips(row.labels), `labels of ${row.name}`), input(key("labels"), formatMap(row.labels), `labels of ${row.name}`, set("labels"), readOnly)),
    h("td", chips(taintChips(row.taints), `taints of ${row.name}`), input(key("taints"), formatTaints(row.taints), `taints of ${row.name}`, set("taints"), readOnly, { placeholder: "no taints" })),
    h("td", chips(mapChips(row.allocatable), `allocatable of ${row.name}`), input(key("allocatable"), formatMap(row.allocatable), `allocatable of ${row.name}`, set("allocatable"), readOnly,
      row.allocatableFromCapacity ? { title: "from status.capacity (no allocatable given); editing writes status.allocatable" } : {})),
    h("td.center", h("input", { type: "checkbox", checked: row.unschedulable, disabled: readOnly, "aria-label": `${row.name} unschedulable`, dataset: { key: key("unschedulable") },
      onchange: (e) => set("unschedulable")(e.target.checked) })),
    actions("node", row, { edit, readOnly, names: nodeNames }));
}

/** Every container's requests, one chip per resource (as written; the engine's sum is in the run). */
function requestChips(row) {
  const several = row.requests.length > 1;
  const items = row.requests.flatMap((requests, i) => mapChips(requests).map((text) => (several ? `${row.containerNames[i]}: ${text}` : text)));
  return chips(items, `requests of ${row.name}`);
}

function podRow(row, i, { edit, readOnly, podNames }) {
  const set = (field) => (value) => edit((text) => updateObject(text, row.ref, (obj) => podFields[field](obj, value)));
  const key = (field) => `pod-${i}-${field}`;
  const editableRequests = row.requests.length <= 1;
  return h(row.nodeName ? "tr" : "tr.pending", { dataset: { line: String(row.line) } },
    h("td", input(key("name"), `${row.namespace}/${row.name}`, "pod namespace/name", set("name"), readOnly)),
    h("td", chips(mapChips(row.labels), `labels of ${row.name}`), input(key("labels"), formatMap(row.labels), `labels of ${row.name}`, set("labels"), readOnly)),
    h("td", input(key("nodeName"), row.nodeName, `node of ${row.name}`, set("nodeName"), readOnly, { placeholder: "pending" })),
    h("td", input(key("priority"), row.priority, `priority of ${row.name}`, set("priority"), readOnly, { inputmode: "numeric", size: "6", placeholder: row.priorityClassName ? "from class" : "0" }),
      row.priorityClassName ? chips([`class ${row.priorityClassName}`], `priority class of ${row.name}`) : null),
    h("td", requestChips(row),
      editableRequests ? input(key("requests"), formatMap(row.requests[0] || {}), `requests of ${row.name}`, set("requests"), readOnly, { placeholder: "no requests" })
        : h("span.muted", "several containers: edit in YAML")),
    h("td.constraints", row.constraints.length ? h("ul", row.constraints.map((c) => h("li", c))) : h("span.muted", "—")),
    actions("pod", row, { edit, readOnly, names: podNames }));
}
