// Cluster page: /scenarios/<id>/cluster/?version=N&run=R (a run's placements are overlaid).

import { api } from "../api.js";
import { $, h, mount, notify, pageData } from "../dom.js";
import { mountCapacity, nodeCapacityActions } from "../capacity.js";
import { mountClusterView } from "../clusterview.js";
import { releaseLine } from "../releases.js";

const scenarioId = Number(pageData().scenarioId);
const params = new URLSearchParams(location.search);

async function start() {
  try {
    const scenario = await api.scenario(scenarioId);
    const number = Number(params.get("version")) || scenario.version;
    const text = number === scenario.version ? scenario.text : null; // fetched only if needed
    $("#scenario-title").textContent = `${scenario.name} · v${number}`;
    $("#editor-link").href = `/scenarios/${scenarioId}/`;
    const runs = await api.scenarioRuns(scenarioId).catch(() => []);
    const runSelect = $("#run-select");
    mount(runSelect, h("option", { value: "" }, "scenario as written"),
      runs.filter((r) => r.version === number && r.status === "succeeded").map((r) => h("option", { value: String(r.id), selected: String(r.id) === params.get("run") }, `after run ${r.id}`)));
    runSelect.addEventListener("change", () => {
      const next = new URLSearchParams({ version: String(number) });
      if (runSelect.value) next.set("run", runSelect.value);
      location.search = next.toString();
    });
    const runId = Number(params.get("run")) || null;
    let runStep = runId && params.get("step") !== null && params.get("step") !== "" ? Number(params.get("step")) : null;
    // The release drawn: the run's (as it was replayed) with a run, else the version's as the dump says.
    const shownRun = runId ? runs.find((r) => r.id === runId) : null;
    const release = shownRun ? shownRun.release : number === scenario.version ? scenario.release : null;
    const line = releaseLine(release, { id: "cluster-release", lead: shownRun ? `Run ${runId} replayed as` : "Replayed as" });
    if (line) $("#capacity-root").before(line);
    if (runId) runStep = await stepChoice(runId, number, runStep);
    const panel = mountCapacity($("#capacity-root"), { scenarioId, version: number }); // its own errors stay in its panel
    const nodeActions = runStep === null ? nodeCapacityActions(panel) : null; // questions are about the version, not a step
    await mountClusterView($("#cluster-root"), { scenarioId, version: number, text, runId, runStep, nodeActions });
  } catch (error) {
    notify(error.message, "error");
  }
}

/**
 * A run with steps: the cluster at the end of any step (the server computes it; ?step=K), the last
 * one's — the end of the run — unless another is asked for: the run's placements drawn over the
 * scenario as written would leave out what its steps made (a pod placed on a node a step added would
 * sit in the queue lane). Resolves to the step to draw (null for a run without steps).
 */
async function stepChoice(runId, version, current) {
  const story = await api.timelineSummary(runId).catch(() => null); // its steps, never its entries
  const ended = (story?.steps || []).filter((s) => s.summary);
  if (!ended.length) return current;
  const last = ended[ended.length - 1].step;
  const shown = current ?? last;
  const chooser = h("select#step-select", { "aria-label": "step", onchange: (e) => {
    location.search = new URLSearchParams({ version: String(version), run: String(runId), step: e.target.value }).toString();
  } }, ended.map((s) => h("option", { value: String(s.step), selected: s.step === shown },
    `at the end of step ${s.step} — ${s.name}${s.step === last ? " (the end of the run)" : ""}`)));
  $("#run-select").after(" ", chooser);
  return shown;
}

start();
