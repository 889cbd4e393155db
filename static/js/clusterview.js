// Glue for the cluster view: parse the version's text, overlay a run's placements, keep the
// chosen keys in the URL-independent local state.

import { api } from "./api.js";
import { renderCluster } from "./cluster.js";
import { h, mount } from "./dom.js";
import { readScenario } from "./yamldocs.js";

export async function mountClusterView(container, text, { runId = null } = {}) {
  const parsed = readScenario(text);
  if (parsed.errors.length && !parsed.nodes.length) {
    mount(container, h("p.notice.notice-error", `The scenario does not parse: ${parsed.errors[0].message} (line ${parsed.errors[0].line}).`));
    return;
  }
  const placements = new Map();
  if (runId) {
    const trace = await api.trace(runId);
    for (const cycle of trace.cycles || []) placements.set(cycle.pod, cycle.nodeName);
  }
  const state = { groupKey: "", colorKey: "", opened: null };
  const draw = () => renderCluster(container, {
    nodes: parsed.nodes, pods: parsed.pods, placements, state,
    onState: (patch) => { Object.assign(state, patch); draw(); },
  });
  draw();
}
