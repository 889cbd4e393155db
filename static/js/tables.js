// Structured tables for Nodes and Pods that edit the same YAML text as the editor.
// Every action is a text -> text function from yamldocs.js handed to onEdit.

import { $, h, mount } from "./dom.js";
import {
  appendObject, duplicate, formatMap, formatTaints, getObject, insertAfter, newNode, newPod,
  nodeFields, podFields, removeObject, uniqueName, updateObject,
} from "./yamldocs.js";

const PAGE = 100;

/**
 * renderTables(container, parsed, {onEdit, readOnly, state}) where parsed = readScenario(text)
 * and state keeps {nodeFilter, podFilter, nodeLimit, podLimit} across re-renders.
 */
export function renderTables(container, parsed, { onEdit, readOnly = false, state }) {
  const focusedKey = document.activeElement?.dataset?.key;
  const edit = (fn) => onEdit(fn);
  const nodeNames = parsed.nodes.map((n) => n.name);
  const podNames = parsed.pods.map((p) => p.name);

  const nodeRows = filtered(parsed.nodes, state.nodeFilter, (n) => `${n.name} ${formatMap(n.labels)}`);
  const podRows = filtered(parsed.pods, state.podFilter, (p) => `${p.namespace}/${p.name} ${formatMap(p.labels)} ${p.nodeName}`);

  mount(container,
    parsed.errors.length
      ? h("p.notice.notice-error", { role: "alert" },
        `${parsed.errors.length} document(s) are not valid YAML (first at line ${parsed.errors[0].line}); the tables show the others. Fix them in the YAML tab.`)
      : null,
    h("section.panel",
      h("div.table-head",
        h("h3", `Nodes (${parsed.nodes.length})`),
        filterInput("node-filter", state.nodeFilter, (v) => { state.nodeFilter = v; state.rerender(); }),
        readOnly ? null : h("button#add-node", { type: "button", onclick: () => edit((text) => appendObject(text, newNode(uniqueName("node-0", nodeNames)))) }, "+ Add node")),
      h("div.scroll-x", h("table.data.edit-table#nodes-table",
        h("thead", h("tr", ["name", "labels (k=v, …)", "taints (k=v:Effect, …)", "allocatable (cpu=…, memory=…, pods=…)", "unschedulable", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", nodeRows.slice(0, state.nodeLimit).map((row, i) => nodeRow(row, i, { edit, readOnly, nodeNames }))))),
      more(nodeRows.length, state.nodeLimit, () => { state.nodeLimit += PAGE; state.rerender(); })),
    h("section.panel",
      h("div.table-head",
        h("h3", `Pods (${parsed.pods.length}, ${parsed.pods.filter((p) => !p.nodeName).length} pending)`),
        filterInput("pod-filter", state.podFilter, (v) => { state.podFilter = v; state.rerender(); }),
        readOnly ? null : h("button#add-pod", { type: "button", onclick: () => edit((text) => appendObject(text, newPod(uniqueName("pod-0", podNames)))) }, "+ Add pod")),
      h("div.scroll-x", h("table.data.edit-table#pods-table",
        h("thead", h("tr", ["namespace/name", "labels", "node (empty: pending)", "priority", "requests (first container)", "constraints", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", podRows.slice(0, state.podLimit).map((row, i) => podRow(row, i, { edit, readOnly, podNames }))))),
      more(podRows.length, state.podLimit, () => { state.podLimit += PAGE; state.rerender(); })));

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

function more(total, limit, onMore) {
  if (total <= limit) return null;
  return h("p.note", `Showing ${limit} of ${total}. `, h("button.linkish", { type: "button", onclick: onMore }, "Show more"));
}

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
    h("td", input(key("labels"), formatMap(row.labels), `labels of ${row.name}`, set("labels"), readOnly)),
    h("td", input(key("taints"), formatTaints(row.taints), `taints of ${row.name}`, set("taints"), readOnly)),
    h("td", input(key("allocatable"), formatMap(row.allocatable), `allocatable of ${row.name}`, set("allocatable"), readOnly,
      row.allocatableFromCapacity ? { title: "from status.capacity (no allocatable given); editing writes status.allocatable" } : {})),
    h("td.center", h("input", { type: "checkbox", checked: row.unschedulable, disabled: readOnly, "aria-label": `${row.name} unschedulable`, dataset: { key: key("unschedulable") },
      onchange: (e) => set("unschedulable")(e.target.checked) })),
    actions("node", row, { edit, readOnly, names: nodeNames }));
}

function podRow(row, i, { edit, readOnly, podNames }) {
  const set = (field) => (value) => edit((text) => updateObject(text, row.ref, (obj) => podFields[field](obj, value)));
  const key = (field) => `pod-${i}-${field}`;
  const editableRequests = row.requests.length <= 1;
  return h(row.nodeName ? "tr" : "tr.pending", { dataset: { line: String(row.line) } },
    h("td", input(key("name"), `${row.namespace}/${row.name}`, "pod namespace/name", set("name"), readOnly)),
    h("td", input(key("labels"), formatMap(row.labels), `labels of ${row.name}`, set("labels"), readOnly)),
    h("td", input(key("nodeName"), row.nodeName, `node of ${row.name}`, set("nodeName"), readOnly, { placeholder: "pending" })),
    h("td", input(key("priority"), row.priority, `priority of ${row.name}`, set("priority"), readOnly, { inputmode: "numeric", size: "6" })),
    h("td", editableRequests
      ? input(key("requests"), formatMap(row.requests[0] || {}), `requests of ${row.name}`, set("requests"), readOnly)
      : h("span", { title: "several containers: edit in YAML" }, row.requests.map(formatMap).join(" | "))),
    h("td.constraints", row.constraints.length ? h("ul", row.constraints.map((c) => h("li", c))) : h("span.muted", "—")),
    actions("pod", row, { edit, readOnly, names: podNames }));
}
