// Glue for the cluster view: the version's Nodes and Pods (from /api/scenarios/{id}/objects, as the
// engine loads them; parsed from the YAML only against a server without that endpoint; a big one a page
// at a time from /api/scenarios/{id}/cluster), a run's placements overlaid, the cluster at the end of a
// step (from /api/runs/{id}/steps/{k}/cluster, paged the same way), the chosen keys kept in local state;
// "Why here?" on a running pod asks the engine (GET /api/scenarios/{id}/explain-pod) to re-run its cycle
// without it.

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
  if (runStep !== null) return mountStep(container, { runId, runStep });
  const asked = { version, run: runId ?? undefined, limit: PAGE_NODES };
  // An older server (404) or a version the engine cannot load: the whole objects, as before.
  const first = await api.clusterPage(scenarioId, asked).catch(() => null);
  if (first && (first.nodeCount > WHOLE_NODES || first.pendingCount > WHOLE_PENDING)) {
    const why = h("section.why-here#why-here", { "aria-live": "polite", hidden: true });
    const ask = (state, offset) => api.clusterPage(scenarioId, {
      version, run: runId ?? undefined, groupKey: state.groupKey, domain: state.domain ?? undefined,
      search: state.search || undefined, offset, limit: PAGE_NODES,
    });
    const shape = (page) => ({ nodes: page.nodes.map(nodeFromApi), pods: page.pods.map(podFromApi) });
    return mountPaged(container, {
      first, ask, shape, runId, nodeActions, above: [why], step: "",
      onPod: (pod) => whyHere(why, { scenarioId, version }, pod),
    });
  }
  return mountWhole(container, { scenarioId, version, text, runId, nodeActions });
}

/**
 * A big cluster: the domains with their counts, a page of nodes (search, a domain, "more" for the next page)
 * and the first pending pods, each answer the server's; a change of key, domain or search asks again.
 * ask(state, offset) -> the page; shape(page) -> {nodes, pods} as the cluster layout reads them.
 */
function mountPaged(container, { first, ask, shape, runId = null, nodeActions = null, above = [], step = "", onPod = null }) {
  container.dataset.step = step;
  container.dataset.source = "api";
  container.dataset.paged = "true";
  const body = h("div.cluster-body");
  mount(container, above, body);
  const state = { groupKey: first.groupKey, colorKey: "", domain: null, search: "" };
  let shown = { page: first, nodes: [], pods: [], placements: placementsOf(runId) };
  const add = (page) => {
    const { nodes, pods } = shape(page);
    shown.page = page;
    shown.nodes.push(...nodes);
    const known = new Set(shown.pods.map((p) => `${p.namespace}/${p.name}`));
    shown.pods.push(...pods.filter((p) => !known.has(`${p.namespace}/${p.name}`)));
    for (const [pod, node] of Object.entries(page.placements || {})) shown.placements.set(pod, node);
    for (const [pod, node] of Object.entries(page.nominated || {})) shown.placements.nominated.set(pod, node);
    for (const [pod, cycle] of Object.entries(page.placedIn || {})) shown.placements.links.set(pod, withToken(`/runs/${runId}/?cycle=${cycle}`));
  };
  const draw = () => {
    container.dataset.loading = "";
    renderClusterPage(body, {
      ...shown, state, onPod, nodeActions,
      onState: async (patch) => {
        Object.assign(state, patch);
        container.dataset.loading = "true";
        const page = await ask(state, 0);
        shown = { page, nodes: [], pods: [], placements: placementsOf(runId) };
        add(page);
        if (patch.groupKey !== undefined) state.groupKey = page.groupKey;
        draw();
      },
      onMore: async () => {
        container.dataset.loading = "true";
        add(await ask(state, shown.page.offset + shown.page.nodes.length));
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

async function mountWhole(container, { scenarioId, version, text = null, runId = null, nodeActions = null }) {
  const [objects, placements] = await Promise.all([
    loadObjects(scenarioId, version, { text }),
    runId ? runPlacements(scenarioId, version, runId) : new Map(),
  ]);
  container.dataset.step = "";
  container.dataset.source = objects.source;
  if (objects.errors.length && !objects.nodes.length) {
    mount(container, h("p.notice.notice-error", `The scenario does not parse: ${objects.errors[0].message} (line ${objects.errors[0].line}).`));
    return;
  }
  const banner = objects.engineErrors?.length
    ? h("p.notice.notice-info.engine-errors", `The scheduler cannot load this version (${objects.engineErrors.length} problem(s), listed in the editor); showing the YAML as written.`)
    : null;
  const why = h("section.why-here#why-here", { "aria-live": "polite", hidden: true });
  const onPod = objects.engineErrors?.length ? null : (pod) => whyHere(why, { scenarioId, version }, pod);
  drawWhole(container, { objects, placements, above: [banner, why], onPod, nodeActions });
}

function drawWhole(container, { objects, placements, above = [], onPod = null, nodeActions = null }) {
  const state = { groupKey: "", colorKey: "", opened: null };
  const body = h("div.cluster-body");
  mount(container, above, body);
  const draw = () => renderCluster(body, {
    nodes: objects.nodes, pods: objects.pods, volumes: objects.volumes || [], devices: objects.devices || [], placements, state, onPod, nodeActions,
    onState: (patch) => { Object.assign(state, patch); draw(); },
  });
  draw();
}

/**
 * The cluster at the end of a step, as the server computed it and pages it (GET /api/runs/{id}/steps/{k}/cluster):
 * its nodes (with the version's allocatable and taints for those it had), the pods on them marked new / placed /
 * moved / pending, and the pods that left during the step drawn crossed out where they were. A small one is drawn
 * whole (one page holds it), a big one a page at a time as the version's cluster view is.
 */
async function mountStep(container, { runId, runStep }) {
  const ask = (asked) => api.stepCluster(runId, runStep, asked);
  const first = await ask({ limit: PAGE_NODES });
  const banner = stepBanner(first);
  const small = first.nodeCount <= WHOLE_NODES && first.pendingCount <= WHOLE_PENDING && first.goneCount <= WHOLE_PENDING;
  if (small) {
    const whole = first.matched > first.nodes.length ? await ask({ limit: WHOLE_NODES }) : first;
    container.dataset.source = "api";
    drawWhole(container, { objects: stepObjects(whole), placements: new Map(), above: [banner] });
    container.dataset.step = String(whole.step);
    return;
  }
  mountPaged(container, {
    first, shape: stepObjects, step: String(first.step), above: [banner],
    ask: (state, offset) => ask({ groupKey: state.groupKey, domain: state.domain ?? undefined, search: state.search || undefined, offset, limit: PAGE_NODES }),
  });
}

/** A page of a step's cluster as the cluster layout reads it: nodes, then its pods and the pods that left. */
function stepObjects(page) {
  const nodes = page.nodes.map((n) => ({
    name: n.name, labels: n.labels, unschedulable: n.unschedulable, added: n.added, taints: n.taints, allocatable: n.allocatableText,
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
  const pods = page.pods.map((p) => ({ ...podOf(p.pod, p.labels), nodeName: p.node || "", mark: p.mark, previousNode: p.previousNode, claims: claimsOf(p) }));
  const gone = page.gone.map((g) => ({ ...podOf(g.pod, g.labels), nodeName: g.node || "", gone: g.how }));
  return { source: "api", errors: [], nodes, pods: [...pods, ...gone], volumes: [], devices: [], engineErrors: [] };
}

function stepBanner(page) {
  const marks = page.marks;
  return h("p.notice.notice-info.step-banner", `At the end of step ${page.step} — ${page.name}: `,
    "+ new, ★ placed (pending before), → moved, ✕ left during the step (evicted or deleted), ✗ pending.",
    h("span.step-marks#step-marks", ` ${marks.new} new · ${marks.placed} placed · ${marks.moved} moved · ${marks.pending} pending · ${marks.gone} left.`),
    page.deletedNodes.length ? ` Nodes lost: ${page.deletedNodes.join(", ")}.` : "");
}

/** Where a finished run left the pods of a small cluster (the whole view): a run to the end says it in one page of
 * GET /api/scenarios/{id}/cluster?run= (the whole view is only for clusters one page holds), a single pass in its
 * cycle index. */
async function runPlacements(scenarioId, version, runId) {
  const cycleLink = (cycle) => withToken(`/runs/${runId}/?cycle=${cycle}`); // a shared run: its token goes along
  const summary = await api.timelineSummary(runId).catch(() => null);
  if (summary?.mode === "timeline" && summary.finished) {
    const page = await api.clusterPage(scenarioId, { version, run: runId, limit: WHOLE_NODES }).catch(() => null);
    const placements = new Map(Object.entries(page?.placements || {}));
    placements.nominated = new Map(Object.entries(page?.nominated || {}));
    placements.links = new Map(Object.entries(page?.placedIn || {}).map(([pod, cycle]) => [pod, cycleLink(cycle)]));
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
