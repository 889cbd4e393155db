// Cluster page: /scenarios/<id>/cluster/?version=N&run=R (a run's placements are overlaid).

import { api } from "../api.js";
import { $, h, mount, notify, pageData } from "../dom.js";
import { mountClusterView } from "../clusterview.js";

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
    await mountClusterView($("#cluster-root"), { scenarioId, version: number, text, runId: Number(params.get("run")) || null });
  } catch (error) {
    notify(error.message, "error");
  }
}

start();
