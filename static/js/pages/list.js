// Scenario list: search, create (blank or from a demo), import a file, fork, open, run.

import { api } from "../api.js";
import { importWithProgress } from "../importer.js";
import { $, debounce, formatTime, h, mount, notify, pageData } from "../dom.js";

const list = $("#scenario-list");
const search = $("#scenario-search");

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
    h("thead", h("tr", ["name", "version", "updated", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", scenarios.map((s) => h("tr", { dataset: { id: String(s.id) } },
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

$("#import-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  if (!form.get("file")?.size && !String(form.get("text") || "").trim()) {
    notify("Choose a file (or paste text) to import.", "error");
    return;
  }
  if (!form.get("file")?.size) form.delete("file");
  try {
    const created = await importWithProgress(form, $("#import-progress"));
    location.href = `/scenarios/${created.id}/`;
  } catch (error) {
    notify(error.message, "error");
  }
});

search.addEventListener("input", debounce(refresh, 250));
refresh();
loadDemos();
loadRuns();
