// Scenario editor: YAML text with inline errors (debounced server validation), Nodes/Pods tables
// editing the same text, local drafts, save (a new version), run, share, export, fork; the release the
// scenario is replayed as and why, a selector for another one (kept with the run, never written into
// the text), and "What changes if we upgrade?".
// The typing path is CodeMirror's own update plus a flag: everything that reads the whole text
// (drafts, validation, the tables) waits for a pause in typing, and the tables only while shown.

import { api } from "../api.js";
import { $, debounce, formatBytes, formatTime, h, mount, notify, pageData } from "../dom.js";
import { clearDraft, loadDraft, saveDraft } from "../drafts.js";
import { createEditor, describe } from "../editor.js";
import { mountObjectsMode } from "../objectsmode.js";
import { ANSWERED_AT, UPLOADED_AT } from "../importer.js";
import { renderChangesPanel } from "../changespanel.js";
import { renderTables } from "../tables.js";
import { readScenario } from "../yamldocs.js";
import { asked, releaseLine, releaseSelector } from "../releases.js";
import { upgradeForm } from "../upgradeform.js";

const scenarioId = Number(pageData().scenarioId);
const state = {
  scenario: null, savedText: "", savedDoc: null, savedName: "", validationSeq: 0, draftTooLarge: 0,
  tables: { nodeFilter: "", podFilter: "", nodePage: 0, podPage: 0 },
  changesForm: {}, // the Changes panel's choices, kept across redraws
};
let editor;

// The release selector's choice, kept per scenario in this browser (the text is never changed for it).
const RELEASE_KEY = `schedlab.release.${scenarioId}`;
state.release = (() => {
  try {
    const kept = JSON.parse(localStorage.getItem(RELEASE_KEY) || "null");
    return { release: String(kept?.release || ""), gates: String(kept?.gates || "") };
  } catch {
    return { release: "", gates: "" };
  }
})();
const selector = releaseSelector(state.release, {
  onChange: (choice) => {
    try {
      localStorage.setItem(RELEASE_KEY, JSON.stringify({ release: choice.release, gates: choice.gates }));
    } catch {
      // storage full or off: the choice holds for this page
    }
    validate.flush();
  },
});
$("#release-selector").append(selector.el);
const upgrades = upgradeForm($("#upgrade-form"), { ask: askUpgrade });

const nameInput = $("#scenario-name");
const statusLine = $("#save-status");
const validity = $("#validity");
const errorList = $("#error-list");
const noticeList = $("#notice-list");

function currentDraft() {
  return { text: editor.getText(), name: nameInput.value, version: state.scenario.version };
}

// Text.eq compares CodeMirror's chunks: no 5 MB string is built to answer "changed?".
const dirty = () => Boolean(editor) && (!editor.getDoc().eq(state.savedDoc) || nameInput.value !== state.savedName);

function showDirty(isDirty) {
  document.body.classList.toggle("dirty", isDirty);
  statusLine.textContent = isDirty ? "Unsaved changes (kept in this browser until you save)" : `Saved · version ${state.scenario.version}`;
}

const updateDirty = () => showDirty(dirty());

function markSaved(text) {
  state.savedText = text;
  state.savedDoc = editor ? editor.getDoc() : null;
}

const persistDraft = debounce(() => {
  if (!state.scenario) return; // left (or reloaded) before the scenario arrived: nothing typed yet
  updateDirty();
  if (!dirty()) {
    clearDraft(scenarioId);
    return;
  }
  const size = editor.getDoc().length;
  if (state.draftTooLarge && size >= state.draftTooLarge) return; // it did not fit: do not try on every pause
  if (saveDraft(scenarioId, currentDraft())) return;
  state.draftTooLarge = size;
  clearDraft(scenarioId); // an older, smaller draft must not come back over these edits
  notify("This text is too large to keep as a draft in this browser (its storage is full): save to keep your edits.", "error");
}, 200);

const validate = debounce(async () => {
  if (editor === undefined) return; // asked before the scenario loaded: load() validates under the release asked
  const seq = ++state.validationSeq;
  const text = editor.getText();
  showChecking(seq, text.length);
  try {
    const result = await validateAsked(text);
    if (seq === state.validationSeq) showValidation(result);
  } catch (error) {
    if (seq !== state.validationSeq) return;
    // A scenario over a size limit is answered 413 with every problem in details.errors.
    const errors = Array.isArray(error.details && error.details.errors) && error.details.errors.length
      ? error.details.errors
      : [{ object: "", path: "", line: null, message: error.message }];
    showValidation({ valid: false, errors, summary: null, notices: [] });
  }
}, 400);

/** The text checked as the selector asks; a release or gate the server refuses is said under the
 * selector, and the text is checked as the dump says meanwhile. */
async function validateAsked(text) {
  const wanted = asked(state.release);
  if (!Object.keys(wanted).length) {
    selector.setError(null);
    return api.validate(text);
  }
  try {
    const result = await api.validate(text, wanted);
    selector.setError(null);
    return result;
  } catch (error) {
    if (error.code !== "release_invalid") throw error;
    selector.setError(error.message);
    return api.validate(text);
  }
}

/** Validation is on the server (the engine's own check): say so while it works, with its size and time. */
function showChecking(seq, size, started = performance.now()) {
  validity.className = "validity checking";
  const what = size === null ? "the imported file" : formatBytes(size);
  const tick = () => {
    if (seq !== state.validationSeq || !validity.classList.contains("checking")) return;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    validity.textContent = `… checking ${what} on the server (${seconds} s)`;
    setTimeout(tick, 250);
  };
  tick();
}

function showValidation({ valid, errors, summary, notices = [], objects = {}, findings = [], fetch = [], release = null, dumpRelease = null }) {
  editor?.setErrors(errors); // objects mode has no whole text to mark
  showRelease(release, dumpRelease);
  const noNodes = valid && !summary.nodes;
  // A scenario with no nodes loads, but nothing can be scheduled: never a green "valid" then.
  validity.className = noNodes ? "validity warn" : valid ? "validity pass" : "validity fail";
  validity.textContent = noNodes
    ? `⚠ no nodes · ${summary.pods} pod(s), ${summary.pendingPods} pending: nothing can be scheduled`
    : valid
      ? `✓ valid · ${summary.nodes} node(s), ${summary.pods} pod(s), ${summary.pendingPods} pending`
      : `✗ ${errors.length} problem(s)`;
  mount(errorList, errors.map((e) => h("li",
    !e.line ? h("span.muted", "no line")
      : editor ? h("button.linkish.error-jump", { type: "button", onclick: () => editor.goToLine(e.line) }, `line ${e.line}`)
        : h("span", `line ${e.line}`),
    " ", describe(e))));
  const counted = Object.entries(objects);
  $("#object-counts").textContent = counted.length ? `Read: ${counted.map(([kind, count]) => `${count} ${kind}`).join(" · ")}` : "";
  mount(noticeList, notices.map(noticeItem));
  showFindings(findings, fetch);
}

/** The release the scenario will be replayed as and why (the server's choice and sentence). */
function showRelease(release, dumpRelease) {
  mount($("#release-choice"), release
    ? releaseLine(release, { id: "editor-release", lead: "Replayed as" })
    : h("span.muted", "Once the scenario loads, the release it is replayed as is said here."));
  selector.setDump(dumpRelease || release);
  upgrades.setFrom(release);
}

/** What the scheduler leaves out (ignored kinds, finished pods, other schedulers, gates): said, never dropped. */
function noticeItem(notice) {
  const tag = LOUD_NOTICES.has(notice.code) ? "li.loud" : "li";
  if (!notice.objects.length) return h(tag, { "data-code": notice.code }, notice.message);
  return h(tag, { "data-code": notice.code }, h("details", h("summary", notice.message), objectList(notice.objects)));
}

const LOUD_NOTICES = new Set(["no-nodes"]);

function objectList(names) {
  const shown = names.slice(0, 50);
  const more = names.length - shown.length;
  return h("ul.plain.notice-objects", shown.map((name) => h("li", name)), more > 0 ? h("li.muted", `… and ${more} more`) : null);
}

/** What the dump lacks that the replay reads: each finding's objects and the kubectl command that
 * fetches exactly them; the node taints the lifecycle controller would add, in one click. */
function showFindings(findings, fetch) {
  $("#findings-heading").hidden = !findings.length;
  mount($("#finding-list"), findings.map((finding) => h("li", { "data-code": finding.code },
    h("details", h("summary", finding.message),
      finding.objects.length ? objectList(finding.objects) : null,
      finding.kubectl ? h("div", h("span.muted.small", "Fetch it with:"), h("pre.kubectl", finding.kubectl),
        h("button.linkish.small", { type: "button", onclick: () => copyText(finding.kubectl) }, "Copy the command")) : null))));
  const fixable = findings.some((finding) => finding.action === "add-node-taints");
  const draOff = findings.some((finding) => finding.action === "turn-dra-on");
  const commands = fetch.join("\n");
  mount($("#finding-fixes"),
    fixable ? h("button#fix-node-taints", { type: "button", onclick: addNodeTaints }, "Add the taints the node lifecycle controller would add") : null,
    draOff ? h("button#fix-dra-on", { type: "button", onclick: () => selector.turnOn("DynamicResourceAllocation") },
      "Replay with DynamicResourceAllocation on (your text stays as it is)") : null,
    fetch.length ? h("details#fetch-all", h("summary", `Fetch everything the dump lacks (${fetch.length} command(s))`),
      h("pre.kubectl", commands), h("button.linkish.small", { type: "button", onclick: () => copyText(commands) }, "Copy the commands"),
      h("p.small", h("label", "Then add what they wrote to this scenario (files or an archive): ",
        h("input#add-fetched", { type: "file", multiple: true, onchange: (e) => addFetched(e.target) })))) : null);
}

/** The files the fetch commands wrote, added after the text as the next version (the server reads them). */
async function addFetched(input) {
  const files = [...input.files];
  if (!files.length) return;
  const form = new FormData();
  for (const file of files) form.append("file", file, file.name);
  const names = files.map((f) => f.name).join(", ");
  await saveDerived(() => api.addFiles(scenarioId, form), (added) => `Added ${names}: saved version ${added.version}.`, "Not added: ");
  input.value = "";
}

/**
 * A version the server makes from this one (fetched files added, node taints added): the typed text
 * saved first, then the server's version shown as saved — or, for a demo, the fork it went to opened.
 */
async function saveDerived(make, said, failed = "") {
  if (dirty()) {
    const saved = await save();
    if (!saved) return;
    if (saved.id !== scenarioId) return; // a demo was forked first; the new page offers it again
  }
  try {
    const derived = await make();
    if (derived.id !== scenarioId) {
      location.href = `/scenarios/${derived.id}/`;
      return;
    }
    state.scenario = derived;
    if (state.objects) {
      state.objects.follow(derived);
      showWholeCheck(derived);
      notify(said(derived));
      loadRuns();
      return;
    }
    editor.setText(derived.text);
    markSaved(derived.text);
    clearDraft(scenarioId);
    updateDirty();
    state.validationSeq += 1; // a check under way was for the older text
    showValidation(derived);
    notify(said(derived));
    loadRuns();
  } catch (error) {
    notify(`${failed}${error.message}`, "error");
  }
}

function copyText(text) {
  navigator.clipboard?.writeText(text).then(() => notify("Copied."), () => notify("Select the command and copy it.", "error"));
}

/** Saves (a new version, or your copy of a demo) the text with the node taints added. */
async function addNodeTaints() {
  await saveDerived(() => api.fixNodeTaints(scenarioId), (fixed) => `Added the node taints: saved version ${fixed.version}.`);
}

const tablesShown = () => !$("#panel-tables").hidden;
const LARGE_TEXT = 256 * 1024;

const rerenderTables = debounce(() => {
  if (!tablesShown() || editor === undefined) return; // parsed again when the tab opens (or the scenario loads)
  const parsed = readScenario(editor.getText());
  renderTables($("#tables"), parsed, {
    readOnly: false,
    state: state.tables,
    onEdit: (fn) => { if (applyEdit(fn)) rerenderTables.flush(); },
  });
}, 300);
state.tables.rerender = () => rerenderTables.flush();

const changesShown = () => !$("#panel-changes").hidden;

/** Apply a text -> text edit of a panel (tables, changes) to the YAML, as one undoable change. */
function applyEdit(fn) {
  let next;
  try {
    next = fn(editor.getText());
  } catch (error) {
    notify(`That document does not parse as YAML: ${error.message}`, "error");
    return false;
  }
  editor.setText(next);
  changed();
  return true;
}

// The Changes panel reads the text again after each pause in typing (only while it is shown).
const rerenderChanges = debounce(() => {
  // A tab opened before the scenario has loaded renders once the editor exists (load() flushes it).
  if (!changesShown() || editor === undefined) return;
  state.changesForm.redraw = () => rerenderChanges.flush();
  renderChangesPanel($("#changes"), editor.getText(), {
    form: state.changesForm,
    onEdit: (fn) => { if (applyEdit(fn)) rerenderChanges.flush(); },
  });
}, 300);

function changed() {
  showDirty(true); // exact (an undo back to the saved text) once typing pauses: persistDraft
  persistDraft();
  validate();
  rerenderTables();
  rerenderChanges();
}

async function save() {
  if (state.objects) return null; // objects mode: each object is saved on its own
  const text = editor.getText();
  const name = nameInput.value.trim() || state.scenario.name;
  const versionBefore = state.scenario.version;
  try {
    let saved;
    if (state.scenario.owned) {
      saved = await api.saveScenario(scenarioId, text, name);
    } else {
      const copy = await api.forkScenario(scenarioId, null, name === state.scenario.name ? null : name);
      saved = await api.saveScenario(copy.id, text, copy.name);
      clearDraft(scenarioId);
      location.href = `/scenarios/${saved.id}/`;
      return saved;
    }
    state.scenario = saved;
    markSaved(text);
    state.savedName = saved.name;
    document.title = `${saved.name} · SchedLab`; // a rename shows at once
    $("#scenario-title").textContent = saved.name;
    clearDraft(scenarioId);
    updateDirty();
    notify(saved.version === versionBefore ? `Renamed: still version ${saved.version}.` : `Saved version ${saved.version}.`);
    loadRuns();
    return saved;
  } catch (error) {
    notify(`Not saved: ${error.message} — your text is still here and in this browser.`, "error");
    return null;
  }
}

async function run() {
  if (dirty()) {
    const saved = await save();
    if (!saved) return;
    if (saved.id !== scenarioId) return; // a demo was forked first; the new page runs it
  }
  try {
    const started = await api.startRun(scenarioId, asked(state.release));
    location.href = `/runs/${started.id}/`;
  } catch (error) {
    if (error.code === "release_invalid") selector.setError(error.message);
    notify(error.message, "error");
  }
}

/** What changes if we upgrade: the saved version (saved first when edited), compared on the server. */
async function askUpgrade({ fromRelease, toRelease }) {
  if (dirty()) {
    const saved = await save();
    if (!saved) return;
    if (saved.id !== scenarioId) return; // a demo was forked first; ask again on its page
  }
  const gates = state.release.gates ? { featureGates: state.release.gates } : {};
  const started = await api.askUpgrade(scenarioId, { version: state.scenario.version, fromRelease, toRelease, ...gates });
  location.href = `/upgrades/${started.id}/`;
}

async function loadUpgrades() {
  try {
    const found = await api.scenarioUpgrades(scenarioId);
    mount($("#upgrades"), found.slice(0, 5).map((u) => h("li",
      h("a", { href: `/upgrades/${u.id}/` }, `${u.fromRelease || "its release"} → ${u.toRelease}`), ` · v${u.version} · ${u.status}`)));
  } catch {
    mount($("#upgrades"));
  }
}

async function share() {
  try {
    const link = await api.share(scenarioId, { version: state.scenario.version });
    const out = $("#share-url");
    out.value = link.url;
    out.hidden = false;
    out.select();
  } catch (error) {
    notify(error.message, "error");
  }
}

async function fork() {
  try {
    const copy = await api.forkScenario(scenarioId);
    location.href = `/scenarios/${copy.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
}

/** Every version, newest first: what it changed (the server's diff against the one before) and Open
 * (its text into the editor, unsaved: Save makes it the latest version — a restore that loses nothing). */
async function loadVersions() {
  const box = $("#versions");
  try {
    const versions = (await api.versions(scenarioId)).slice().reverse();
    mount(box, versions.map((v) => h("li", { dataset: { version: String(v.number) } },
      h("strong", `v${v.number}`), ` · ${formatTime(v.created)} · ${formatBytes(v.size)} `,
      v.number > 1 && !state.objects ? h("button.linkish.small.version-diff-button", { type: "button", onclick: () => showDiff(v.number - 1, v.number) }, "what changed") : null, " ",
      state.objects ? null // a big version is not opened into the browser
        : v.number !== state.scenario.version
        ? h("button.linkish.small.version-open", { type: "button", onclick: () => openVersion(v.number) }, "open")
        : h("span.muted", "latest"))));
  } catch {
    mount(box, h("li.muted", "Versions unavailable."));
  }
}

async function showDiff(old, neu) {
  const box = $("#version-diff");
  try {
    const answer = await api.diff(scenarioId, old, neu);
    box.hidden = false;
    box.dataset.versions = `${old}-${neu}`;
    box.textContent = answer.diff || `v${old} and v${neu} hold the same text.`;
  } catch (error) {
    notify(`No diff: ${error.message}`, "error");
  }
}

async function openVersion(number) {
  if (dirty() && !confirm("Replace your unsaved text with this version? (Your text stays in this browser's draft until then.)")) return;
  try {
    const version = await api.version(scenarioId, number);
    editor.setText(version.text);
    changed();
    notify(`Opened version ${number}: save to make it the latest version (nothing is lost: every save is kept).`);
  } catch (error) {
    notify(`Not opened: ${error.message}`, "error");
  }
}

async function loadRuns() {
  loadVersions();
  try {
    const runs = await api.scenarioRuns(scenarioId);
    mount($("#runs"), runs.length
      ? runs.slice(0, 10).map((r) => h("li", h("a", { href: `/runs/${r.id}/` }, `Run ${r.id}`), ` · v${r.version} · ${r.status} · ${formatTime(r.created)}`))
      : h("li.muted", "No runs yet."));
  } catch {
    mount($("#runs"), h("li.muted", "Runs unavailable."));
  }
}

function showTab(name) {
  if (state.objects && name === "changes") {
    // Objects mode: the Changes document is an object like the others, opened in the objects editor.
    showTab("yaml");
    state.objects.openChanges();
    return;
  }
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`#${tab.getAttribute("aria-controls")}`).hidden = !selected;
  }
  if (name === "changes") rerenderChanges.flush();
  if (name !== "tables" || editor === undefined) return; // before the scenario loads: load() renders it
  // Reading every document takes a moment on a big file: say so first, then parse.
  const size = editor.getDoc().length;
  if (size > LARGE_TEXT) {
    mount($("#tables"), h("p.note#tables-reading", { role: "status" }, `Reading the YAML (${formatBytes(size)})…`));
    requestAnimationFrame(() => setTimeout(() => rerenderTables.flush(), 0));
  } else {
    rerenderTables.flush();
  }
}

/** After an import: how long from the end of the upload until the editor showed the scenario and
 * its check (data-import-usable-ms on <body>, read by tools/measure_browser.py). */
function noteUsableAfterImport() {
  const uploadedAt = Number(sessionStorage.getItem(UPLOADED_AT));
  const answeredAt = Number(sessionStorage.getItem(ANSWERED_AT));
  if (!uploadedAt) return;
  sessionStorage.removeItem(UPLOADED_AT);
  sessionStorage.removeItem(ANSWERED_AT);
  requestAnimationFrame(() => setTimeout(() => {
    document.body.dataset.importSavedMs = String(answeredAt - uploadedAt); // the server saved it (its check went on)
    document.body.dataset.importUsableMs = String(Date.now() - uploadedAt);
  }, 0));
}

async function start() {
  // Just imported: the server checks the file while this page loads, and answers once it is checked.
  const uploadedAt = Number(sessionStorage.getItem(UPLOADED_AT));
  if (uploadedAt) showChecking(state.validationSeq, null, performance.now() - Math.max(0, Date.now() - uploadedAt));
  let scenario;
  try {
    scenario = await api.scenario(scenarioId);
  } catch (error) {
    state.validationSeq += 1; // no check to wait for
    validity.className = "validity";
    validity.textContent = "";
    mount($("#editor-root"), h("p.notice.notice-error", error.message));
    return;
  }
  state.scenario = scenario;
  if (scenario.mode === "objects") {
    startObjectsMode(scenario);
    return;
  }
  state.savedText = scenario.text;
  state.savedName = scenario.name;
  document.title = `${scenario.name} · SchedLab`;
  $("#scenario-title").textContent = scenario.name;
  nameInput.value = scenario.name;
  $("#export-link").href = api.exportUrl(scenarioId);
  $("#cluster-link").href = `/scenarios/${scenarioId}/cluster/`;
  $("#save-button").textContent = scenario.owned ? "Save" : "Save as my copy";
  if (!scenario.owned) $("#owner-note").textContent = scenario.demo ? "This is a demo: saving makes your own copy." : "Read-only for you: saving makes your own copy.";

  const draft = loadDraft(scenarioId);
  let text = scenario.text;
  if (draft && (draft.text !== scenario.text || (draft.name && draft.name !== scenario.name))) {
    text = draft.text;
    if (draft.name) nameInput.value = draft.name;
    const banner = h("p.notice.notice-info#draft-banner", { role: "status" },
      `Restored unsaved edits from ${formatTime(draft.at)} (based on version ${draft.version}; the latest is ${scenario.version}). `,
      h("button.linkish", { type: "button", onclick: () => {
        clearDraft(scenarioId);
        editor.setText(scenario.text);
        nameInput.value = scenario.name;
        banner.remove();
        changed();
      } }, "Discard them"));
    $("#editor-notices").append(banner);
  }

  editor = createEditor($("#editor-root"), { text: scenario.text, onChange: changed });
  markSaved(scenario.text);
  if (text !== scenario.text) editor.setText(text); // the restored draft, undoable back to the saved text
  showValidation(scenario);
  updateDirty();
  noteUsableAfterImport();
  if (text !== scenario.text || Object.keys(asked(state.release)).length) validate(); // under the release asked
  loadUpgrades();
  rerenderTables.flush();
  rerenderChanges.flush();
  loadRuns();
  for (const id of ["#save-button", "#run-button", "#fork-button", "#share-button"]) $(id).disabled = false;
}

/** A scenario over the editor's limit (the server says `mode: "objects"` and sends no text): its
 * objects listed and edited one at a time, each edit a version; the whole check runs on the server
 * in the background and is shown once done. */
function startObjectsMode(scenario) {
  document.body.classList.add("objects-mode");
  document.title = `${scenario.name} · SchedLab`;
  $("#scenario-title").textContent = scenario.name;
  nameInput.value = scenario.name;
  nameInput.disabled = true; // a rename saves the text: not in objects mode
  $("#export-link").href = api.exportUrl(scenarioId);
  $("#cluster-link").href = `/scenarios/${scenarioId}/cluster/`;
  $("#tab-yaml").textContent = "Objects";
  $("#tab-tables").hidden = true;
  $("#save-button").hidden = true;
  if (!scenario.owned) $("#owner-note").textContent = scenario.demo ? "This is a demo: fork it to edit your own copy." : "Read-only for you: fork it to edit your own copy.";
  statusLine.textContent = `Saved · version ${scenario.version}`;
  state.objects = mountObjectsMode($("#editor-root"), {
    scenarioId, scenario, notices: $("#editor-notices"), exportUrl: api.exportUrl(scenarioId), readOnly: !scenario.owned,
    onSaved: (answer) => {
      state.scenario = answer;
      statusLine.textContent = `Saved · version ${answer.version}`;
      showWholeCheck(answer);
      loadRuns();
    },
  });
  showWholeCheck(scenario);
  loadUpgrades();
  loadRuns();
  for (const id of ["#run-button", "#fork-button", "#share-button"]) $(id).disabled = false;
}

const WHOLE_CHECK_POLL_MS = 2000;

/** The server's whole check of a big version: shown when done, else said as under way and asked again. */
function showWholeCheck(answer) {
  const seq = ++state.validationSeq;
  if (answer.checked) {
    showValidation(answer);
    return;
  }
  showChecking(seq, answer.size);
  setTimeout(async () => {
    if (seq !== state.validationSeq) return;
    try {
      const again = await api.scenario(scenarioId);
      if (seq === state.validationSeq && again.version === state.scenario.version) showWholeCheck(again);
    } catch (error) {
      if (seq === state.validationSeq) notify(`The check did not answer: ${error.message}`, "error");
    }
  }, WHOLE_CHECK_POLL_MS);
}

nameInput.addEventListener("input", () => { updateDirty(); persistDraft(); });
$("#save-button").addEventListener("click", save);
$("#run-button").addEventListener("click", run);
$("#share-button").addEventListener("click", share);
$("#fork-button").addEventListener("click", fork);
for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
  tab.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const tabs = [...document.querySelectorAll("[role=tab]")];
      const next = tabs[(tabs.indexOf(tab) + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      next.focus();
      showTab(next.dataset.tab);
    }
  });
}
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === "s") {
    e.preventDefault();
    save();
  }
});
window.addEventListener("pagehide", () => persistDraft.flush());
window.addEventListener("beforeunload", () => persistDraft.flush());

start();
