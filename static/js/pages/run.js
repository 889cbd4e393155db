// Run page: /runs/<id>/?cycle=N&step=Filter[&token=] (a token: a run an upgrade comparison's share
// link opened, read-only)

import { api, useShareToken } from "../api.js";
import { $, h, notify, pageData } from "../dom.js";
import { changeStepFromQuery, mountRun, shareControl } from "../run.js";
import { tryConfigControl } from "../try_config.js";
import { upgradeForm } from "../upgradeform.js";

const runId = Number(pageData().runId);
const token = new URLSearchParams(location.search).get("token") || "";
useShareToken(token);

/** Through a share link: what a reader may do (no edit, run, compare or share). */
function readOnlyActions(controller) {
  const { run } = controller;
  return h("span.actions",
    h("a.button", { href: api.exportUrl(run.scenario, run.version), download: "" }, "Export YAML"),
    h("a.button#trace-link", { href: api.traceUrl(run.id), download: `trace-run-${run.id}.json` }, "Download trace JSON"));
}

function actions(controller) {
  const { run } = controller;
  return h("span.actions",
    runControls(run),
    h("a.button", { href: `/scenarios/${run.scenario}/` }, "Edit scenario"),
    h("a.button", { href: `/scenarios/${run.scenario}/cluster/?version=${run.version}&run=${run.id}` }, "Cluster view"),
    h("a.button", { href: api.exportUrl(run.scenario, run.version), download: "" }, "Export YAML"),
    h("a.button#trace-link", { href: api.traceUrl(run.id), download: `trace-run-${run.id}.json` }, "Download trace JSON"),
    compareControl(run),
    tryConfigControl(run),
    upgradeControl(run),
    shareControl(controller));
}

/**
 * Cancel while the run is queued or under way; Run again once it failed or was cancelled (the same
 * version, mode, release and gates). Which one shows follows #run-root's data-status (app.css).
 */
function runControls(run) {
  const cancel = h("button.cancel-run#cancel-run", { type: "button", onclick: async () => {
    cancel.disabled = true;
    try {
      await api.cancelRun(run.id);
      notify("Cancelled: the worker stops at its next write.");
    } catch (error) {
      cancel.disabled = false;
      notify(`Not cancelled: ${error.message}`, "error");
    }
  } }, "Cancel");
  const gates = run.featureGates ? Object.entries(run.featureGates).map(([gate, on]) => `${gate}=${on}`).join(",") : "";
  const again = h("button.run-again#run-again", { type: "button", onclick: async () => {
    again.disabled = true;
    try {
      const started = await api.startRun(run.scenario, { version: run.version, mode: run.mode, release: run.releaseAsked, featureGates: gates });
      location.href = `/runs/${started.id}/`;
    } catch (error) {
      again.disabled = false;
      notify(`Not started: ${error.message}`, "error");
    }
  } }, "Run again");
  return [cancel, again];
}

/** "What changes if we upgrade?" from this run: from its release (and gates) to the next newer one. */
function upgradeControl(run) {
  const box = h("div");
  const dialog = h("dialog#upgrade-dialog", { "aria-label": "what changes if we upgrade" },
    h("h2", "What changes if we upgrade?"),
    h("p.muted", `Run ${run.id}'s version ${run.version}, from the release it was replayed as.`),
    box,
    h("p.actions", h("button", { type: "button", onclick: () => dialog.close() }, "Close")));
  document.body.append(dialog);
  const form = upgradeForm(box, {
    ask: async ({ fromRelease, toRelease }) => {
      const started = await api.askUpgrade(run.scenario, { run: run.id, fromRelease, toRelease });
      location.href = `/upgrades/${started.id}/`;
    },
  });
  form.setFrom(run.release);
  return h("button#run-upgrade", { type: "button", onclick: () => dialog.showModal() }, "What changes if we upgrade?");
}

/**
 * "Compare with": any finished run you may read — this scenario's (other versions, configurations),
 * your runs of other scenarios (a what-if fork, another cluster) — with a search box over the list.
 * The list is asked for when the control is first used (focus or pointer), not with the page: the
 * server answers one request at a time, and the step's own requests go first.
 */
function compareControl(run) {
  const picker = h("select#compare-with", { "aria-label": "compare with run", onchange: (e) => {
    if (e.target.value) location.href = `/compare/?a=${run.id}&b=${e.target.value}`;
  } }, new Option("Compare with…", ""));
  const search = h("input#compare-search", { type: "search", placeholder: "search runs", "aria-label": "search runs to compare with",
    oninput: () => filterOptions(picker, search.value) });
  let asked = false;
  const load = () => {
    if (asked) return;
    asked = true;
    fillCompareList(run, picker, search);
  };
  for (const control of [picker, search]) {
    control.addEventListener("focus", load);
    control.addEventListener("pointerdown", load);
  }
  return h("span.compare-with", search, picker);
}

function fillCompareList(run, picker, search) {
  picker.options[0].text = "Compare with… (loading)";
  const lists = [api.scenarioRuns(run.scenario), api.runs(), api.scenarios()].map((asked) => asked.catch(() => []));
  Promise.all(lists).then(([own, mine, scenarios]) => {
    const names = new Map(scenarios.map((s) => [s.id, s.name]));
    const seen = new Set([run.id]);
    const others = [...own, ...mine].filter((other) => other.status === "succeeded" && !seen.has(other.id) && seen.add(other.id));
    const label = (other) => `run ${other.id} · ${other.scenario === run.scenario ? "this scenario" : names.get(other.scenario) ?? `scenario ${other.scenario}`} v${other.version} (${other.mode})`;
    picker.append(...others.map((other) => new Option(label(other), String(other.id))));
    picker.options[0].text = others.length ? "Compare with…" : "Compare with… (no other finished run)";
    filterOptions(picker, search.value);
  });
}

/** Hides the runs whose label does not contain the search text (case-insensitive). */
function filterOptions(picker, text) {
  const wanted = text.trim().toLowerCase();
  let first = null;
  for (const option of [...picker.options].slice(1)) {
    option.hidden = Boolean(wanted) && !option.text.toLowerCase().includes(wanted);
    if (!option.hidden && first === null) first = option;
  }
  if (picker.options.length > 1) picker.options[0].text = wanted && !first ? "Compare with… (no run matches)" : "Compare with…";
}

async function start() {
  try {
    const controller = await mountRun($("#run-root"), token
      ? { runId, token, readOnly: true, actions: readOnlyActions, changeStep: changeStepFromQuery(location.search) }
      : { runId, actions, changeStep: changeStepFromQuery(location.search) });
    // The title needs only the name: the listing carries it without the (possibly megabytes of) text.
    const scenario = token ? null : (await api.scenarios().catch(() => [])).find((s) => s.id === controller.run.scenario);
    const title = scenario ? `${scenario.name} · v${controller.run.version} · run ${runId}` : `Run ${runId}`;
    $("#run-title").textContent = title;
    document.title = `${title} · SchedLab`;
  } catch (error) {
    notify(error.message, "error");
  }
}

start();
