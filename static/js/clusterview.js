// Glue for the cluster view: the version's Nodes and Pods (from /api/scenarios/{id}/objects, as the
// engine loads them; parsed from the YAML only against a server without that endpoint), a run's
// placements overlaid, the chosen keys kept in local state; "Why here?" on a running pod asks the
// engine (GET /api/scenarios/{id}/explain-pod) to re-run its cycle without it.

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
  const why = h("section.why-here#why-here", { "aria-live": "polite", hidden: true });
  mount(container, banner, why, body);
  const onPod = objects.engineErrors?.length ? null : (pod) => whyHere(why, { scenarioId, version }, pod);
  const draw = () => renderCluster(body, {
    nodes: objects.nodes, pods: objects.pods, volumes: objects.volumes || [], placements, state, onPod,
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

/** "Why here?": the pod's cycle re-run against the cluster without it (its node included). */
async function whyHere(box, { scenarioId, version }, pod) {
  box.hidden = false;
  mount(box, h("p.muted", `Asking the scheduler why ${pod.id} is on ${pod.nodeName}…`));
  try {
    mount(box, whyHereView(await api.explainPod(scenarioId, version, pod.id), () => { box.hidden = true; }));
  } catch (error) {
    mount(box, h("p.notice.notice-error", `Why here? ${error.message}`));
  }
  box.scrollIntoView({ block: "nearest" });
}

const SHOWN_NODES = 30;

function whyHereView(answer, close) {
  const others = answer.feasible.filter((name) => name !== answer.node);
  const otherCount = answer.feasibleCount - (answer.ownNodeFits ? 1 : 0);
  const comparedWith = answer.comparedWith ? ` against ${answer.comparedWith}` : "";
  return [
    h("h3", `Why is ${answer.pod} on ${answer.node}?`,
      h("button.linkish.small.why-close", { type: "button", "aria-label": "close", onclick: close }, " ×")),
    h("p.why-verdict", { dataset: { outcome: answer.outcome } }, answer.summary),
    h("p.why-fits", otherCount > 0
      ? `It also fits on ${otherCount} other node(s): ${others.slice(0, SHOWN_NODES).join(", ")}${otherCount > Math.min(others.length, SHOWN_NODES) ? ", …" : ""}.`
      : "It fits on no other node now."),
    answer.top.length ? h("table.data.why-ranking",
      h("caption", `Total scores, best first (${answer.scored} node(s) scored)`),
      h("thead", h("tr", h("th", { scope: "col" }, "node"), h("th", { scope: "col" }, "total"))),
      h("tbody", answer.top.map((row) => h(row.node === answer.node ? "tr.current" : "tr",
        h("td", row.node === answer.node ? `${row.node} (where it runs)` : row.node), h("td", String(row.total)))))) : null,
    answer.plugins.length ? h("table.data.why-plugins",
      h("caption", `${answer.node}${comparedWith}, plugin by plugin (weighted)`),
      h("thead", h("tr", ["plugin", answer.node, answer.comparedWith || "", "difference"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", answer.plugins.map((p) => h("tr", h("td", p.plugin), h("td", String(p.own)), h("td", String(p.other)),
        h("td", p.difference > 0 ? `+${p.difference}` : String(p.difference)))))) : null,
    h("ul.plain.caveat", answer.caveats.map((caveat) => h("li", caveat))),
  ];
}
