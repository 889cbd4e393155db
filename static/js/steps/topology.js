// PodTopologySpread and InterPodAffinity state: skew bars, topologyScore heatmaps, counts.

import { h } from "../dom.js";
import { skewDistributionFigure, skewFigure } from "../charts/skew.js";
import { heatmapFigure, nestedToGrid } from "../charts/heatmap.js";
import { filterMatrix, PLUGIN, point, POINT, preFilterState, preScoreState } from "../runmodel.js";
import { FAIL, note, PASS, section, table } from "./common.js";

const MAX_COLUMNS = 60; // heatmap columns drawn (topology pairs / values); the rest are in the tables
const MAX_BARS = 40; // more domains than this: the distribution of counts instead of one bar each

/** domain -> whether some evaluated node in it passed PodTopologySpread's Filter (unknown: absent). */
export function openDomains(ctx, topologyKey) {
  const out = new Map();
  const { nodes, plugins } = filterMatrix(ctx.cycle);
  if (!nodes.length || !ctx.nodeLabels.size) return out;
  const ptsRan = plugins.includes(PLUGIN.POD_TOPOLOGY_SPREAD);
  for (const node of nodes) {
    const domain = ctx.nodeLabels.get(node.name)?.[topologyKey];
    if (domain === undefined) continue;
    const passed = !ptsRan || !node.cells[PLUGIN.POD_TOPOLOGY_SPREAD];
    out.set(domain, out.get(domain) || passed);
  }
  return out;
}

export function hardSpreadSection(ctx) {
  const constraints = preFilterState(ctx.cycle, PLUGIN.POD_TOPOLOGY_SPREAD);
  if (!Array.isArray(constraints) || !constraints.length) return null;
  return section("PodTopologySpread — hard constraints (DoNotSchedule)",
    note("Bars: running pods matching the constraint's selector per domain (the state PreFilter wrote, read by Filter). A domain is open (✓) when a node in it passed PodTopologySpread's Filter."),
    constraints.map((c, i) => spreadBlock(ctx, c, i, "hard")));
}

export function softSpreadSection(ctx) {
  const state = preScoreState(ctx.cycle, PLUGIN.POD_TOPOLOGY_SPREAD);
  if (!state?.constraints?.length) return null;
  return section("PodTopologySpread — soft constraints (ScheduleAnyway)",
    note("Counts per domain over the scored nodes (for kubernetes.io/hostname: per node), and the plugin's normalizing weight."),
    state.constraints.map((c, i) => spreadBlock(ctx, c, i, "soft")),
    state.ignoredNodes?.length ? note(`Ignored nodes (missing a constraint's key): ${state.ignoredNodes.join(", ")}`) : null);
}

function spreadBlock(ctx, constraint, index, kind) {
  const hard = kind === "hard";
  const counts = (hard ? constraint.matchNum : constraint.counts) || {};
  const many = Object.keys(counts).length > MAX_BARS;
  // Many domains: the table lists the emptiest first (where the pod may go), not by name.
  const domains = many ? Object.keys(counts).sort((a, b) => counts[a] - counts[b] || a.localeCompare(b)) : Object.keys(counts).sort();
  const open = hard ? openDomains(ctx, constraint.topologyKey) : new Map();
  const chart = ctx.plot(`skew-${kind}-${index}`, many ? skewDistributionFigure(constraint, open) : skewFigure(constraint, open));
  const facts = hard
    ? [["topologyKey", constraint.topologyKey], ["maxSkew", constraint.maxSkew], ["minDomains", constraint.minDomains ?? 1],
      ["domains", domains.length], ["global minimum (minMatchNum)", constraint.minMatchNum], ["min + maxSkew", constraint.minMatchNum + constraint.maxSkew]]
    : [["topologyKey", constraint.topologyKey], ["maxSkew", constraint.maxSkew], ["domains", domains.length], ["weight", constraint.weight]];
  const rows = domains.slice(0, 500).map((d) => [d, String(counts[d]), hard ? mayGoCell(open, d) : ""]);
  return h(`div.spread.spread-${kind}`, { dataset: { constraint: String(index), topologyKey: constraint.topologyKey } },
    h("dl.facts", facts.map(([k, v]) => [h("dt", k), h("dd", { dataset: { fact: k } }, String(v))])),
    chart,
    many ? note(`${domains.length} domains: bars count the domains per number of matching pods. The table lists the domains with the fewest matching pods first${domains.length > 500 ? " (500 of them)" : ""}.`) : null,
    h("details.data-table", { open: domains.length <= 12 },
      h("summary", `Numbers (${domains.length} domains)`),
      table(["domain", hard ? "matching pods (matchNum)" : "count", hard ? "pod may go" : ""].filter(Boolean),
        rows.map((r) => (hard ? r : r.slice(0, 2))), `skew-table`)));
}

function mayGoCell(open, domain) {
  if (!open.has(domain)) return h("span.muted", "?");
  return open.get(domain) ? h("span.pass", `${PASS} yes`) : h("span.fail", `${FAIL} no`);
}

export function affinityCountsSection(ctx) {
  const state = preFilterState(ctx.cycle, PLUGIN.INTER_POD_AFFINITY);
  if (!state) return null;
  const maps = [
    ["existing anti-affinity", state.existingAntiAffinityCounts || {}],
    ["affinity", state.affinityCounts || {}],
    ["anti-affinity", state.antiAffinityCounts || {}],
  ];
  const pairs = [...new Set(maps.flatMap(([, m]) => Object.keys(m)))].sort();
  const body = [
    note("Required terms, counted per topology pair (key=value): existing pods' anti-affinity terms matching this pod, and running pods matching this pod's affinity / anti-affinity terms."),
  ];
  // Many pairs (hostname terms over thousands of nodes): draw those with the largest counts.
  const weight = (p) => Math.max(...maps.map(([, m]) => Math.abs(m[p] ?? 0)));
  const shown = pairs.length <= MAX_COLUMNS ? pairs : [...pairs].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b)).slice(0, MAX_COLUMNS).sort();
  if (pairs.length) {
    const fig = heatmapFigure({ rows: maps.map(([n]) => n), cols: shown, z: maps.map(([, m]) => shown.map((p) => m[p] ?? null)), title: "required (anti-)affinity counts per domain", rowTitle: "count", colTitle: "topology pair" });
    const chart = ctx.plot("ipa-counts", fig);
    body.push(chart);
    if (pairs.length > shown.length) body.push(note(`Showing the ${shown.length} pairs with the largest counts of ${pairs.length}; the table lists up to 500.`));
  } else {
    body.push(note("All three counts are empty."));
  }
  body.push(h("details.data-table", h("summary", "Numbers"),
    table(["count", ...pairs.slice(0, 500)], maps.map(([n, m]) => [n, ...pairs.slice(0, 500).map((p) => String(m[p] ?? ""))]), "ipa-counts-table")));
  return section("InterPodAffinity — required terms (PreFilter state)", ...body);
}

export function topologyScoreSection(ctx) {
  const state = preScoreState(ctx.cycle, PLUGIN.INTER_POD_AFFINITY);
  if (!state?.topologyScore) return null;
  const grid = nestedToGrid(state.topologyScore, MAX_COLUMNS);
  const all = new Set(Object.values(state.topologyScore).flatMap((m) => Object.keys(m || {})));
  const fig = heatmapFigure({ rows: grid.rows, cols: grid.cols, z: grid.z, title: "topologyScore (topology key × value)", rowTitle: "key", colTitle: "value", diverging: true });
  const chart = ctx.plot("ipa-topology-score", fig);
  const cols = grid.cols;
  const z = grid.z;
  const raw = point(ctx.cycle, POINT.SCORE).plugins.get(PLUGIN.INTER_POD_AFFINITY)?.raw;
  const normalized = point(ctx.cycle, POINT.NORMALIZE_SCORE).plugins.get(PLUGIN.INTER_POD_AFFINITY)?.normalized;
  return section("InterPodAffinity — preferred terms (PreScore state)",
    note("Sums per topology pair: + for matched affinity, − for matched anti-affinity. A node's raw score is the sum over the keys it has."),
    chart,
    all.size > cols.length ? note(`Showing ${cols.length} of ${all.size} values (per key, those with the largest magnitude).`) : null,
    h("details.data-table", { open: grid.rows.length * grid.cols.length <= 24 }, h("summary", "Numbers"),
      table(["key", ...cols], grid.rows.map((r, i) => [r, ...z[i].map((v) => (v === null ? "" : String(v)))]), "topology-score-table")),
    raw ? h("details.data-table", { open: Object.keys(raw).length <= 12 }, h("summary", "Per-node InterPodAffinity scores"),
      table(["node", "raw", "normalized"], Object.keys(raw).slice(0, 500).map((n) => [n, String(raw[n]), String(normalized?.[n] ?? "")]), "ipa-node-scores")) : null);
}
