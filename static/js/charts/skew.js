// PodTopologySpread charts. Hard constraints draw the engine's picture (PreFilter payload key
// `picture`): per domain the skew placing the pod there would make — matching pods + the pod
// itself − the global minimum, as the engine reports it — against maxSkew, coloured by THIS
// constraint's own verdict. Drawing the skew (not the raw counts) keeps 337 / 336 / 337 readable:
// the bars are 2 / 1 / 2 beside a line at 1. Soft constraints (and runs recorded before pictures)
// draw the counts per domain. Every number is the engine's; the browser adds none.

import { COLORS, safe } from "./plot.js";

const ALLOWED = "✓";
const REJECTED = "✗";

function verdictColor(domain) {
  return domain.allowed ? COLORS.pass : COLORS.fail;
}

function hoverText(constraint, d) {
  const self = constraint.selfMatch ? " + 1 (this pod)" : " (this pod does not match)";
  const counted = d.counted ? "" : " · not counted (its nodes are excluded by the inclusion policies)";
  return safe(`${d.value}: ${d.matchNum} matching pod(s)${self} − global minimum ${constraint.minMatchNum} = skew ${d.skew}` +
    ` · ${d.allowed ? "allowed" : "above"} maxSkew ${constraint.maxSkew}${counted}`);
}

/** One bar per domain: its skew with the pod, ✓ allowed / ✗ not by this constraint; maxSkew as a line. */
export function verdictFigure(constraint) {
  const domains = constraint.domains;
  const top = Math.max(1, constraint.maxSkew, ...domains.map((d) => d.skew));
  const bottom = Math.min(0, ...domains.map((d) => d.skew));
  return {
    data: [{
      type: "bar",
      x: domains.map((d) => safe(d.value)),
      y: domains.map((d) => d.skew),
      text: domains.map((d) => `${d.skew} ${d.allowed ? ALLOWED : REJECTED}`),
      textposition: "outside",
      cliponaxis: false,
      marker: { color: domains.map(verdictColor) },
      customdata: domains.map((d) => hoverText(constraint, d)),
      hovertemplate: "%{customdata}<extra></extra>",
      name: "skew with the pod",
    }],
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew} · global minimum ${constraint.minMatchNum}`), font: { size: 13 } },
      xaxis: { title: { text: safe(constraint.topologyKey) }, type: "category" },
      yaxis: { title: { text: "skew if the pod goes here" }, range: [bottom - 0.2, top * 1.3 + 0.5], dtick: top - bottom <= 10 ? 1 : undefined, zeroline: true },
      shapes: [hline(constraint.maxSkew, COLORS.line, "dash")],
      annotations: [lineLabel(constraint.maxSkew, `maxSkew ${constraint.maxSkew}`, COLORS.line)],
      showlegend: false,
      height: 280,
      width: domains.length <= 6 ? 360 + 110 * domains.length : undefined, // a few domains: no stretched bars
      margin: { l: 50, r: 110, t: 36, b: 60 },
    },
  };
}

/**
 * Many domains (hostname over thousands of nodes): one bar per skew value, its height the number of
 * domains with that skew, stacked ✓ allowed / ✗ not allowed; maxSkew as a vertical line. The groups
 * are read off the engine's per-domain skews and verdicts.
 */
export function verdictDistributionFigure(constraint) {
  const bySkew = new Map(); // skew -> {allowed, rejected}
  for (const d of constraint.domains) {
    if (!bySkew.has(d.skew)) bySkew.set(d.skew, { allowed: 0, rejected: 0 });
    bySkew.get(d.skew)[d.allowed ? "allowed" : "rejected"] += 1;
  }
  const skews = [...bySkew.keys()].sort((a, b) => a - b);
  const series = [["allowed", `${ALLOWED} allowed`, COLORS.pass], ["rejected", `${REJECTED} above maxSkew`, COLORS.fail]]
    .filter(([k]) => skews.some((v) => bySkew.get(v)[k] > 0));
  return {
    data: series.map(([k, name, color]) => ({
      type: "bar",
      name,
      x: skews,
      y: skews.map((v) => bySkew.get(v)[k]),
      text: skews.map((v) => (bySkew.get(v)[k] ? String(bySkew.get(v)[k]) : "")),
      textposition: "outside",
      cliponaxis: false,
      marker: { color },
      hovertemplate: `%{y} domain(s) where the pod would make skew %{x} · ${name}<extra></extra>`,
    })),
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew} · ${constraint.domains.length} domains by the skew the pod would make`), font: { size: 13 } },
      xaxis: { title: { text: "skew if the pod goes to the domain" }, dtick: skews.length && skews[skews.length - 1] - skews[0] <= 20 ? 1 : undefined },
      yaxis: { title: { text: "domains" }, rangemode: "tozero" },
      barmode: "stack",
      shapes: [vline(constraint.maxSkew, COLORS.line, "dash")],
      annotations: [{ x: constraint.maxSkew, y: 1, yref: "paper", yanchor: "bottom", text: safe(`maxSkew ${constraint.maxSkew}`), showarrow: false, font: { color: COLORS.line, size: 11 } }],
      height: 300,
      margin: { l: 60, r: 30, t: 56, b: 50 },
      legend: { orientation: "h", y: -0.25 },
    },
  };
}

/** Counts per domain (soft constraints' counts, or a hard constraint's matchNum without a picture). */
export function countsFigure(constraint) {
  const counts = constraint.matchNum ?? constraint.counts ?? {};
  const domains = Object.keys(counts).sort();
  const hasMinimum = constraint.minMatchNum !== undefined;
  const top = Math.max(1, ...domains.map((d) => counts[d]));
  return {
    data: [{
      type: "bar",
      x: domains.map(safe),
      y: domains.map((d) => counts[d]),
      text: domains.map((d) => String(counts[d])),
      textposition: "outside",
      cliponaxis: false,
      marker: { color: COLORS.unknown },
      hovertemplate: "%{x}: %{y} matching pod(s)<extra></extra>",
      name: "matching pods",
    }],
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew}`), font: { size: 13 } },
      xaxis: { title: { text: safe(constraint.topologyKey) }, type: "category" },
      yaxis: { title: { text: "matching pods" }, range: [0, top * 1.25 + 0.5], dtick: top <= 10 ? 1 : undefined },
      shapes: hasMinimum ? [hline(constraint.minMatchNum, COLORS.min, "dot")] : [],
      annotations: hasMinimum ? [lineLabel(constraint.minMatchNum, `global minimum ${constraint.minMatchNum}`, COLORS.min)] : [],
      showlegend: false,
      height: 280,
      width: domains.length <= 6 ? 360 + 110 * domains.length : undefined,
      margin: { l: 50, r: 150, t: 36, b: 60 },
    },
  };
}

/** Many domains without verdicts: one bar per matching-pod count, its height the number of domains. */
export function countsDistributionFigure(constraint) {
  const counts = constraint.matchNum ?? constraint.counts ?? {};
  const byValue = new Map();
  for (const n of Object.values(counts)) byValue.set(n, (byValue.get(n) || 0) + 1);
  const values = [...byValue.keys()].sort((a, b) => a - b);
  return {
    data: [{
      type: "bar",
      name: "domains",
      x: values,
      y: values.map((v) => byValue.get(v)),
      text: values.map((v) => String(byValue.get(v))),
      textposition: "outside",
      cliponaxis: false,
      marker: { color: COLORS.unknown },
      hovertemplate: "%{y} domain(s) with %{x} matching pod(s)<extra></extra>",
    }],
    layout: {
      title: { text: safe(`${constraint.topologyKey} · maxSkew ${constraint.maxSkew} · ${Object.keys(counts).length} domains by matching-pod count`), font: { size: 13 } },
      xaxis: { title: { text: "matching pods in the domain" }, dtick: values.length && values[values.length - 1] - values[0] <= 20 ? 1 : undefined },
      yaxis: { title: { text: "domains" }, rangemode: "tozero" },
      height: 300,
      margin: { l: 60, r: 30, t: 56, b: 50 },
      showlegend: false,
    },
  };
}

function hline(y, color, dash) {
  return { type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y, line: { color, width: 2, dash } };
}

function lineLabel(y, text, color, yshift = 0) {
  return { xref: "paper", x: 1, xanchor: "left", y, yanchor: "middle", yshift, text: safe(text), showarrow: false, font: { color, size: 11 } };
}

function vline(x, color, dash) {
  return { type: "line", yref: "paper", y0: 0, y1: 1, x0: x, x1: x, line: { color, width: 2, dash } };
}
