// Run page: /runs/<id>/?cycle=N&step=Filter

import { api } from "../api.js";
import { $, h, notify, pageData } from "../dom.js";
import { changeStepFromQuery, mountRun, shareControl } from "../run.js";
import { tryConfigControl } from "../try_config.js";

const runId = Number(pageData().runId);

function actions(controller) {
  const { run } = controller;
  return h("span.actions",
    h("a.button", { href: `/scenarios/${run.scenario}/` }, "Edit scenario"),
    h("a.button", { href: `/scenarios/${run.scenario}/cluster/?version=${run.version}&run=${run.id}` }, "Cluster view"),
    h("a.button", { href: api.exportUrl(run.scenario, run.version), download: "" }, "Export YAML"),
    h("a.button#trace-link", { href: api.traceUrl(run.id), download: `trace-run-${run.id}.json` }, "Download trace JSON"),
    compareControl(run),
    tryConfigControl(run),
    shareControl(controller));
}

/** "Compare with": another finished run of this scenario (another version or configuration). */
function compareControl(run) {
  const picker = h("select#compare-with", { "aria-label": "compare with run", onchange: (e) => {
    if (e.target.value) location.href = `/compare/?a=${run.id}&b=${e.target.value}`;
  } }, new Option("Compare with…", ""));
  api.scenarioRuns(run.scenario).then((runs) => {
    for (const other of runs) {
      if (other.id !== run.id && other.status === "succeeded") picker.append(new Option(`run ${other.id} (v${other.version})`, String(other.id)));
    }
  }, () => {});
  return picker;
}

async function start() {
  try {
    const controller = await mountRun($("#run-root"), { runId, actions, changeStep: changeStepFromQuery(location.search) });
    // The title needs only the name: the listing carries it without the (possibly megabytes of) text.
    const scenario = (await api.scenarios().catch(() => [])).find((s) => s.id === controller.run.scenario);
    const title = scenario ? `${scenario.name} · v${controller.run.version} · run ${runId}` : `Run ${runId}`;
    $("#run-title").textContent = title;
    document.title = `${title} · SchedLab`;
  } catch (error) {
    notify(error.message, "error");
  }
}

start();
