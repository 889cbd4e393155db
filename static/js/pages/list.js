// Scenario list: search, create (blank or from a demo), import files or an archive (chosen or
// dropped), fork, open, run; select several and "Check upgrade to v1.3X" (a fleet check: one
// comparison per scenario, from its own release; its page fills in as they finish).

import { api } from "../api.js";
import { releases } from "../releases.js";
import { importWithProgress } from "../importer.js";
import { $, debounce, formatBytes, formatTime, h, mount, notify, pageData } from "../dom.js";

const list = $("#scenario-list");
const search = $("#scenario-search");
const selected = new Set(); // scenario ids ticked for a fleet check (kept across searches)

async function refresh() {
  try {
    const scenarios = await api.scenarios(search.value.trim());
    mount(list, scenarios.length ? scenarioTable(scenarios) : h("p.muted", "No scenario matches."));
  } catch (error) {
    mount(list, h("p.notice.notice-error", error.message));
  }
}

function scenarioTable(scenarios) {
  return h("table.data#scenarios-table",
    h("thead", h("tr", h("th", { scope: "col" }, h("span.visually-hidden", "select")), ["name", "version", "updated", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", scenarios.map((s) => h("tr", { dataset: { id: String(s.id) } },
      h("td.select-cell", h("input.scenario-select", { type: "checkbox", checked: selected.has(s.id), "aria-label": `select ${s.name}`,
        dataset: { id: String(s.id) },
        onchange: (e) => {
          if (e.target.checked) selected.add(s.id);
          else selected.delete(s.id);
          showFleetBar();
        } })),
      h("th", { scope: "row" }, h("a.scenario-link", { href: `/scenarios/${s.id}/` }, s.name), s.demo ? h("span.badge.demo", "demo") : null,
        s.description ? h("div.muted.small", shorten(s.description, 220)) : null),
      h("td", s.version ? `v${s.version}` : ""),
      h("td.when", formatTime(s.updated)),
      h("td.actions-cell", h("span.row-actions",
        h("a.button", { href: `/scenarios/${s.id}/cluster/` }, "Cluster"),
        h("button", { type: "button", onclick: () => run(s) }, "Run"),
        h("button", { type: "button", onclick: () => fork(s) }, "Fork"),
        s.owned ? h("button.danger", { type: "button", onclick: () => remove(s) }, "Delete") : null))))));
}

/** "Check upgrade to v1.3X" for the ticked scenarios: one comparison each, from its own release. */
const fleetTarget = h("select#fleet-target", { "aria-label": "upgrade to release" });
const fleetButton = h("button#fleet-check", { type: "button", onclick: checkUpgrade }, "Check upgrade");
releases().then((found) => {
  fleetTarget.append(...found.map((r) => h("option", { value: r.name }, `${r.name} (${r.version})`)));
  fleetTarget.value = found[0]?.name || ""; // the newest: what an upgrade usually goes to
  showFleetBar();
}, () => {});
fleetTarget.addEventListener("change", showFleetBar);

function showFleetBar() {
  fleetButton.textContent = `Check upgrade to ${fleetTarget.value || "…"} (${selected.size} selected)`;
  fleetButton.disabled = !selected.size || !fleetTarget.value;
  mount($("#fleet-bar"), h("p.actions", h("label.inline", "Upgrade to ", fleetTarget), fleetButton,
    selected.size ? h("button.linkish.small", { type: "button", onclick: () => {
      selected.clear();
      showFleetBar();
      refresh();
    } }, "clear the selection") : h("span.muted.small", "Tick scenarios to check what an upgrade changes in each.")));
}

async function checkUpgrade() {
  try {
    const fleet = await api.askFleet([...selected], fleetTarget.value);
    location.href = `/upgrades/fleet/${fleet.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
}

async function loadFleets() {
  const box = $("#fleet-list");
  try {
    const found = (await api.fleets()).slice(0, 10);
    mount(box, found.length ? found.map((f) => h("li",
      h("a", { href: `/upgrades/fleet/${f.id}/` }, `Check ${f.id}: to ${f.toRelease}`), ` · ${f.scenarios} scenario(s) · ${formatTime(f.created)}`))
      : h("li.muted", "None yet: tick scenarios and “Check upgrade”."));
  } catch (error) {
    mount(box, h("li.muted", error.message));
  }
}

/** At most `limit` characters, cut at a word boundary. */
function shorten(text, limit) {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), limit / 2))}…`;
}

async function run(s) {
  try {
    const started = await api.startRun(s.id);
    location.href = `/runs/${started.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
}

async function fork(s) {
  try {
    const copy = await api.forkScenario(s.id);
    location.href = `/scenarios/${copy.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
}

async function remove(s) {
  if (!confirm(`Delete “${s.name}” and all its versions and runs?`)) return;
  try {
    await api.deleteScenario(s.id);
    notify(`Deleted “${s.name}”.`);
    refresh();
  } catch (error) {
    notify(error.message, "error");
  }
}

async function loadDemos() {
  const box = $("#demo-list");
  try {
    const demos = await api.demos();
    mount(box, demos.map((d) => h("li",
      h("button.demo-create", { type: "button", dataset: { slug: d.slug }, onclick: () => fromDemo(d) }, d.name),
      h("span.muted.small.demo-description", d.description))));
  } catch (error) {
    mount(box, h("li.muted", error.message));
  }
}

async function fromDemo(demo) {
  try {
    const created = await api.createFromDemo(demo.slug);
    location.href = `/scenarios/${created.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
}

async function loadRuns() {
  const box = $("#run-list");
  try {
    const runs = (await api.runs()).slice(0, 10);
    mount(box, runs.length ? runs.map((r) => h("li",
      h("a", { href: `/runs/${r.id}/` }, `Run ${r.id}`), ` · scenario ${r.scenario} v${r.version} · ${r.status} · ${r.progress.cycle}/${r.progress.cycles} cycles`))
      : h("li.muted", "No runs yet."));
  } catch (error) {
    mount(box, h("li.muted", error.message));
  }
}

$("#new-scenario").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("#new-name").value.trim() || "Untitled scenario";
  try {
    // A small valid cluster with comments (two nodes, one pending pod): something to run at once.
    const created = await api.createScenario(name, pageData().blankTemplate || "");
    location.href = `/scenarios/${created.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
});

const importInput = $("#import-file");
const dropZone = $("#import-drop");

/** The chosen files by name and size (an archive counts as one file: the server unpacks it). */
function showChosen() {
  const files = [...importInput.files];
  mount($("#import-chosen"), files.map((file) => h("li", `${file.name} · ${formatBytes(file.size)}`)));
}

importInput.addEventListener("change", showChosen);
for (const type of ["dragenter", "dragover"]) {
  dropZone.addEventListener(type, (event) => {
    event.preventDefault();
    dropZone.classList.add("dragging");
  });
}
dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dragging"));
dropZone.addEventListener("drop", (event) => {
  event.preventDefault();
  dropZone.classList.remove("dragging");
  if (!event.dataTransfer?.files?.length) return;
  importInput.files = event.dataTransfer.files; // the dropped files become the form's files
  showChosen();
});

/** "nodes/n1.json, line 3: Node n1 spec.taints: message": where, what, then the message. */
function describe(error) {
  const at = [error.file, error.line ? `line ${error.line}` : ""].filter(Boolean).join(", ");
  const what = [error.object, error.path].filter(Boolean).join(" ");
  return `${at ? `${at}: ` : ""}${what ? `${what}: ` : ""}${error.message}`;
}

/** Problems in the uploaded files, each naming its file (an archive's member) and line. */
function showImportErrors(error) {
  // A size refusal's message is the notice itself (the size, the limit, the setting that raises it): not listed again.
  const found = (Array.isArray(error.details?.errors) ? error.details.errors : []).filter((e) => e.message !== error.message);
  mount($("#import-errors"), found.slice(0, 200).map((e) => h("li", describe(e))),
    found.length > 200 ? h("li.muted", `… and ${found.length - 200} more`) : null);
}

$("#import-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  mount($("#import-errors"));
  const form = new FormData(event.target);
  const files = form.getAll("file").filter((file) => file.size);
  form.delete("file");
  for (const file of files) form.append("file", file, file.name);
  if (!files.length && !String(form.get("text") || "").trim()) {
    notify("Choose files or an archive (or paste text) to import.", "error");
    return;
  }
  try {
    const bigUploadBytes = Number(event.target.dataset.bigUploadBytes || Infinity);
    const created = await importWithProgress(form, $("#import-progress"), { bigUploadBytes });
    location.href = `/scenarios/${created.id}/`;
  } catch (error) {
    showImportErrors(error);
    notify(`Not imported: ${error.message}`, "error");
  }
});

search.addEventListener("input", debounce(refresh, 250));
refresh();
showFleetBar();
loadDemos();
loadRuns();
loadFleets();
