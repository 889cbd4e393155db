// PodTopologySpread and InterPodAffinity state: per-constraint verdicts, topologyScore heatmaps, counts.

import { h } from "../dom.js";
import { countsDistributionFigure, countsFigure, verdictDistributionFigure, verdictFigure } from "../charts/skew.js";
import { heatmapFigure, nestedToGrid } from "../charts/heatmap.js";
import { PLUGIN, point, POINT, preFilterState, preScoreState } from "../runmodel.js";
import { explainLine, FAIL, note, PASS, section, table } from "./common.js";

const MAX_COLUMNS = 60; // heatmap columns drawn (topology pairs / values); the rest are in the tables
const MAX_BARS = 40; // more domains than this: the distribution instead of one bar each
const MAX_TABLE_ROWS = 500;
const MAX_NODES_IN_CELL = 8;

/** PodTopologySpread's picture (PreFilter payload): each hard constraint's own verdict per domain. */
function spreadPicture(cycle) {
  return point(cycle, POINT.PRE_FILTER).plugins.get(PLUGIN.POD_TOPOLOGY_SPREAD)?.picture ?? null;
}

/** why: false when the step already shows the same sentence (the Filter step's headline). */
export function hardSpreadSection(ctx, { why = true } = {}) {
  const picture = spreadPicture(ctx.cycle);
  if (picture?.constraints?.length) {
    return section("PodTopologySpread — hard constraints (DoNotSchedule)",
      why ? explainLine(ctx, (e) => e.spread?.sentence, "spread-why") : null,
      note("Each constraint judges every domain on its own: the bar is the skew the pod would make there " +
        "(matching pods + the pod itself − the global minimum), ✓ when it stays within maxSkew. " +
        "A node passes PodTopologySpread only where every constraint allows its domain."),
      picture.constraints.map((c, i) => verdictBlock(ctx, c, i)));
  }
  const constraints = preFilterState(ctx.cycle, PLUGIN.POD_TOPOLOGY_SPREAD);
  if (!Array.isArray(constraints) || !constraints.length) return null;
  // A run recorded before the engine drew per-constraint pictures: the counts only.
  return section("PodTopologySpread — hard constraints (DoNotSchedule)",
    note("Matching pods per domain (the state PreFilter wrote). This run was recorded before the engine " +
      "reported each constraint's own verdicts; run the scenario again to see them."),
    constraints.map((c, i) => countsBlock(ctx, c, i, "hard")));
}

export function softSpreadSection(ctx) {
  const state = preScoreState(ctx.cycle, PLUGIN.POD_TOPOLOGY_SPREAD);
  if (!state?.constraints?.length) return null;
  return section("PodTopologySpread — soft constraints (ScheduleAnyway)",
    note("Counts per domain over the scored nodes (for kubernetes.io/hostname: per node), and the plugin's normalizing weight."),
    state.constraints.map((c, i) => countsBlock(ctx, c, i, "soft")),
    state.ignoredNodes?.length ? note(`Ignored nodes (missing a constraint's key): ${state.ignoredNodes.join(", ")}`) : null);
}

function verdictBlock(ctx, constraint, index) {
  const many = constraint.domains.length > MAX_BARS;
  const figure = many ? verdictDistributionFigure(constraint) : verdictFigure(constraint);
  const chart = ctx.plot(`skew-hard-${index}`, figure);
  // Many domains: the table lists the allowed ones first, lowest skew first (where the pod may go).
  const rows = many ? [...constraint.domains].sort((a, b) => a.skew - b.skew || a.value.localeCompare(b.value)) : constraint.domains;
  const facts = [
    ["topologyKey", constraint.topologyKey], ["maxSkew", constraint.maxSkew], ["minDomains", constraint.minDomains],
    ["domains counted", constraint.eligibleDomains], ["global minimum (minMatchNum)", constraint.minMatchNum],
    ["the pod matches its own selector", constraint.selfMatch ? "yes (+1)" : "no (+0)"],
  ];
  const allowance = ctx.explanation?.spread?.constraints?.[index]?.sentence ?? null;
  return h("div.spread.spread-hard", { dataset: { constraint: String(index), topologyKey: constraint.topologyKey } },
    h("dl.facts", facts.map(([k, v]) => [h("dt", k), h("dd", { dataset: { fact: k } }, String(v))])),
    allowance ? h("p.allowance", allowance) : null,
    chart,
    many ? note(`${constraint.domains.length} domains: bars count the domains per skew. The table lists the lowest skews first${rows.length > MAX_TABLE_ROWS ? ` (${MAX_TABLE_ROWS} of them)` : ""}.`) : null,
    constraint.nodesWithoutKey.length ? note(`Nodes without the ${constraint.topologyKey} label (this constraint rejects them): ${nodeList(constraint.nodesWithoutKey)}`) : null,
    h("details.data-table", { open: rows.length <= 12 },
      h("summary", `Numbers (${rows.length} domains)`),
      table(["domain", "nodes", "matching pods (matchNum)", "skew with the pod", `within maxSkew ${constraint.maxSkew}`],
        rows.slice(0, MAX_TABLE_ROWS).map((d) => [d.value, nodeList(d.nodes), `${d.matchNum}${d.counted ? "" : " (not counted)"}`, String(d.skew), verdictCell(d)]),
        "skew-table")));
}

function verdictCell(domain) {
  return domain.allowed ? h("span.pass", `${PASS} allowed`) : h("span.fail", `${FAIL} no`);
}

function nodeList(nodes) {
  if (nodes.length <= MAX_NODES_IN_CELL) return nodes.join(", ");
  return `${nodes.slice(0, MAX_NODES_IN_CELL).join(", ")} and ${nodes.length - MAX_NODES_IN_CELL} more`;
}

function countsBlock(ctx, constraint, index, kind) {
  const hard = kind === "hard";
  const counts = (hard ? constraint.matchNum : constraint.counts) || {};
  const many = Object.keys(counts).length > MAX_BARS;
  // Many domains: the table lists the emptiest first, not by name.
  const domains = many ? Object.keys(counts).sort((a, b) => counts[a] - counts[b] || a.localeCompare(b)) : Object.keys(counts).sort();
  const chart = ctx.plot(`skew-${kind}-${index}`, many ? countsDistributionFigure(constraint) : countsFigure(constraint));
  const facts = hard
    ? [["topologyKey", constraint.topologyKey], ["maxSkew", constraint.maxSkew], ["minDomains", constraint.minDomains ?? 1],
      ["domains", domains.length], ["global minimum (minMatchNum)", constraint.minMatchNum]]
    : [["topologyKey", constraint.topologyKey], ["maxSkew", constraint.maxSkew], ["domains", domains.length], ["weight", constraint.weight]];
  return h(`div.spread.spread-${kind}`, { dataset: { constraint: String(index), topologyKey: constraint.topologyKey } },
    h("dl.facts", facts.map(([k, v]) => [h("dt", k), h("dd", { dataset: { fact: k } }, String(v))])),
    chart,
    many ? note(`${domains.length} domains: bars count the domains per number of matching pods. The table lists the domains with the fewest matching pods first${domains.length > MAX_TABLE_ROWS ? ` (${MAX_TABLE_ROWS} of them)` : ""}.`) : null,
    h("details.data-table", { open: domains.length <= 12 },
      h("summary", `Numbers (${domains.length} domains)`),
      table(["domain", hard ? "matching pods (matchNum)" : "count"], domains.slice(0, MAX_TABLE_ROWS).map((d) => [d, String(counts[d])]), "skew-table")));
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
