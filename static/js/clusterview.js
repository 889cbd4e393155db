// Glue for the cluster view: the version's Nodes and Pods (from /api/scenarios/{id}/objects, as the
// engine loads them; parsed from the YAML only against a server without that endpoint), a run's
// placements overlaid, the chosen keys kept in local state; "Why here?" on a running pod asks the
// engine (GET /api/scenarios/{id}/explain-pod) to re-run its cycle without it.

import { releaseLine } from "./releases.js";
import { api, withToken } from "./api.js";
import { renderCluster, renderClusterPage } from "./cluster.js";
import { h, mount } from "./dom.js";
import { loadObjects, nodeFromApi, podFromApi } from "./objects.js";

// A cluster with more nodes (or pending pods) than these is drawn a page at a time: the server groups,
// searches and pages it (GET /api/scenarios/{id}/cluster); the whole of it never comes to the browser.
const WHOLE_NODES = 300;
const WHOLE_PENDING = 200;
const PAGE_NODES = 50;

export async function mountClusterView(container, { scenarioId, version, text = null, runId = null, runStep = null, nodeActions = null }) {
  if (runStep === null) {
    const asked = { version, run: runId ?? undefined, limit: PAGE_NODES };
    // An older server (404) or a version the engine cannot load: the whole objects, as before.
    const first = await api.clusterPage(scenarioId, asked).catch(() => null);
    if (first && (first.nodeCount > WHOLE_NODES || first.pendingCount > WHOLE_PENDING)) {
      return mountPaged(container, { scenarioId, version, runId, first, nodeActions });
    }
  }
  return mountWhole(container, { scenarioId, version, text, runId, runStep, nodeActions });
}

/**
 * A big cluster: the domains with their counts, a page of nodes (search, a domain, "more" for the next page)
 * and the first pending pods, each answer the server's; a change of key, domain or search asks again.
 */
function mountPaged(container, { scenarioId, version, runId, first, nodeActions }) {
  container.dataset.step = "";
  container.dataset.source = "api";
  container.dataset.paged = "true";
  const why = h("section.why-here#why-here", { "aria-live": "polite", hidden: true });
  const body = h("div.cluster-body");
  mount(container, why, body);
  const onPod = (pod) => whyHere(why, { scenarioId, version }, pod);
  const state = { groupKey: first.groupKey, colorKey: "", domain: null, search: "" };
  let shown = { page: first, nodes: [], pods: [], placements: placementsOf(runId) };
  const add = (page) => {
    shown.page = page;
    shown.nodes.push(...page.nodes.map(nodeFromApi));
    const known = new Set(shown.pods.map((p) => `${p.namespace}/${p.name}`));
    shown.pods.push(...page.pods.map(podFromApi).filter((p) => !known.has(`${p.namespace}/${p.name}`)));
    for (const [pod, node] of Object.entries(page.placements || {})) shown.placements.set(pod, node);
    for (const [pod, node] of Object.entries(page.nominated || {})) shown.placements.nominated.set(pod, node);
    for (const [pod, cycle] of Object.entries(page.placedIn || {})) shown.placements.links.set(pod, withToken(`/runs/${runId}/?cycle=${cycle}`));
  };
  const ask = (offset) => api.clusterPage(scenarioId, {
    version, run: runId ?? undefined, groupKey: state.groupKey, domain: state.domain ?? undefined,
    search: state.search || undefined, offset, limit: PAGE_NODES,
  });
  const draw = () => {
    container.dataset.loading = "";
    renderClusterPage(body, {
      ...shown, state, onPod, nodeActions,
      onState: async (patch) => {
        Object.assign(state, patch);
        container.dataset.loading = "true";
        const page = await ask(0);
        shown = { page, nodes: [], pods: [], placements: placementsOf(runId) };
        add(page);
        if (patch.groupKey !== undefined) state.groupKey = page.groupKey;
        draw();
      },
      onMore: async () => {
        container.dataset.loading = "true";
        add(await ask(shown.page.offset + shown.page.nodes.length));
        draw();
      },
    });
  };
  add(first);
  draw();
}

function placementsOf(runId) {
  const placements = new Map();
  placements.nominated = new Map();
  placements.links = new Map();
  placements.run = runId;
  return placements;
}

async function mountWhole(container, { scenarioId, version, text = null, runId = null, runStep = null, nodeActions = null }) {
  const [loaded, placements, atStep] = await Promise.all([
    loadObjects(scenarioId, version, { text }),
    runId && runStep === null ? runPlacements(runId) : new Map(),
    runId && runStep !== null ? api.stepCluster(runId, runStep) : null,
  ]);
  const objects = atStep ? stepObjects(loaded, atStep) : loaded;
  container.dataset.step = atStep ? String(atStep.step) : "";
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
  mount(container, banner, atStep ? stepBanner(atStep) : null, why, body);
  const onPod = objects.engineErrors?.length || atStep ? null : (pod) => whyHere(why, { scenarioId, version }, pod);
  const draw = () => renderCluster(body, {
    nodes: objects.nodes, pods: objects.pods, volumes: objects.volumes || [], devices: objects.devices || [], placements, state, onPod, nodeActions,
    onState: (patch) => { Object.assign(state, patch); draw(); },
  });
  draw();
}

/**
 * The cluster at the end of a step, as the server computed it (GET /api/runs/{id}/steps/{k}/cluster):
 * its nodes (with the scenario's allocatable and taints for those it had), every pod where it is, marked
 * new / placed / moved / pending, and the pods that left during the step drawn crossed out where they were.
 */
function stepObjects(loaded, atStep) {
  const written = new Map(loaded.nodes.map((n) => [n.name, n]));
  const nodes = atStep.nodes.map((n) => ({
    taints: [], allocatable: {}, ...(written.get(n.name) || {}), name: n.name, labels: n.labels, unschedulable: n.unschedulable, added: n.added,
  }));
  const podOf = (key, labels) => {
    const at = key.indexOf("/");
    return { namespace: key.slice(0, at), name: key.slice(at + 1), labels, priority: "" };
  };
  // A pod's claims as written or as its controller created it (spec.resourceClaims: names and sources only; the
  // step answer has no allocation).
  const claimsOf = (p) => (p.claims || []).map((c) => ({
    podClaim: c.name, claim: c.resourceClaimName ?? null, requests: c.resourceClaimTemplateName ? [`from template ${c.resourceClaimTemplateName}`] : [],
    devices: [], reservedFor: [] }));
  const pods = atStep.pods.map((p) => ({ ...podOf(p.pod, p.labels), nodeName: p.node || "", mark: p.mark, previousNode: p.previousNode, claims: claimsOf(p) }));
  const gone = atStep.gone.map((g) => ({ ...podOf(g.pod, g.labels), nodeName: g.node || "", gone: g.how }));
  return { ...loaded, nodes, pods: [...pods, ...gone], volumes: [], engineErrors: [] };
}

function stepBanner(atStep) {
  return h("p.notice.notice-info.step-banner", `At the end of step ${atStep.step} — ${atStep.name}: `,
    "+ new, ★ placed (pending before), → moved, ✕ left during the step (evicted or deleted), ✗ pending.",
    atStep.deletedNodes.length ? ` Nodes lost: ${atStep.deletedNodes.join(", ")}.` : "");
}

async function runPlacements(runId) {
  // A run to the end says where every pod ended: placed, still pending (maybe nominated), or
  // deleted as a preemption victim.
  const story = await api.timeline(runId).catch(() => null);
  // Each placed pod links to the run's cycle that bound it (its last attempt with a node).
  const cycleLink = (cycle) => withToken(`/runs/${runId}/?cycle=${cycle}`); // a shared run: its token goes along
  if (story?.mode === "timeline" && story.finished) {
    const placements = new Map(Object.entries(story.final));
    placements.nominated = new Map(Object.entries(story.nominated));
    placements.links = new Map((story.attempts || []).filter((a) => a.nodeName).map((a) => [a.pod, cycleLink(a.cycle)]));
    return placements;
  }
  const placements = new Map();
  placements.links = new Map();
  // The cycle index (pod, nodeName per cycle) is small; the trace summary is the fallback.
  const cycles = await api.cycles(runId).catch((error) => (error.status === 404 ? null : Promise.reject(error)));
  const list = cycles || (await api.trace(runId)).cycles || [];
  list.forEach((cycle, i) => {
    placements.set(cycle.pod, cycle.nodeName ?? null);
    if (cycle.nodeName) placements.links.set(cycle.pod, cycleLink(cycle.cycle ?? i));
  });
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
    releaseLine(answer.release, { lead: "Re-run as" }),
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
