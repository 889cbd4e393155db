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
      // The two lines can be a pixel apart (large counts): their labels move apart instead.
      lineLabel(constraint.minMatchNum, `global minimum ${constraint.minMatchNum}`, COLORS.min, -7),
      lineLabel(threshold, `min + maxSkew = ${threshold}`, COLORS.line, 7),
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

function lineLabel(y, text, color, yshift = 0) {
  return { xref: "paper", x: 1, xanchor: "left", y, yanchor: "middle", yshift, text: safe(text), showarrow: false, font: { color, size: 11 } };
}

/**
 * Many domains (e.g. kubernetes.io/hostname over thousands of nodes): one bar per matching-pod
 * count, its height the number of domains with that count, split into open (✓) / closed (✗) /
 * unknown domains; the global minimum and min + maxSkew as vertical lines (hard constraints).
 */
export function skewDistributionFigure(constraint, mayGo = new Map()) {
  const counts = constraint.matchNum ?? constraint.counts ?? {};
  const byValue = new Map(); // count -> {open, closed, unknown}
  for (const [domain, n] of Object.entries(counts)) {
    if (!byValue.has(n)) byValue.set(n, { open: 0, closed: 0, unknown: 0 });
    const slot = byValue.get(n);
    if (!mayGo.has(domain)) slot.unknown += 1;
    else if (mayGo.get(domain)) slot.open += 1;
    else slot.closed += 1;
  }
  const values = [...byValue.keys()].sort((a, b) => a - b);
  const series = [
    ["open", "✓ pod may go", COLORS.pass],
    ["closed", "✗ closed", COLORS.fail],
    ["unknown", "not evaluated", COLORS.unknown],
  ].filter(([k]) => values.some((v) => byValue.get(v)[k] > 0));
  const data = series.map(([k, name, color]) => ({
    type: "bar",
    name,
    x: values,
    y: values.map((v) => byValue.get(v)[k]),
    text: values.map((v) => (byValue.get(v)[k] ? String(byValue.get(v)[k]) : "")),
    textposition: "outside",
    cliponaxis: false,
    marker: { color },
    hovertemplate: `%{y} domain(s) with %{x} matching pod(s) · ${name}<extra></extra>`,
  }));
  const shapes = [];
  const annotations = [];
  if (constraint.minMatchNum !== undefined) {
    const threshold = constraint.minMatchNum + constraint.maxSkew;
    shapes.push(vline(constraint.minMatchNum, COLORS.min, "dot"), vline(threshold, COLORS.line, "dash"));
    annotations.push(
      { x: constraint.minMatchNum, y: 1, yref: "paper", yanchor: "bottom", text: safe(`min ${constraint.minMatchNum}`), showarrow: false, font: { color: COLORS.min, size: 11 } },
      { x: threshold, y: 1.08, yref: "paper", yanchor: "bottom", text: safe(`min + maxSkew = ${threshold}`), showarrow: false, font: { color: COLORS.line, size: 11 } },
    );
  }
  return {
    data,
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew} · ${Object.keys(counts).length} domains by matching-pod count`), font: { size: 13 } },
      xaxis: { title: { text: "matching pods in the domain" }, dtick: values.length && values[values.length - 1] - values[0] <= 20 ? 1 : undefined },
      yaxis: { title: { text: "domains" }, rangemode: "tozero" },
      barmode: "stack",
      shapes,
      annotations,
      height: 300,
      margin: { l: 60, r: 30, t: 56, b: 50 },
      legend: { orientation: "h", y: -0.25 },
    },
  };
}

function vline(x, color, dash) {
  return { type: "line", yref: "paper", y0: 0, y1: 1, x0: x, x1: x, line: { color, width: 2, dash } };
}
