// Generic labelled heatmap (InterPodAffinity topologyScore, its required-term counts, scores).

import { bottomAxis, leftMargin, safe, textWidth } from "./plot.js";

const MAX_TEXT_CELLS = 600;
const MAX_TEXT_COLUMNS = 40;
const RESPONSIVE_WIDTH = 900; // a chart without a width of its own fills about this much of the page
const COLORBAR_SPACE = 70; // the colour bar, its padding and ticks, beside its labels' width

/**
 * rows/cols: label arrays; z[r][c]: a number or null (absent). Every cell prints its number
 * when the grid is small enough to read.
 */
export function heatmapFigure({ rows, cols, z, title, rowTitle, colTitle, diverging = false, highlightRows = new Map(), height }) {
  const cells = rows.length * cols.length;
  const values = z.flat().filter((v) => v !== null && v !== undefined);
  const extreme = Math.max(1, ...values.map(Math.abs));
  const rowLabels = rows.map((r) => (highlightRows.has(r) ? `${highlightRows.get(r)} ${r}` : r));
  const zmin = diverging ? -extreme : Math.min(0, ...values);
  const zmax = diverging ? extreme : Math.max(1, ...values);
  const width = cols.length <= 6 ? 380 + 130 * cols.length : undefined; // few columns: no stretched cells
  const left = leftMargin(rowLabels, Boolean(rowTitle));
  const right = 20 + COLORBAR_SPACE + textWidth([zmin, zmax]);
  const bottom = bottomAxis(cols, (width ?? RESPONSIVE_WIDTH) - left - right, Boolean(colTitle));
  const trace = {
    type: "heatmap",
    x: cols.map(safe),
    y: rowLabels.map(safe),
    z,
    xgap: 2,
    ygap: 2,
    hoverongaps: false,
    colorscale: diverging
      ? [[0, "#b71c1c"], [0.5, "#f5f5f5"], [1, "#1b5e20"]]
      : [[0, "#f3f6fb"], [1, "#283593"]],
    zmin,
    zmax,
    hovertemplate: `${safe(rowTitle)} %{y}<br>${safe(colTitle)} %{x}<br>value %{z}<extra></extra>`,
    showscale: true,
    colorbar: { thickness: 12 },
  };
  if (cells <= MAX_TEXT_CELLS && cols.length <= MAX_TEXT_COLUMNS) {
    trace.texttemplate = "%{z}";
    trace.textfont = { size: 12 };
  }
  return {
    data: [trace],
    layout: {
      title: { text: safe(title), font: { size: 13 } },
      xaxis: { type: "category", title: { text: safe(colTitle) }, side: "bottom", automargin: true, tickangle: bottom.tickangle },
      yaxis: { type: "category", title: { text: safe(rowTitle) }, autorange: "reversed", automargin: true },
      margin: { l: left, r: right, t: 36, b: bottom.margin },
      height: (height ?? Math.min(900, Math.max(200, 60 + rows.length * 28))) + bottom.margin - 60,
      width,
    },
  };
}

/**
 * {key: {value: n}} -> rows = keys, cols = union of values (sorted), z with null where absent.
 * With more than maxCols values, each key keeps an equal share: its values of largest magnitude.
 */
export function nestedToGrid(nested, maxCols = Infinity) {
  const rows = Object.keys(nested || {}).sort();
  const share = Math.max(1, Math.floor(maxCols / Math.max(1, rows.length)));
  const pick = (r) => {
    const entries = Object.entries(nested[r] || {});
    if (entries.length <= share || !Number.isFinite(maxCols)) return entries.map(([v]) => v);
    return entries.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, share).map(([v]) => v);
  };
  const cols = [...new Set(rows.flatMap(pick))].sort();
  const z = rows.map((r) => cols.map((c) => nested[r]?.[c] ?? null));
  return { rows, cols, z };
}
