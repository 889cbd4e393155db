// Glue for the cluster view: the version's Nodes and Pods (from /api/scenarios/{id}/objects, as the
// engine loads them; parsed from the YAML only against a server without that endpoint), a run's
// placements overlaid, the chosen keys kept in local state.

import { api } from "./api.js";
import { renderCluster } from "./cluster.js";
import { h, mount } from "./dom.js";
import { loadObjects } from "./objects.js";

export async function mountClusterView(container, { scenarioId, version, text = null, runId = null }) {
  const [objects, placements] = await Promise.all([
    loadObjects(scenarioId, version, { text }),
    runId ? runPlacements(runId) : new Map(),
  ]);
  container.dataset.source = objects.source;
  if (objects.errors.length && !objects.nodes.length) {
    mount(container, h("p.notice.notice-error", `The scenario does not parse: ${objects.errors[0].message} (line ${objects.errors[0].line}).`));
    return;
  }
  const state = { groupKey: "", colorKey: "", opened: null };
  const banner = objects.engineErrors?.length
    ? h("p.notice.notice-info.engine-errors", `The scheduler cannot load this version (${objects.engineErrors.length} problem(s), listed in the editor); showing the YAML as written.`)
    : null;
  const body = h("div.cluster-body");
  mount(container, banner, body);
  const draw = () => renderCluster(body, {
    nodes: objects.nodes, pods: objects.pods, volumes: objects.volumes || [], devices: objects.devices || [], placements, state,
    onState: (patch) => { Object.assign(state, patch); draw(); },
  });
  draw();
}

async function runPlacements(runId) {
  // A run to the end says where every pod ended: placed, still pending (maybe nominated), or
  // deleted as a preemption victim.
  const story = await api.timeline(runId).catch(() => null);
  if (story?.mode === "timeline" && story.finished) {
    const placements = new Map(Object.entries(story.final));
    placements.nominated = new Map(Object.entries(story.nominated));
    return placements;
  }
  const placements = new Map();
  // The cycle index (pod, nodeName per cycle) is small; the trace summary is the fallback.
  const cycles = await api.cycles(runId).catch((error) => (error.status === 404 ? null : Promise.reject(error)));
  const list = cycles || (await api.trace(runId)).cycles || [];
  for (const cycle of list) placements.set(cycle.pod, cycle.nodeName ?? null);
  return placements;
}
