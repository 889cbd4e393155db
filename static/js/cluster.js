// Cluster view: nodes grouped by a topology key, pods inside their nodes coloured by a label,
// pending pods in a queue lane. Shaping is pure (clusterLayout); drawing is plain DOM.

import { claimsSection, devicesSection } from "./devicemap.js";
import { h, mount } from "./dom.js";
import { defaultTopologyKey, FAIL } from "./steps/common.js";

const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
  "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"];
const NO_VALUE = "(none)";
const DELETED = "deleted"; // a run to the end's final place of a preemption victim
const COLLAPSE_NODES = 40; // a domain with more nodes starts collapsed
const MAX_NODES_DRAWN = 400; // per opened domain

/**
 * placements: Map(pod "ns/name" -> node name | null | "deleted") from a run (bound by the run, left
 * unschedulable, or evicted by its preemption), with .nominated: Map(pod -> node) for a run to the
 * end; pods without a node and not placed stay in the queue lane.
 */
export function clusterLayout(nodes, pods, groupKey, placements = new Map()) {
  const byNode = new Map(nodes.map((n) => [n.name, { ...n, pods: [] }]));
  const pending = [];
  for (const pod of pods) {
    const id = `${pod.namespace}/${pod.name}`;
    const placed = placements.get(id);
    const nodeName = pod.nodeName || placed || "";
    const evicted = placed === DELETED || Boolean(pod.gone);
    const entry = {
      ...pod, id, evicted, nominatedTo: placements.nominated?.get(id) ?? "",
      boundByRun: !pod.nodeName && Boolean(placed) && !evicted,
      placedLink: placements.links?.get(id) ?? "", // the run's cycle that placed it (why there)
      unschedulable: (!pod.nodeName && placements.has(id) && !placed) || (pod.mark !== undefined && !pod.nodeName && !pod.gone),
    };
    if (evicted && pod.nodeName && byNode.has(pod.nodeName)) byNode.get(pod.nodeName).pods.push(entry);
    else if (nodeName && byNode.has(nodeName) && !evicted) byNode.get(nodeName).pods.push(entry);
    else if (!pod.nodeName) pending.push(entry);
  }
  pending.sort((a, b) => (Number(b.priority) || 0) - (Number(a.priority) || 0)); // stable: document order within a priority
  const groups = new Map();
  for (const node of byNode.values()) {
    const domain = node.labels[groupKey] ?? NO_VALUE;
    if (!groups.has(domain)) groups.set(domain, []);
    groups.get(domain).push(node);
  }
  return {
    groups: [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([domain, members]) => ({ domain, nodes: members })),
    pending,
  };
}

/** value -> colour, in sorted order of the values present (stable for a given scenario). */
export function colourMap(pods, colorKey) {
  const values = [...new Set(pods.map((p) => p.labels[colorKey] ?? NO_VALUE))].sort();
  return new Map(values.map((v, i) => [v, v === NO_VALUE ? "#bdbdbd" : PALETTE[i % PALETTE.length]]));
}

export function renderCluster(container, { nodes, pods, volumes = [], devices = [], placements, state, onState, onPod = null, nodeActions = null }) {
  const nodeKeys = [...new Set(nodes.flatMap((n) => Object.keys(n.labels)))].sort();
  const podKeys = [...new Set(pods.flatMap((p) => Object.keys(p.labels)))].sort();
  const groupKey = nodeKeys.includes(state.groupKey) ? state.groupKey : defaultTopologyKey(nodeKeys);
  const colorKey = podKeys.includes(state.colorKey) ? state.colorKey : (podKeys.includes("app") ? "app" : podKeys[0] || "");
  const layout = clusterLayout(nodes, pods, groupKey, placements);
  const colours = colourMap(pods, colorKey);
  const big = nodes.length > 300;
  const opened = new Set(state.opened || []);
  const isOpen = (g) => (state.opened ? opened.has(g.domain) : !big && g.nodes.length <= COLLAPSE_NODES);
  const toggle = (g) => {
    const now = new Set(layout.groups.filter(isOpen).map((x) => x.domain));
    if (now.has(g.domain)) now.delete(g.domain); else now.add(g.domain);
    onState({ opened: [...now] });
  };

  mount(container,
    h("div.controls",
      select("group-key", "group nodes by", nodeKeys, groupKey, (v) => onState({ groupKey: v, opened: null })),
      select("color-key", "colour pods by", podKeys, colorKey, (v) => onState({ colorKey: v })),
      h("span.muted", `${nodes.length} nodes · ${pods.length} pods · ${layout.pending.length} pending`)),
    legend(colours, colorKey),
    h("section.queue-lane", { "aria-label": "pending pods" },
      h("h3", `Queue (${layout.pending.length} pending)`),
      layout.pending.length ? h("div.pods", layout.pending.slice(0, 500).map((p) => podChip(p, colours, colorKey))) : h("p.muted", "No pending pods.")),
    onPod ? h("p.muted.small.why-hint", "Click a running pod (bound in the scenario) to ask why it is on its node.") : null,
    h("div.domains", layout.groups.map((g) => domainCard(g, groupKey, colours, colorKey, isOpen(g), () => toggle(g), onPod, nodeActions))),
    volumes.length ? volumesByDomain(volumes, groupKey) : null,
    devicesSection(devices),
    claimsSection(pods));
}

/** PersistentVolumes under the domain (of the nodes' grouping key) they can be used in. */
function volumesByDomain(volumes, groupKey) {
  const byDomain = new Map();
  for (const volume of volumes) {
    for (const domain of volume.domains[groupKey] || [NO_VALUE]) {
      if (!byDomain.has(domain)) byDomain.set(domain, []);
      byDomain.get(domain).push(volume);
    }
  }
  const domains = [...byDomain].sort(([a], [b]) => a.localeCompare(b));
  return h("section.volumes-by-domain", { "aria-label": "persistent volumes" },
    h("h3", `PersistentVolumes by ${groupKey} (${volumes.length})`),
    h("div.domains", domains.map(([domain, members]) => h("div.volume-domain", { dataset: { domain } },
      h("h4", domain === NO_VALUE ? `not limited by ${groupKey}` : `${groupKey}=${domain}`),
      h("ul.plain", members.map((v) => h("li.volume", { dataset: { volume: v.name } },
        h("code", v.name), ` ${v.phase}`, v.claim ? ` → ${v.claim}` : " (unclaimed)", v.storageClass ? ` · ${v.storageClass}` : "",
        Object.keys(v.domains).length
          ? h("div.muted", Object.entries(v.domains).map(([key, values]) => `${key}=${values.join(" | ")}`).join(", "))
          : h("div.muted", "no topology: usable on any node"))))))));
}

function select(id, label, keys, current, onChange) {
  return h("label.inline", `${label} `,
    h("select", { id, onchange: (e) => onChange(e.target.value) }, keys.map((k) => h("option", { value: k, selected: k === current }, k))));
}

function legend(colours, colorKey) {
  return h("ul.legend", { "aria-label": `colours: ${colorKey}` },
    [...colours].slice(0, 40).map(([value, colour]) => {
      const swatch = h("span.swatch");
      swatch.style.background = colour;
      return h("li", swatch, `${colorKey}=${value}`);
    }));
}

function domainCard(group, groupKey, colours, colorKey, open, onToggle, onPod, nodeActions = null) {
  const podCount = group.nodes.reduce((n, node) => n + node.pods.length, 0);
  return h("section.domain", { dataset: { domain: group.domain } },
    h("h3", h("button.linkish", { type: "button", "aria-expanded": String(open), onclick: onToggle },
      `${open ? "▾" : "▸"} ${groupKey}=${group.domain}`), h("span.muted", ` ${group.nodes.length} node(s) · ${podCount} pod(s)`)),
    open
      ? h("div.nodes", group.nodes.slice(0, MAX_NODES_DRAWN).map((n) => nodeCard(n, colours, colorKey, onPod, nodeActions)),
        group.nodes.length > MAX_NODES_DRAWN ? h("p.muted", `… ${group.nodes.length - MAX_NODES_DRAWN} more nodes`) : null)
      : composition(group, colours, colorKey));
}

/** A collapsed domain: one bar showing its pods' colours. */
function composition(group, colours, colorKey) {
  const counts = new Map();
  for (const node of group.nodes) for (const p of node.pods) {
    const v = p.labels[colorKey] ?? NO_VALUE;
    counts.set(v, (counts.get(v) || 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return h("div.composition", { title: [...counts].map(([v, n]) => `${colorKey}=${v}: ${n}`).join("\n") || "no pods" },
    [...counts].map(([v, n]) => {
      const seg = h("span");
      seg.style.background = colours.get(v);
      seg.style.flexGrow = String(n / total);
      return seg;
    }));
}

/** nodeActions(node) -> extra controls in the card (the capacity questions about that node), or null. */
function nodeCard(node, colours, colorKey, onPod, nodeActions = null) {
  const flags = [node.added ? "added in this step" : "", node.unschedulable ? "unschedulable" : "", node.taints.length ? `${node.taints.length} taint(s)` : ""].filter(Boolean).join(" · ");
  return h(`div.node${node.unschedulable ? ".cordoned" : ""}${node.added ? ".added" : ""}`, { dataset: { node: node.name }, title: Object.entries(node.labels).map(([k, v]) => `${k}=${v}`).join("\n") },
    h("div.node-name", node.name),
    h("div.node-meta", [node.allocatable.cpu ? `cpu ${node.allocatable.cpu}` : "", node.allocatable.memory ? `mem ${node.allocatable.memory}` : "", flags].filter(Boolean).join(" · ")),
    nodeActions ? nodeActions(node) : null,
    h("div.pods", node.pods.map((p) => podChip(p, colours, colorKey, onPod))));
}

/** A pod bound in the scenario (running on its node) can be asked "Why here?": its chip is a button then. */
function podChip(pod, colours, colorKey, onPod = null) {
  const chip = podChipSpan(pod, colours, colorKey);
  if (pod.boundByRun && pod.placedLink) return placedChip(chip, pod.placedLink);
  if (!onPod || !pod.nodeName || pod.evicted) return chip;
  chip.classList.add("explainable");
  chip.setAttribute("role", "button");
  chip.tabIndex = 0;
  chip.title += "\nclick: Why here?";
  chip.addEventListener("click", () => onPod(pod));
  chip.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onPod(pod);
    }
  });
  return chip;
}

/** A pod the run placed (★): a click opens the run at the cycle that placed it, where its Filter and
 * Score steps say why that node. */
function placedChip(chip, link) {
  chip.classList.add("explainable");
  chip.setAttribute("role", "link");
  chip.tabIndex = 0;
  chip.title += "\nclick: the cycle that placed it (why there)";
  const go = () => { location.href = link; };
  chip.addEventListener("click", go);
  chip.addEventListener("keydown", (event) => {
    if (event.key === "Enter") go();
  });
  return chip;
}

// A pod at the end of a step (its mark from the server) -> its symbol and what the title says.
const STEP_MARKS = { new: ["+", "created in this step"], placed: ["★", "placed in this step (pending before)"],
  moved: ["→", "moved in this step"], pending: ["", "pending at the end of the step"] };

function podChipSpan(pod, colours, colorKey) {
  const value = pod.labels[colorKey] ?? NO_VALUE;
  const [symbol, said] = STEP_MARKS[pod.mark] || ["", ""];
  const stepText = said ? `\n${said}${pod.mark === "moved" ? ` (from ${pod.previousNode})` : ""}` : "";
  const evictedText = pod.gone ? `\n${pod.gone} during this step` : "\nevicted by the run's preemption";
  const chip = h(`span.pod${pod.boundByRun ? ".bound" : ""}${pod.unschedulable ? ".unschedulable" : ""}${pod.evicted ? ".evicted" : ""}${pod.mark ? `.mark-${pod.mark}` : ""}`, {
    title: `${pod.id}\n${colorKey}=${value}${pod.priority !== "" ? `\npriority ${pod.priority}` : ""}${pod.boundByRun ? "\nplaced by the run" : ""}${pod.unschedulable && !pod.mark ? "\nunschedulable in the run" : ""}${pod.evicted ? evictedText : ""}${pod.nominatedTo ? `\nnominated to ${pod.nominatedTo}` : ""}${stepText}${(pod.claims || []).map((c) => `\nclaim ${c.claim ?? c.podClaim}: ${c.requests.join("; ")}${c.devices.length ? ` → ${c.devices.join(", ")}` : ""}`).join("")}`,
    dataset: { pod: pod.id, mark: pod.gone || pod.mark || "" },
  }, pod.evicted ? `✕ ${pod.name}` : pod.unschedulable ? `${FAIL} ${symbol ? `${symbol} ` : ""}${pod.name}${pod.nominatedTo ? ` ⇢ ${pod.nominatedTo}` : ""}` : pod.boundByRun ? `★ ${pod.name}` : symbol ? `${symbol} ${pod.name}` : pod.name);
  chip.style.borderLeftColor = colours.get(value);
  return chip;
}

/**
 * A big cluster, a page at a time (the server's GET /api/scenarios/{id}/cluster answers): every domain of the
 * grouping key with its counts (a click shows its nodes), a search, the nodes shown so far of those matching
 * with "more" for the next page, and the first pending pods. Only the shown nodes and pods are here.
 */
export function renderClusterPage(container, { page, nodes, pods, placements, state, onState, onMore, onPod = null, nodeActions = null }) {
  const layout = clusterLayout(nodes, pods, page.groupKey, placements);
  const podKeys = page.podKeys;
  const colorKey = podKeys.includes(state.colorKey) ? state.colorKey : (podKeys.includes("app") ? "app" : podKeys[0] || "");
  const colours = colourMap(pods, colorKey);
  const search = h("input#cluster-search", { type: "search", value: state.search, placeholder: "node name or key=value", "aria-label": "search nodes" });
  const where = [state.domain !== null ? `in ${page.groupKey}=${state.domain}` : "", state.search ? `matching “${state.search}”` : ""].filter(Boolean).join(" ");
  const domains = page.groups.map((g) => h(`li${g.domain === state.domain ? ".current" : ""}`,
    h("button.linkish.domain-pick", { type: "button", dataset: { domain: g.domain }, "aria-pressed": String(g.domain === state.domain),
      onclick: () => onState({ domain: g.domain === state.domain ? null : g.domain }) }, `${page.groupKey}=${g.domain}`),
    h("span.muted", ` ${g.nodes} node(s) · ${g.pods} pod(s)`)));
  mount(container,
    h("div.controls",
      select("group-key", "group nodes by", page.nodeKeys, page.groupKey, (v) => onState({ groupKey: v, domain: null })),
      select("color-key", "colour pods by", podKeys, colorKey, (v) => { state.colorKey = v; onState({}); }),
      h("form.inline#cluster-search-form", { onsubmit: (e) => { e.preventDefault(); onState({ search: search.value.trim() }); } },
        search, h("button", { type: "submit" }, "search")),
      h("span.muted#cluster-counts", `${page.nodeCount} nodes · ${page.podCount} pods · ${page.pendingCount} pending`)),
    legend(colours, colorKey),
    h("section.queue-lane", { "aria-label": "pending pods" },
      h("h3", `Queue (${page.pendingCount} pending)`),
      layout.pending.length ? h("div.pods", layout.pending.map((p) => podChip(p, colours, colorKey))) : h("p.muted", "No pending pods."),
      page.pendingCount > layout.pending.length ? h("p.muted#pending-shown", `showing ${layout.pending.length} of ${page.pendingCount} pending pods (highest priority first)`) : null),
    h("section.domain-counts", { "aria-label": "domains" },
      h("h3", `${page.groupCount} domain(s) by ${page.groupKey}`),
      h("ul.plain.domain-list", domains),
      page.groupCount > page.groups.length ? h("p.muted", `the ${page.groups.length} largest of ${page.groupCount} domains; search finds the others`) : null),
    onPod ? h("p.muted.small.why-hint", "Click a running pod (bound in the scenario) to ask why it is on its node.") : null,
    h("section.paged-nodes", { "aria-label": "nodes" },
      h("p#cluster-shown", `showing ${nodes.length} of ${page.matched} nodes${where ? ` ${where}` : ""}`,
        state.domain !== null || state.search ? h("button.linkish#cluster-all", { type: "button", onclick: () => onState({ domain: null, search: "" }) }, " (show all)") : null),
      h("div.nodes", layout.groups.flatMap((g) => g.nodes).map((n) => nodeCard(n, colours, colorKey, onPod, nodeActions))),
      nodes.length < page.matched ? h("button#cluster-more", { type: "button", onclick: onMore }, `more (next ${Math.min(50, page.matched - nodes.length)})`) : null),
    devicesSection(page.devices || []),
    claimsSection(pods));
}
