// Capacity questions in the cluster view (issue 26): "How many more fit?" on a workload, "How many
// more copies fit?" on a pod (issue 42: the engine's one pass, counted or placed, or trials when only
// they give the answer), "How many nodes like this?" and "Can this node go?" on a node, "Which nodes
// can go?" and the fragmentation chart for the cluster. The server runs every pass and trial (on its
// workers) and computes every number; this module asks, follows the progress over
// /ws/capacity/{id}/ and draws the answer. Every scenario string goes into text nodes (dom.js h())
// or through safe() for Plotly.

import { api } from "./api.js";
import { draw, safe } from "./charts/plot.js";
import { h, mount } from "./dom.js";
import { releaseLine } from "./releases.js";
import { checked } from "./schemacheck.js";

const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
const POLL_MS = 1000;
const LISTED = 20;

/**
 * mountCapacity(container, {scenarioId, version}) — the panel; resolves to {ask(question)} once its
 * targets are listed (null when this version cannot be asked), for the node cards' own buttons.
 */
export async function mountCapacity(container, { scenarioId, version }) {
  let targets;
  try {
    targets = await api.capacityTargets(scenarioId, version);
  } catch (error) {
    // A version with steps of its own (a step just added in the Changes panel): the newest one before it
    // that questions can be asked of, when there is one.
    const earlier = error.details?.withoutSteps;
    mount(container, h("p.muted#capacity-refused", `Capacity questions: ${error.message}`),
      earlier ? h("p#capacity-without-steps", h("a.button", { href: `/scenarios/${scenarioId}/cluster/?version=${earlier}` },
        `Ask them of version ${earlier}`), ` (the latest version without steps)`) : null);
    return null;
  }
  const answer = h("div.capacity-answer#capacity-answer", { "aria-live": "polite" });
  const ask = (question) => follow(answer, scenarioId, { version: targets.version, ...question });
  const nodeSelect = h("select#capacity-node", { "aria-label": "node" }, targets.nodes.map((n) => h("option", { value: n }, n)));
  const podInput = h("input#capacity-pod", { type: "text", list: "capacity-pods", "aria-label": "pod (namespace/name)",
    value: targets.pods[0] || "", size: 32 });
  const maxInput = h("input#capacity-max", { type: "number", min: 1, max: 100000, placeholder: "no limit", "aria-label": "at most this many copies" });
  const askCopies = () => ask({ kind: "fit", pod: podInput.value.trim(), ...(maxInput.value ? { max: Number(maxInput.value) } : {}) });
  mount(container,
    h("h2", "Capacity"),
    h("table.data.capacity-workloads",
      h("caption", "Workloads"),
      h("tbody", targets.workloads.length ? targets.workloads.map((w) => h("tr", { dataset: { workload: `${w.namespace}/${w.name}` } },
        h("td", `${w.kind} ${w.namespace}/${w.name}`), h("td", `${w.replicas} replica(s)`),
        h("td", h("button.small.capacity-fit", { type: "button", onclick: () => ask({ kind: "fit", workload: `${w.namespace}/${w.name}` }) },
          "How many more fit?"))))
        : h("tr", h("td.muted", "No Deployment, ReplicaSet, StatefulSet or Job in this version."))),
    ),
    // Workloads the controllers cannot use (a trimmed dump's Deployment without its pod template): left
    // out of every question, each said with why, never dropped silently.
    (targets.unusable || []).length ? h("div.notice.capacity-unusable",
      h("p", `Left out: ${targets.unusable.length} workload(s) the controllers cannot use (their pods stay as they are)`),
      h("ul", targets.unusable.map((w) => h("li", `${w.kind} ${w.namespace}/${w.name}: ${w.reason}`)))) : null,
    targets.pods.length ? h("p.capacity-pod-actions", h("label.inline", "Pod ", podInput),
      h("datalist#capacity-pods", targets.pods.map((p) => h("option", { value: p }))), " ",
      h("label.inline", "at most ", maxInput), " ",
      h("button.small#capacity-copies", { type: "button", onclick: askCopies }, "How many more copies fit?")) : null,
    h("p.capacity-node-actions", h("label.inline", "Node ", nodeSelect), " ",
      h("button.small#capacity-add-like", { type: "button", onclick: () => ask({ kind: "nodes", likes: [nodeSelect.value] }) }, "How many nodes like this?"), " ",
      h("button.small#capacity-can-go", { type: "button", onclick: () => ask({ kind: "removable", nodes: [nodeSelect.value] }) }, "Can this node go?")),
    h("p.capacity-cluster-actions",
      h("button.small#capacity-removable", { type: "button", onclick: () => ask({ kind: "removable" }) }, "Which nodes can go?"), " ",
      h("button.small#capacity-fragmentation", { type: "button", onclick: () => ask({ kind: "fragmentation" }) }, "Fragmentation")),
    answer);
  resumeUnfinished(answer, scenarioId);
  return { ask: (question) => { answer.scrollIntoView({ block: "nearest" }); return ask(question); } };
}

/** A question still queued or running (asked before this page opened: the tab was closed, or another
 * tab asked it) is followed here, with its progress and Cancel, as if it had just been asked. */
async function resumeUnfinished(box, scenarioId) {
  const questions = await api.capacityQuestions(scenarioId).catch(() => []);
  const unfinished = questions.find((q) => !FINISHED.has(q.status));
  if (unfinished && !box.hasChildNodes()) await followAsked(box, unfinished);
}

/** The capacity questions about one node, as buttons for its card in the cluster view. */
export function nodeCapacityActions(panel) {
  const asking = (question) => async () => (await panel)?.ask(question);
  return (node) => h("div.node-capacity",
    h("button.linkish.small.capacity-node-like", { type: "button", title: `How many nodes like ${node.name} do the pending pods need?`,
      onclick: asking({ kind: "nodes", likes: [node.name] }) }, "How many like this?"), " · ",
    h("button.linkish.small.capacity-node-go", { type: "button", title: `Can ${node.name} be drained and go?`,
      onclick: asking({ kind: "removable", nodes: [node.name] }) }, "Can it go?"));
}

/** Ask, then show "trial k of ~n" with a cancel button until the answer arrives. */
async function follow(box, scenarioId, question) {
  let asked;
  try {
    asked = await api.askCapacity(scenarioId, question);
  } catch (error) {
    mount(box, h("p.notice.notice-error", error.message));
    return;
  }
  await followAsked(box, asked);
}

/** A question as the API gives it, followed until its answer: progress, method, Cancel. */
async function followAsked(box, asked) {
  const progress = h("p.capacity-progress", "Starting…");
  const cancel = h("button.small#capacity-cancel", { type: "button", onclick: async () => {
    cancel.disabled = true;
    try { await api.cancelCapacity(asked.id); } catch (error) { progress.textContent = error.message; }
  } }, "Cancel");
  const method = h("p.capacity-method");
  mount(box, h("h3", title(asked)), method, progress, cancel);
  const copies = asked.kind === "fit" && !!asked.parameters.pod;
  const shown = (state) => {
    progress.textContent = progressText({ ...state, copiesQuestion: copies });
    mount(method, state.method ? methodText(state.method, state.why) : null);
  };
  shown(stateOf(asked));
  await watch(asked.id, shown);
  const done = await api.capacity(asked.id);
  mount(box, h("h3", title(done)), renderAnswer(done));
}

/** The progress/state message's fields from a question as GET /api/capacity/{id} gives it. */
function stateOf(q) {
  return { status: q.status, done: q.progress.done, estimate: q.progress.estimate, method: q.method || "", why: q.why,
    copies: q.progress.copies, copiesPerSecond: q.progress.copiesPerSecond };
}

const METHODS = { counted: "Counted", placed: "Placed one by one", trials: "Trial runs" };

function methodText(method, why) {
  return [h("strong", { dataset: { method } }, METHODS[method] || method), why ? `: ${why}` : ""];
}

/** A rate as the server measured it, for reading: whole copies per second. */
function perSecond(rate) {
  return rate === null || rate === undefined ? "" : `, ${Math.round(rate).toLocaleString("en")} per second`;
}

export function progressText({ status, done, estimate, method, copies, copiesPerSecond, copiesQuestion }) {
  if (status === "queued") return "Queued: waiting for a worker…";
  if (copiesQuestion && method !== "trials") {
    if (FINISHED.has(status)) return `${status} after ${(copies || 0).toLocaleString("en")} copies`;
    if (!copies) return "Running the scenario's own run, then placing copies in one pass…";
    return `${copies.toLocaleString("en")} copies placed${perSecond(copiesPerSecond)}`;
  }
  if (FINISHED.has(status)) return `${status} after ${done} trial(s)`;
  return `trial ${Math.min(done + 1, Math.max(estimate, 1))} of ~${Math.max(estimate, done + 1)}`;
}

/** Progress over the websocket until "end"; polling the API when the socket cannot be used. */
function watch(id, shown) {
  return new Promise((resolve) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let ended = false;
    const finish = () => { if (!ended) { ended = true; resolve(); } };
    const poll = async () => {
      while (!ended) {
        const state = await api.capacity(id).catch(() => null);
        if (state) {
          shown(stateOf(state));
          if (FINISHED.has(state.status)) { finish(); return; }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}/ws/capacity/${id}/`);
    } catch {
      poll();
      return;
    }
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "progress") shown(message);
      if (message.type === "end") { finish(); socket.close(); }
    });
    socket.addEventListener("close", () => { if (!ended) poll(); });
  });
}

function title(q) {
  const p = q.parameters;
  if (q.kind === "fit") return p.pod ? `How many more copies of ${p.pod} fit?` : `How many more of ${p.workload} fit?`;
  if (q.kind === "nodes") return `How many nodes like ${p.likes.join(", ")}?`;
  if (q.kind === "removable") return p.nodes.length ? `Can ${p.nodes.join(", ")} go?` : "Which nodes can go?";
  return "Fragmentation";
}

export function renderAnswer(q) {
  if (q.status !== "succeeded") return h("p.notice.notice-error.capacity-error", `The question ${q.status}${q.error ? `: ${q.error}` : "."}`);
  const a = q.answer;
  // The engine's answers as `capacity --json` writes them (less the trials the API keeps to itself),
  // held to their declarations when the page checks payloads; `copies` is the engine's pass answer
  // with the question's own view of it (perNode, stoppedAtMax, perDomain's domainCount).
  return [
    releaseLine(q.release, { lead: "Replayed as" }),
    a.fit ? fitView(checked(a.fit, "FitAnswerJSON"), q.width) : null,
    a.copies ? copiesView(a.copies, q.progress, q.width) : null,
    a.nodes ? nodesView(checked(a.nodes, "NodesAnswerJSON"), q.width) : null,
    a.removable ? removableView(checked(a.removable, "RemovableAnswerJSON")) : null,
    a.fragmentation ? fragmentationView(checked(a.fragmentation, "FragmentationAnswerJSON")) : null,
    q.deciding ? decidingView(q) : null,
  ];
}

/** "10 trial runs": with rounds of several trials at once, said. The CLI runs the same search one
 * trial a round, so at width 1 the counts are equal; a wider round also runs trials the one-at-a-time
 * search would have skipped (and bisects in other steps), so its count can differ. */
function trialRuns(count, width) {
  return `${count} trial runs` + (width > 1 ? `, up to ${width} at once (the CLI runs the same search one trial at a time, so its count can differ)` : "");
}

function fitView(fit, width) {
  const where = Object.entries(fit.placements);
  return h("div.capacity-fit-answer",
    h("p.capacity-verdict", `${fit.fits} more fit (${fit.target}; ${trialRuns(fit.trials, width)}).`),
    where.length ? h("p", `Where they land: ${where.slice(0, LISTED).map(([node, n]) => `${node} ${n}`).join(", ")}${where.length > LISTED ? ", …" : ""}.`) : null,
    fit.checkedNext
      ? [h("p.capacity-stopper", `Copy ${fit.fits + 1} stays pending (${fit.stoppedBy.join(", ")}): `, h("code", fit.message)),
        fit.explanation ? h("p.capacity-why", `Why: ${fit.explanation.headline}`) : null]
      : h("p", `No count that fails was found: at least ${fit.fits} fit (the bound was ${fit.bound}).`),
    fit.displaced.length ? h("p", `Placing them preempts ${fit.displaced.length} pod(s): ${fit.displaced.slice(0, 10).join(", ")}`) : null);
}

/** How many more copies of a pod fit: the method and why, each node's copies, what stops the next copy. */
function copiesView(c, progress, width) {
  const per = c.perNode;
  return h("div.capacity-copies-answer", { dataset: { method: c.method } },
    h("p.capacity-verdict", `${c.fits.toLocaleString("en")} more fit (${c.target}).`),
    h("p.capacity-method", methodText(c.method, c.why)),
    c.method !== "trials" && progress.copiesPerSecond !== null
      ? h("p.capacity-rate", `${progress.copies.toLocaleString("en")} copies tried in one pass over the cluster.`)
      : (c.method === "trials" ? h("p.capacity-rate", `${trialRuns(c.trials, width)}.`) : null),
    per.nodeCount ? h("table.data.capacity-per-node",
      h("caption", `Copies per node: ${per.total.toLocaleString("en")} on ${per.nodeCount.toLocaleString("en")} node(s)`),
      h("thead", h("tr", h("th", { scope: "col" }, "node"), h("th.num", { scope: "col" }, "copies"))),
      h("tbody", per.nodes.map((n) => h("tr", { dataset: { node: n.node } }, h("td", n.node), h("td.num", String(n.copies))))),
      per.more ? h("tfoot", h("tr", h("td", { colspan: 2 }, `… and ${per.more.toLocaleString("en")} more node(s)`))) : null)
      : h("p.muted", "No copy fits on any node."),
    c.perDomain ? domainsView(c.perDomain) : null,
    c.stoppedAtMax
      ? h("p.capacity-max", `Stopped at the most you asked for (${c.bound.toLocaleString("en")}): at least ${c.fits.toLocaleString("en")} fit`,
        c.countedTotal !== null ? ` (counting says ${c.countedTotal.toLocaleString("en")} fit).` : ".")
      : [h("p.capacity-stopper", "The next copy, ", h("span.capacity-stopped-by", c.stoppedBy.join(", ")), ", does not fit: ", h("code", c.message)),
        c.messageExact ? null : h("p.muted", "The reason per domain: placing the copies one by one gives the scheduler's exact message."),
        c.explanation ? h("p.capacity-why", `Why: ${c.explanation.headline}`) : null],
    c.displaced.length ? h("p", `Placing them preempts ${c.displaced.length} pod(s): ${c.displaced.slice(0, 10).join(", ")}`) : null);
}

function domainsView(d) {
  return h("table.data.capacity-per-domain",
    h("caption", `Counted per ${d.topologyKey} domain (maxSkew ${d.maxSkew}; ${d.domainCount} domain(s))`),
    h("thead", h("tr", ["domain", "before", "room", "added", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", d.domains.map((x) => h("tr", h("td", x.domain), h("td.num", String(x.before)), h("td.num", String(x.room)),
      h("td.num", String(x.added)), h("td", x.full ? "full" : "at the skew limit")))),
    d.domains.length < d.domainCount ? h("tfoot", h("tr", h("td", { colspan: 5 }, `… and ${d.domainCount - d.domains.length} more`))) : null);
}

function nodesView(nodes, width) {
  if (!nodes.pending.length) return h("p.capacity-verdict", "No pod is pending after the scenario's run: no node is needed.");
  return h("div", h("p", `${nodes.pending.length} pod(s) pending after the scenario's run (${trialRuns(nodes.trials, width)}).`),
    nodes.templates.map((t) => h("div.capacity-template",
      h("p.capacity-verdict", `Nodes like ${t.like}: ${t.needed} needed.`),
      h("ul", Object.entries(t.podsPerNode).slice(0, LISTED).map(([node, pods]) => h("li", `${node}: ${pods.join(", ") || "nothing"}`))),
      t.unplaceable.length ? h("ul.capacity-unplaceable", t.unplaceable.slice(0, LISTED).map((u) =>
        h("li", `${t.exhaustive ? "No number of them takes" : `${t.most} of them do not take`} ${u.pod}: ${u.reason}`))) : null)));
}

function removableView(r) {
  return h("div",
    h("p.capacity-verdict", `Can go together (${r.order}): ${r.together.join(", ") || "none"}.`),
    h("ul.capacity-verdicts", r.verdicts.map((v) => h("li", { dataset: { node: v.node, removable: String(v.removable) } },
      `${v.node}: `, v.removable ? "can go" : `must stay — ${v.reasons.join("; ")}`))));
}

function fragmentationView(f) {
  // The amounts with their unit, as the engine wrote them ("22Gi", "4000m").
  const text = (r, key) => r[`${key}Text`];
  const chart = h("div.chart.capacity-fragmentation-chart");
  const names = f.resources.map((r) => safe(r.resource));
  const share = (value, total) => (total ? (100 * value) / total : 0);
  const hover = (label, key) => f.resources.map((r) => safe(`${label}: ${text(r, key)} of ${text(r, "freeTotal")} free (${r.resource})`));
  draw(chart, [
    { type: "bar", name: "largest request that fits on one node", x: names, y: f.resources.map((r) => share(r.largestFit, r.freeTotal)),
      hovertext: hover("largest fit", "largestFit"), hoverinfo: "text" },
    { type: "bar", name: "stranded (no pod can use it)", x: names, y: f.resources.map((r) => share(r.strandedTotal, r.freeTotal)),
      hovertext: hover("stranded", "strandedTotal"), hoverinfo: "text" },
  ], { barmode: "group", yaxis: { title: { text: "% of the free capacity" }, range: [0, 100] }, height: 280 }, "fragmentation");
  return h("div.capacity-fragmentation", chart,
    h("table.data", h("thead", h("tr", ["resource", "free in total", "largest that fits (node)", "stranded (nodes)"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", f.resources.map((r) => h("tr", h("td", r.resource), h("td", text(r, "freeTotal")),
        h("td", `${text(r, "largestFit")} (${r.largestNode || "no node"})`),
        h("td", `${text(r, "strandedTotal")}${r.stranded.length ? ` (${r.stranded.slice(0, 5).map((s) => s.node).join(", ")}${r.stranded.length > 5 ? ", …" : ""})` : ""}`))))));
}

function decidingView(q) {
  const d = q.deciding;
  const shareBox = h("span.capacity-share");
  const share = h("button.small#capacity-share", { type: "button", onclick: async () => {
    share.disabled = true;
    try {
      const step = d.cycle !== null ? `cycle=${d.cycle}&step=Filter` : (d.step !== null ? `changeStep=${d.step}` : "");
      const link = await api.share(d.scenario, { run: d.run, step });
      mount(shareBox, " ", h("a.capacity-share-link", { href: link.url }, link.url));
    } catch (error) {
      mount(shareBox, ` ${error.message}`);
    }
  } }, "Share");
  return h("p.capacity-deciding", "The deciding trial (", d.label, ") was saved as a run: ",
    h("a#capacity-deciding-link", { href: d.url }, d.cycle !== null ? `open it at cycle ${d.cycle}` : `open it at step ${d.step}`), " ", share, shareBox);
}
