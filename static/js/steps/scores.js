// Score / NormalizeScore / Total: nodes × plugins heatmap with a raw/normalized/weighted switch,
// total-score bars with the chosen node and ties marked. Large clusters show the best nodes first.

import { h } from "../dom.js";
import { SCORE_KINDS, scoresFigure, totalsFigure } from "../charts/scores.js";
import { scoreTable } from "../runmodel.js";
import { note, outcomeBanner, section, table } from "./common.js";

const MAX_ROWS = 60;

export function renderScores(ctx, defaultKind) {
  const t = scoreTable(ctx.cycle);
  if (!t.plugins.length) return [section("Scores", note("No score plugin ran in this cycle (no feasible node)."))];
  const kind = SCORE_KINDS.includes(ctx.ui.scoreKind) ? ctx.ui.scoreKind : defaultKind;
  const nodes = visibleNodes(t, ctx.ui.nodeFilter);
  const switcher = h("div.segmented", { role: "radiogroup", "aria-label": "score kind" },
    SCORE_KINDS.map((k) => h("label", h("input", { type: "radio", name: "score-kind", value: k, checked: k === kind, onchange: () => ctx.update({ scoreKind: k }) }), ` ${k}`)));
  const chart = ctx.plot("scores-heatmap", scoresFigure(t, kind, nodes));
  return [
    section("Scores: node × plugin", h("div.controls", switcher, filterBox(ctx, t)),
      note("★ chosen node, = tied for the highest total. Weighted = normalized × the plugin's weight."),
      chart,
      t.nodes.length > nodes.length ? note(`Showing ${nodes.length} of ${t.nodes.length} nodes (highest totals first; use the filter to find one).`) : null,
      h("details.data-table", { open: nodes.length * t.plugins.length <= 40 }, h("summary", "Numbers"),
        table(["node", ...t.plugins.map((p) => (t.weights[p] === null ? p : `${p} (×${t.weights[p]})`)), "total"],
          nodes.map((n) => [mark(t, n), ...t.plugins.map((p) => String(t.value(p, n, kind) ?? "")), String(t.totals[n] ?? "")]), "scores-table"))),
    Object.keys(t.totals).length ? section("Total scores", ctx.plot("score-totals", totalsFigure(t, nodes))) : null,
  ];
}

export function renderTotal(ctx) {
  const t = scoreTable(ctx.cycle);
  const nodes = visibleNodes(t, ctx.ui.nodeFilter);
  const chart = nodes.length ? ctx.plot("totals", totalsFigure(t, nodes)) : null;
  return [
    section("Outcome", outcomeBanner(ctx.cycle),
      t.ties.length > 1 ? note(`Tie between ${t.ties.join(", ")}: the first in the document order of the Node objects is chosen.`) : null,
      t.error ? note(`Error: ${t.error}`) : null),
    section("Total scores", h("div.controls", filterBox(ctx, t)), nodes.length ? chart : note("No node was scored."),
      t.nodes.length > nodes.length ? note(`Showing ${nodes.length} of ${t.nodes.length} nodes (highest totals first).`) : null,
      h("details.data-table", { open: nodes.length <= 12 }, h("summary", "Numbers"),
        table(["node", "total"], nodes.map((n) => [mark(t, n), String(t.totals[n] ?? "")]), "totals-table"))),
  ];
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
  const ranked = [...nodes].sort((a, b) => (t.totals[b] ?? -Infinity) - (t.totals[a] ?? -Infinity));
  return ranked.slice(0, MAX_ROWS);
}

function filterBox(ctx, t) {
  if (t.nodes.length <= MAX_ROWS && !ctx.ui.nodeFilter) return null;
  return h("label.inline", "node name contains ",
    h("input", { type: "search", value: ctx.ui.nodeFilter || "", onchange: (e) => ctx.update({ nodeFilter: e.target.value }) }));
}
