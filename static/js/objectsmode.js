// The editor of a big scenario (objects mode, issue 50 item 3): the raw text is for what a person
// types; a version over the server's editor limit is listed object by object (a page at a time,
// filtered by kind, searched by name), each object read, replaced, deleted — or objects added — on
// its own, every edit saved by the server as a new version (GET/PUT/DELETE/POST .../documents). The
// server says the mode, the sizes and the counts; this draws them.

import { api } from "./api.js";
import { createEditor, describe } from "./editor.js";
import { $, formatBytes, h, mount, notify } from "./dom.js";

const PAGE = 50;
const NEW_OBJECT = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: new-pod\n  namespace: default\nspec:\n  containers:\n  - name: app\n    image: nginx\n    resources: {requests: {cpu: 100m}}\n";

const count = (n) => Number(n || 0).toLocaleString("en-US");

/** Why the scenario is edited object by object, in the user's words (the sizes and counts the server gave). */
export function modeSentence(scenario, counts, exportUrl) {
  return h("p.notice.notice-info#mode-note", { role: "status" },
    `This scenario is ${formatBytes(scenario.size)} (${count(counts.Node)} nodes, ${count(counts.Pod)} pods): it is edited object by object; `,
    `the raw text is for scenarios under ${formatBytes(scenario.editorMaxBytes)} — `,
    h("a", { href: exportUrl, download: "" }, "download it"), " to edit elsewhere.");
}

/**
 * Mounts the objects list and the one-object editor in `root`. `scenario`: the server's answer (its
 * `version` is the one shown). onSaved(answer): called with each new version the server saved.
 * Returns { reload, follow, openChanges, ready } for the page (the Changes tab opens the Changes document).
 */
export function mountObjectsMode(root, { scenarioId, scenario, notices, exportUrl, readOnly, onSaved }) {
  const state = { version: scenario.version, kind: "", search: "", offset: 0, open: null, editor: null, page: null };

  const kindSelect = h("select#objects-kind", { "aria-label": "kind", onchange: () => { state.kind = kindSelect.value; state.offset = 0; load(); } });
  const search = h("input#objects-search", { type: "search", placeholder: "search namespace/name", "aria-label": "search objects by namespace/name" });
  let typing = null;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.search = search.value.trim(); state.offset = 0; load(); }, 250);
  });
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    clearTimeout(typing);
    state.search = search.value.trim();
    state.offset = 0;
    load();
  });
  const summary = h("p.muted.small#objects-summary", { "aria-live": "polite" });
  const table = h("table.data#objects-table",
    h("thead", h("tr", h("th", "kind"), h("th", "namespace/name"), h("th", "line"), h("th", "size"), h("th", ""))),
    h("tbody"));
  const pager = h("p.actions#objects-pager");
  const editorBox = h("section.panel#object-editor", { hidden: true });
  const addBox = h("section.panel#objects-add", { hidden: true });
  mount(root,
    h("div.actions.objects-filters", kindSelect, search,
      readOnly ? null : h("button#objects-add-button", { type: "button", onclick: openAdd }, "Add objects")),
    summary, table, pager, editorBox, addBox);

  async function load() {
    try {
      const page = await api.documents(scenarioId, { version: state.version, kind: state.kind, search: state.search, offset: state.offset, limit: PAGE });
      state.page = page;
      draw(page);
      return page;
    } catch (error) {
      mount(summary, h("span.notice-error", `The objects did not load: ${error.message}`));
      return null;
    }
  }

  function draw(page) {
    const kinds = Object.entries(page.counts);
    mount(kindSelect, h("option", { value: "" }, `every kind (${count(page.total)})`),
      kinds.map(([kind, n]) => h("option", { value: kind, selected: kind === state.kind }, `${kind || "(no kind)"} (${count(n)})`)));
    const last = Math.min(page.offset + page.documents.length, page.matched);
    summary.textContent = page.matched
      ? `Version ${page.version}: objects ${count(page.offset + 1)}–${count(last)} of ${count(page.matched)}${page.matched !== page.total ? ` matching (${count(page.total)} in all)` : ""}`
      : `Version ${page.version}: no object matches.`;
    mount(table.tBodies[0], page.documents.map((d) => h("tr", { dataset: { index: String(d.index) } },
      h("td", d.kind || h("span.muted", "(no kind)")),
      h("td", d.namespace ? `${d.namespace}/${d.name}` : d.name || h("span.muted", `document ${d.index + 1}`)),
      h("td", String(d.line)), h("td", formatBytes(d.size)),
      h("td", h("button.linkish.object-open", { type: "button", onclick: () => open(d.index) }, readOnly ? "read" : "edit")))));
    mount(pager,
      page.offset > 0 ? h("button#objects-previous", { type: "button", onclick: () => { state.offset = Math.max(0, state.offset - PAGE); load(); } }, "← previous") : null,
      last < page.matched ? h("button#objects-next", { type: "button", onclick: () => { state.offset += PAGE; load(); } }, "next →") : null);
  }

  async function open(index) {
    let found;
    try {
      found = await api.document(scenarioId, index, state.version);
    } catch (error) {
      notify(`Not opened: ${error.message}`, "error");
      return;
    }
    state.open = found;
    addBox.hidden = true;
    const errors = h("ul.error-list#object-errors");
    const title = found.namespace ? `${found.kind} ${found.namespace}/${found.name}` : `${found.kind || "document"} ${found.name || found.index + 1}`;
    mount(editorBox,
      h("h2#object-title", `${title} · line ${found.line} of version ${found.version}`),
      h("div#object-text"), errors,
      h("p.actions",
        readOnly ? null : h("button.primary#object-save", { type: "button", onclick: () => saveObject(errors) }, "Save this object"),
        readOnly ? null : h("button#object-delete", { type: "button", onclick: deleteObject }, "Delete this object"),
        h("button#object-close", { type: "button", onclick: () => { editorBox.hidden = true; state.open = null; } }, "Close")));
    editorBox.hidden = false;
    state.editor = createEditor($("#object-text", editorBox), { text: found.text, readOnly, label: `${title} YAML` });
    editorBox.scrollIntoView({ block: "nearest" });
  }

  /** The server's problems are lines of the whole text: shown on the object's own lines. */
  function showProblems(list, errors, firstLine) {
    const own = list.map((e) => ({ ...e, line: e.line ? e.line - firstLine + 1 : null }));
    state.editor?.setErrors(own);
    mount(errors, list.map((e) => h("li", e.line ? `line ${e.line}: ` : "", describe(e))));
  }

  async function saved(answer, said) {
    state.version = answer.version;
    notify(said(answer));
    onSaved(answer);
    await load();
  }

  async function saveObject(errors) {
    const { index, line } = state.open;
    try {
      const answer = await api.replaceDocument(scenarioId, index, state.editor.getText(), state.version);
      showProblems([], errors, line);
      editorBox.hidden = true;
      state.open = null;
      await saved(answer, (a) => `Saved version ${a.version}.`);
    } catch (error) {
      const problems = error.details?.errors;
      if (Array.isArray(problems) && problems.length) showProblems(problems, errors, line);
      notify(`Not saved: ${error.message}`, "error");
    }
  }

  async function deleteObject() {
    const { index } = state.open;
    if (!confirm("Delete this object? (The version before keeps it.)")) return;
    try {
      const answer = await api.deleteDocument(scenarioId, index, state.version);
      editorBox.hidden = true;
      state.open = null;
      await saved(answer, (a) => `Deleted: saved version ${a.version}.`);
    } catch (error) {
      notify(`Not deleted: ${error.message}`, "error");
    }
  }

  function openAdd(text = NEW_OBJECT) {
    editorBox.hidden = true;
    const errors = h("ul.error-list#objects-add-errors");
    mount(addBox, h("h2", "Add objects"),
      h("p.muted.small", "One or more YAML documents (separated by ---), added after the last one as a new version."),
      h("div#objects-add-text"), errors,
      h("p.actions", h("button.primary#objects-add-save", { type: "button", onclick: () => add(errors) }, "Add"),
        h("button", { type: "button", onclick: () => { addBox.hidden = true; } }, "Close")));
    addBox.hidden = false;
    state.addEditor = createEditor($("#objects-add-text", addBox), { text: typeof text === "string" ? text : NEW_OBJECT, label: "Objects to add" });
  }

  async function add(errors) {
    try {
      const answer = await api.addDocuments(scenarioId, state.addEditor.getText(), state.version);
      addBox.hidden = true;
      await saved(answer, (a) => `Added: saved version ${a.version}.`);
    } catch (error) {
      const problems = error.details?.errors;
      if (Array.isArray(problems)) mount(errors, problems.map((e) => h("li", e.line ? `line ${e.line}: ` : "", describe(e))));
      notify(`Not added: ${error.message}`, "error");
    }
  }

  /** The Changes tab: the Changes document opened as the object it is (or a new one offered). */
  async function openChanges() {
    const page = await api.documents(scenarioId, { version: state.version, kind: "Changes", limit: 1 });
    if (page.documents.length) await open(page.documents[0].index);
    else if (!readOnly) openAdd("apiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- name: my step\n  operations: []\n");
  }

  const first = load().then((page) => {
    if (page) notices.append(modeSentence(scenario, page.counts, exportUrl));
    return page;
  });
  /** A version the server made otherwise (a fix, fetched files added): shown from now on. */
  const follow = (answer) => { state.version = answer.version; return load(); };
  return { reload: load, follow, openChanges, ready: first };
}
