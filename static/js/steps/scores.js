// Score / NormalizeScore / Total: nodes × plugins heatmap with a raw/normalized/weighted switch,
// total-score bars with the chosen node and ties marked. Large clusters (thousands of nodes) are
// summarized per topology domain (max or median of the engine's numbers, domains × plugins), then
// the best nodes; a domain can be opened to see its own nodes.

import { h } from "../dom.js";
import { SCORE_KINDS, domainScoresFigure, domainTotalsFigure, scoresFigure, stackedTotalsFigure } from "../charts/scores.js";
import { domainScores, groupByDomain, topNodes } from "../aggregate.js";
import { scoreTable } from "../runmodel.js";
import { defaultTopologyKey, explainLine, keySelect, labelKeys, note, outcomeBanner, section, SKIP, skippedScoring, table } from "./common.js";
import { LARGE } from "./filter.js";

const MAX_ROWS = 60; // nodes drawn in one heatmap / bar chart
const TOP_NODES = 30; // best nodes shown under the domain summary
const MAX_DOMAINS = 60; // domain rows drawn (by highest total)
const STAT_NAMES = ["max", "median"];

export function renderScores(ctx, defaultKind) {
  const drawn = scoresView(ctx, defaultKind);
  return skippedScoring(ctx, ...drawn.filter(Boolean)) ?? drawn;
}

function scoresView(ctx, defaultKind) {
  const t = scoreTable(ctx.cycle);
  if (!t.plugins.length) return [section("Scores", note("No score plugin ran in this cycle (no feasible node)."))];
  const kind = SCORE_KINDS.includes(ctx.ui.scoreKind) ? ctx.ui.scoreKind : defaultKind;
  const switcher = h("div.segmented", { role: "radiogroup", "aria-label": "score kind" },
    SCORE_KINDS.map((k) => h("label", h("input", { type: "radio", name: "score-kind", value: k, checked: k === kind, onchange: () => ctx.update({ scoreKind: k }) }), ` ${k}`)));
  const agg = aggregation(ctx, t);
  if (agg) return renderScoresByDomain(ctx, t, kind, switcher, agg);
  const nodes = visibleNodes(t, ctx.ui.nodeFilter);
  const chart = ctx.plot("scores-heatmap", scoresFigure(t, kind, nodes));
  return [
    section("Scores: node × plugin", h("div.controls", switcher, filterBox(ctx, t)),
      note("★ chosen node, = tied for the highest total. Weighted = normalized × the plugin's weight."),
      kindNote(kind),
      chart,
      t.nodes.length > nodes.length ? note(`Showing ${nodes.length} of ${t.nodes.length} nodes (highest totals first; use the filter to find one).`) : null,
      nodeScoreTable(t, kind, nodes)),
    Object.keys(t.totals).length ? section("Total scores", ctx.plot("score-totals", stackedTotalsFigure(t, nodes))) : null,
  ];
}

export function renderTotal(ctx) {
  const t = scoreTable(ctx.cycle);
  const agg = aggregation(ctx, t);
  const outcomeSection = section("Outcome", outcomeBanner(ctx.cycle),
    explainLine(ctx, (e) => e.winner?.sentence, "winner-why"),
    marginTable(ctx.explanation?.winner),
    t.ties.length > 1 ? note(`Tied for the highest total: ${tieText(t.ties)}.`) : null,
    t.error ? note(`Error: ${t.error}`) : null);
  if (agg) {
    const rows = domainRows(t, "raw", agg);
    const nodes = drillNodes(ctx, t, agg);
    return [
      outcomeSection,
      section(`Total scores per ${agg.key}`, h("div.controls", agg.keyControl),
        note(`${t.nodes.length} scored nodes in ${agg.groups.size} domain(s). Bars: the highest total in each domain (and its node) and the median total.`),
        ctx.plot("totals-domains", domainTotalsFigure(rows.slice(0, MAX_DOMAINS), agg.key)),
        domainTable(ctx, t, rows, agg, null)),
      section(nodesTitle(ctx, agg), h("div.controls", domainSelect(ctx, agg), filterBox(ctx, t, true)),
        nodes.length ? ctx.plot("totals", stackedTotalsFigure(t, nodes)) : note("No node matches."),
        h("details.data-table", { open: nodes.length <= 12 }, h("summary", "Numbers"),
          table(["node", agg.key, "total"], nodes.map((n) => [mark(t, n), domainOf(ctx, n, agg.key), String(t.totals[n] ?? "")]), "totals-table"))),
    ];
  }
  const nodes = visibleNodes(t, ctx.ui.nodeFilter);
  const chart = nodes.length ? ctx.plot("totals", stackedTotalsFigure(t, nodes)) : null;
  const skipped = ctx.explanation?.scoring?.skipped;
  return [
    outcomeSection,
    skipped ? h("p.skipped-notice", h("span.badge.skip", `${SKIP} Skipped`), " ", ctx.explanation.scoring.sentence) : null,
    section(skipped ? "Total scores (SchedLab's, for the trace only)" : "Total scores", h("div.controls", filterBox(ctx, t)), nodes.length ? chart : note("No node was scored."),
      t.nodes.length > nodes.length ? note(`Showing ${nodes.length} of ${t.nodes.length} nodes (highest totals first).`) : null,
      h("details.data-table", { open: nodes.length <= 12 }, h("summary", "Numbers"),
        table(["node", "total"], nodes.map((n) => [mark(t, n), String(t.totals[n] ?? "")]), "totals-table"))),
  ];
}

/** The winner against the runner-up, plugin by plugin (the engine's explanation, as a table). */
function marginTable(winner) {
  if (!winner?.runnerUp) return null;
  const sign = (d) => (d > 0 ? `+${d}` : String(d));
  return h("details.data-table.margins", { open: true },
    h("summary", `${winner.node} against ${winner.runnerUp}, per plugin (weighted)`),
    table(["plugin", "weight", `★ ${winner.node}`, winner.runnerUp, "difference"],
      [...winner.plugins.map((p) => [p.plugin, `×${p.weight}`, String(p.winner), String(p.runnerUp), sign(p.difference)]),
        ["total", "", String(winner.total), String(winner.runnerUpTotal), sign(winner.margin)]], "margin-table"));
}

function kindNote(kind) {
  if (kind === "weighted") return note("Weighted scores add up to each node's total.");
  return note(`${kind === "raw" ? "Raw" : "Normalized"} scores are on each plugin's own scale and do not add up to the total; switch to weighted for the numbers that do.`);
}

// --- large clusters: per domain ----------------------------------------------------------------

/** null for small clusters (or without node labels); else the grouping and its key control. */
function aggregation(ctx, t) {
  if (t.nodes.length <= LARGE || !ctx.nodeLabels.size) return null;
  const keys = labelKeys(ctx.nodeLabels);
  const key = keys.includes(ctx.ui.groupKey) ? ctx.ui.groupKey : defaultTopologyKey(keys);
  const groups = groupByDomain(t.nodes, ctx.nodeLabels, key);
  const keyControl = keySelect("score-group-key", "group by", keys, key, (k) => ctx.update({ groupKey: k, scoreDomain: "" }));
  const domain = groups.has(ctx.ui.scoreDomain) ? ctx.ui.scoreDomain : "";
  return { key, groups, keyControl, domain };
}

function domainRows(t, kind, agg) {
  // Highest total first: the chosen node's domain leads, the weakest domains go last (and beyond
  // MAX_DOMAINS, e.g. grouped by hostname, they are listed but not drawn).
  return domainScores(t, kind, agg.groups).sort((a, b) => (b.total.max ?? -Infinity) - (a.total.max ?? -Infinity));
}

function renderScoresByDomain(ctx, t, kind, switcher, agg) {
  const stat = STAT_NAMES.includes(ctx.ui.scoreStat) ? ctx.ui.scoreStat : "max";
  const statSwitch = h("div.segmented", { role: "radiogroup", "aria-label": "per-domain statistic" },
    STAT_NAMES.map((s) => h("label", h("input", { type: "radio", name: "score-stat", value: s, checked: s === stat, onchange: () => ctx.update({ scoreStat: s }) }), ` ${s}`)));
  const rows = domainRows(t, kind, agg);
  const drawn = rows.slice(0, MAX_DOMAINS);
  const nodes = drillNodes(ctx, t, agg);
  return [
    section(`Scores per ${agg.key}: domain × plugin`, h("div.controls", switcher, statSwitch, agg.keyControl),
      note(`${t.nodes.length} scored nodes in ${agg.groups.size} domain(s). Each cell is the ${stat} ${kind} score over the domain's nodes (the engine's numbers; ★ the domain of the chosen node). Open a domain below to see its nodes.`),
      ctx.plot("scores-domains", domainScoresFigure(drawn, t.plugins, kind, stat, agg.key, t.weights)),
      rows.length > drawn.length ? note(`Drawing the ${drawn.length} domains with the highest totals of ${rows.length}; all are in the table.`) : null,
      domainTable(ctx, t, rows, agg, kind)),
    section(nodesTitle(ctx, agg), h("div.controls", domainSelect(ctx, agg), filterBox(ctx, t, true)),
      note("★ chosen node, = tied for the highest total. Weighted = normalized × the plugin's weight."),
      nodes.length ? ctx.plot("scores-heatmap", scoresFigure(t, kind, nodes)) : note("No node matches."),
      nodeScoreTable(t, kind, nodes, ctx, agg.key)),
    Object.keys(t.totals).length ? section(`Total scores per ${agg.key}`,
      ctx.plot("score-totals-domains", domainTotalsFigure(drawn, agg.key)),
      nodes.length ? ctx.plot("score-totals", stackedTotalsFigure(t, nodes)) : null) : null,
  ];
}

/** The nodes under the domain summary: the best overall, or the opened domain's best; name filter. */
function drillNodes(ctx, t, agg) {
  let nodes = agg.domain ? agg.groups.get(agg.domain) : t.nodes;
  if (ctx.ui.nodeFilter) nodes = nodes.filter((n) => n.includes(ctx.ui.nodeFilter));
  return topNodes(t, nodes, agg.domain || ctx.ui.nodeFilter ? MAX_ROWS : TOP_NODES);
}

function nodesTitle(ctx, agg) {
  if (agg.domain) return `Nodes in ${agg.key}=${agg.domain} (highest totals first)`;
  return `Best nodes (highest totals)${ctx.ui.nodeFilter ? ` matching “${ctx.ui.nodeFilter}”` : ""}`;
}

function domainSelect(ctx, agg) {
  return h("label.inline", "nodes of ",
    h("select#score-domain", { onchange: (e) => ctx.update({ scoreDomain: e.target.value }) },
      h("option", { value: "", selected: !agg.domain }, `every ${agg.key} (best ${TOP_NODES})`),
      [...agg.groups].map(([d, nodes]) => h("option", { value: d, selected: d === agg.domain }, `${d} (${nodes.length})`))));
}

/** Numbers per domain: node count, per plugin max / median (kind), and the totals. kind null: totals only. */
function domainTable(ctx, t, rows, agg, kind) {
  const open = (domain) => h("button.linkish", { type: "button", "aria-pressed": String(domain === agg.domain), onclick: () => ctx.update({ scoreDomain: domain === agg.domain ? "" : domain }) },
    `${domain === agg.domain ? "▾" : "▸"} ${domain}`);
  const pluginHeads = kind ? t.plugins.map((p) => `${p} max / median`) : [];
  const cells = (r) => [
    open(r.domain), String(r.nodes.length),
    ...(kind ? t.plugins.map((p) => `${r.plugins[p].max ?? ""} / ${r.plugins[p].median ?? ""}`) : []),
    `${r.total.max ?? ""} / ${r.total.median ?? ""}`, r.best ? mark(t, r.best) : "",
  ];
  return h("details.data-table", { open: rows.length <= 12 }, h("summary", `Numbers per ${agg.key} (${rows.length})`),
    h("div.scroll-x", table([agg.key, "nodes", ...pluginHeads, "total max / median", "best node"], rows.slice(0, 500).map(cells), "score-domain-table")),
    rows.length > 500 ? note(`… ${rows.length - 500} more domains`) : null);
}

function domainOf(ctx, node, key) {
  return ctx.nodeLabels.get(node)?.[key] ?? "";
}

// --- shared ----------------------------------------------------------------------------------

function nodeScoreTable(t, kind, nodes, ctx = null, key = "") {
  const withDomain = Boolean(ctx && key);
  return h("details.data-table", { open: nodes.length * t.plugins.length <= 40 }, h("summary", "Numbers"),
    table(["node", ...(withDomain ? [key] : []), ...t.plugins.map((p) => (t.weights[p] === null ? p : `${p} (×${t.weights[p]})`)), "total"],
      nodes.map((n) => [mark(t, n), ...(withDomain ? [domainOf(ctx, n, key)] : []), ...t.plugins.map((p) => String(t.value(p, n, kind) ?? "")), String(t.totals[n] ?? "")]), "scores-table"));
}

function tieText(ties) {
  return ties.length > 12 ? `${ties.slice(0, 12).join(", ")} and ${ties.length - 12} more` : ties.join(", ");
}

function mark(t, node) {
  if (node === t.chosen) return `★ ${node}`;
  if (t.ties.includes(node)) return `= ${node}`;
  return node;
}

/** Small clusters: all nodes in document order. Large: highest totals first, chosen always shown. */
function visibleNodes(t, filterText) {
  let nodes = t.nodes;
  if (filterText) nodes = nodes.filter((n) => n.includes(filterText));
  if (nodes.length <= MAX_ROWS) return nodes;
  return topNodes(t, nodes, MAX_ROWS);
}

function filterBox(ctx, t, always = false) {
  if (!always && t.nodes.length <= MAX_ROWS && !ctx.ui.nodeFilter) return null;
  return h("label.inline", "node name contains ",
    h("input", { type: "search", value: ctx.ui.nodeFilter || "", onchange: (e) => ctx.update({ nodeFilter: e.target.value }) }));
}
