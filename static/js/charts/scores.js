// Score views: nodes × plugins heatmap (raw / normalized / weighted) and total-score bars.
// Every number is the engine's (Score, NormalizeScore and Total events); nothing is recomputed.

import { heatmapFigure } from "./heatmap.js";
import { COLORS, safe } from "./plot.js";

export const SCORE_KINDS = Object.freeze(["raw", "normalized", "weighted"]);

/** nodes: the rows to show (already limited/ordered by the caller). */
export function scoresFigure(table, kind, nodes) {
  const marks = new Map();
  for (const n of table.ties) marks.set(n, "=");
  if (table.chosen) marks.set(table.chosen, "★");
  const cols = table.plugins.map((p) => (kind === "weighted" && table.weights[p] !== null ? `${p} ×${table.weights[p]}` : p));
  return heatmapFigure({
    rows: nodes,
    cols,
    z: nodes.map((n) => table.plugins.map((p) => table.value(p, n, kind))),
    title: `${kind} score per node and plugin`,
    rowTitle: "node",
    colTitle: "plugin",
    highlightRows: marks,
  });
}

export function totalsFigure(table, nodes) {
  const ties = new Set(table.ties);
  const color = (n) => (n === table.chosen ? COLORS.chosen : ties.has(n) ? COLORS.tie : COLORS.bar);
  const label = (n) => (n === table.chosen ? "★ chosen" : ties.has(n) ? "= tie" : "");
  return {
    data: [
      {
        type: "bar",
        orientation: "h",
        y: nodes.map(safe),
        x: nodes.map((n) => table.totals[n] ?? null),
        text: nodes.map((n) => `${table.totals[n] ?? ""} ${label(n)}`.trim()),
        textposition: "outside",
        cliponaxis: false,
        marker: { color: nodes.map(color), line: { color: nodes.map((n) => (ties.has(n) ? "#000" : "rgba(0,0,0,0)")), width: 1.5 } },
        hovertemplate: "%{y}: total %{x}<extra></extra>",
      },
    ],
    layout: {
      title: { text: "total score (sum of weighted scores)", font: { size: 13 } },
      yaxis: { type: "category", autorange: "reversed", automargin: true },
      xaxis: { title: { text: "total" }, rangemode: "tozero" },
      height: Math.min(1200, Math.max(200, 60 + nodes.length * 24)),
      margin: { l: 80, r: 90, t: 36, b: 40 },
      showlegend: false,
    },
  };
}

/**
 * Domains × plugins heatmap of a per-domain statistic (max or median) of the engine's values.
 * rows: domainScores() entries; ★ marks the chosen node's domain.
 */
export function domainScoresFigure(rows, plugins, kind, stat, key, weights = {}) {
  const marks = new Map(rows.filter((r) => r.chosen).map((r) => [label(r), "★"]));
  const cols = plugins.map((p) => (kind === "weighted" && weights[p] !== null && weights[p] !== undefined ? `${p} ×${weights[p]}` : p));
  return heatmapFigure({
    rows: rows.map(label),
    cols,
    z: rows.map((r) => plugins.map((p) => r.plugins[p]?.[stat] ?? null)),
    title: `${stat} ${kind} score per ${key} and plugin`,
    rowTitle: key,
    colTitle: "plugin",
    highlightRows: marks,
  });
}

function label(row) {
  return `${row.domain} (${row.nodes.length})`;
}

/** Per domain: the highest total and the median total, side by side; ★ the chosen node's domain. */
export function domainTotalsFigure(rows, key) {
  const y = rows.map((r) => safe(`${r.chosen ? "★ " : ""}${label(r)}`));
  return {
    data: [
      {
        type: "bar", orientation: "h", name: "highest total", y, x: rows.map((r) => r.total.max),
        text: rows.map((r) => `${r.total.max ?? ""} (${safe(r.best ?? "")})`), textposition: "outside", cliponaxis: false,
        marker: { color: rows.map((r) => (r.chosen ? COLORS.chosen : COLORS.bar)) },
        hovertemplate: "%{y}: highest total %{x}<extra></extra>",
      },
      {
        type: "bar", orientation: "h", name: "median total", y, x: rows.map((r) => r.total.median),
        text: rows.map((r) => `median ${r.total.median ?? ""}`), textposition: "outside", cliponaxis: false,
        marker: { color: "#9fa8da" },
        hovertemplate: "%{y}: median total %{x}<extra></extra>",
      },
    ],
    layout: {
      title: { text: safe(`total score per ${key}: highest (its node) and median`), font: { size: 13 } },
      barmode: "group",
      yaxis: { type: "category", autorange: "reversed", automargin: true },
      xaxis: { title: { text: "total" }, rangemode: "tozero" },
      height: Math.min(1200, Math.max(220, 80 + rows.length * 48)),
      margin: { l: 80, r: 160, t: 36, b: 40 },
      legend: { orientation: "h", y: -0.2 },
    },
  };
}
