// Score views: nodes × plugins heatmap (raw / normalized / weighted) and total-score bars.
// Every number is the engine's (Score, NormalizeScore and Total events); nothing is recomputed.

import { heatmapFigure } from "./heatmap.js";
import { COLORS, leftMargin, safe } from "./plot.js";

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

const PLUGIN_COLORS = ["#3949ab", "#00897b", "#f4511e", "#8e24aa", "#c0ca33", "#6d4c41", "#039be5", "#d81b60", "#7cb342", "#546e7a"];

/**
 * Totals as stacked bars: each plugin's weighted score (the engine's NormalizeScore `weighted`) is
 * one segment, so the bar's length is the total the engine reports; the total itself is printed at
 * the end of each bar from the Total event. Plugins that gave every drawn node 0 are left out.
 */
export function stackedTotalsFigure(table, nodes) {
  const ties = new Set(table.ties);
  const plugins = table.plugins.filter((p) => nodes.some((n) => (table.value(p, n, "weighted") ?? 0) !== 0));
  const data = plugins.map((p, i) => ({
    type: "bar",
    orientation: "h",
    name: safe(table.weights[p] === null ? p : `${p} ×${table.weights[p]}`),
    y: nodes.map(safe),
    x: nodes.map((n) => table.value(p, n, "weighted")),
    marker: { color: PLUGIN_COLORS[i % PLUGIN_COLORS.length] },
    hovertemplate: `%{y} · ${safe(p)}: %{x} weighted<extra></extra>`,
  }));
  const mark = (n) => (n === table.chosen ? " ★ chosen" : ties.has(n) ? " = tie" : "");
  const annotations = nodes.map((n) => ({
    x: table.totals[n] ?? 0, y: safe(n), xanchor: "left", xshift: 4, showarrow: false,
    text: safe(`${table.totals[n] ?? ""}${mark(n)}`), font: { size: 11, color: n === table.chosen ? COLORS.chosen : "#1c2230" },
  }));
  return {
    data,
    layout: {
      title: { text: "total score = the sum of each plugin's weighted score", font: { size: 13 } },
      barmode: "stack",
      yaxis: { type: "category", autorange: "reversed", automargin: true },
      xaxis: { title: { text: "weighted score" }, rangemode: "tozero" },
      annotations,
      height: Math.min(1400, Math.max(220, 90 + nodes.length * 28)),
      margin: { l: leftMargin(nodes, false, 80), r: 110, t: 36, b: 40 },
      legend: { orientation: "h", y: -0.12, yanchor: "top" },
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
  const labels = rows.map((r) => `${r.chosen ? "★ " : ""}${label(r)}`);
  const y = labels.map(safe);
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
      margin: { l: leftMargin(labels, false, 80), r: 160, t: 36, b: 40 },
      legend: { orientation: "h", y: -0.2 },
    },
  };
}
