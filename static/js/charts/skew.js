// PodTopologySpread skew bars: one chart per hard constraint of preFilterState (or soft
// constraint of preScoreState). Numbers come from the engine's state; the browser adds nothing
// but the two reference lines the spec defines (the global minimum and minimum + maxSkew).

import { COLORS, safe } from "./plot.js";

/**
 * mayGo: Map(domain -> true|false) from the Filter's results (a domain is open when a node in it
 * passed PodTopologySpread's Filter); absent when unknown.
 */
export function skewFigure(constraint, mayGo = new Map()) {
  const counts = constraint.matchNum ?? constraint.counts ?? {};
  const domains = Object.keys(counts).sort();
  const symbol = (d) => (mayGo.has(d) ? (mayGo.get(d) ? "✓" : "✗") : "");
  const color = (d) => (mayGo.has(d) ? (mayGo.get(d) ? COLORS.pass : COLORS.fail) : COLORS.unknown);
  const bars = {
    type: "bar",
    x: domains.map(safe),
    y: domains.map((d) => counts[d]),
    text: domains.map((d) => `${counts[d]} ${symbol(d)}`.trim()),
    textposition: "outside",
    cliponaxis: false,
    marker: { color: domains.map(color) },
    hovertemplate: "%{x}: %{y} matching pod(s)<extra></extra>",
    name: "matching pods",
  };
  const shapes = [];
  const annotations = [];
  const hard = constraint.minMatchNum !== undefined;
  if (hard) {
    const threshold = constraint.minMatchNum + constraint.maxSkew;
    shapes.push(hline(constraint.minMatchNum, COLORS.min, "dot"), hline(threshold, COLORS.line, "dash"));
    annotations.push(
      lineLabel(constraint.minMatchNum, `global minimum ${constraint.minMatchNum}`, COLORS.min),
      lineLabel(threshold, `min + maxSkew = ${threshold}`, COLORS.line),
    );
  }
  const top = Math.max(1, ...domains.map((d) => counts[d]), hard ? constraint.minMatchNum + constraint.maxSkew : 0);
  return {
    data: [bars],
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew}`), font: { size: 13 } },
      xaxis: { title: { text: safe(constraint.topologyKey) }, type: "category" },
      yaxis: { title: { text: "matching pods" }, range: [0, top * 1.25 + 0.5], dtick: top <= 10 ? 1 : undefined },
      shapes,
      annotations,
      showlegend: false,
      height: 280,
      width: domains.length <= 6 ? 360 + 110 * domains.length : undefined, // a few domains: no stretched bars
      margin: { l: 50, r: 150, t: 36, b: 60 },
    },
  };
}

function hline(y, color, dash) {
  return { type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y, line: { color, width: 2, dash } };
}

function lineLabel(y, text, color) {
  return { xref: "paper", x: 1, xanchor: "left", y, yanchor: "middle", text: safe(text), showarrow: false, font: { color, size: 11 } };
}
