// Pure: group a step's nodes by a topology domain and summarize the engine's numbers per domain
// (count, max, median). Nothing here is a score: max and median are read off the engine's values.

export const NO_LABEL = "(no label)";

/** Map(domain -> [node, ...]) keeping the nodes' order; domains in sorted order. */
export function groupByDomain(nodes, nodeLabels, key) {
  const groups = new Map();
  for (const node of nodes) {
    const name = typeof node === "string" ? node : node.name;
    const domain = nodeLabels.get(name)?.[key] ?? NO_LABEL;
    if (!groups.has(domain)) groups.set(domain, []);
    groups.get(domain).push(node);
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}

export function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function max(values) {
  let best = null;
  for (const x of values) if (typeof x === "number" && Number.isFinite(x) && (best === null || x > best)) best = x;
  return best;
}

export const STATS = Object.freeze({ max, median });

/**
 * Per domain: {domain, nodes, plugins: {plugin: {max, median}}, total: {max, median}, best (node with
 * the highest total, document order on ties), chosen (the domain holds the chosen node)}.
 * t: runmodel.scoreTable; value kind: raw | normalized | weighted.
 */
export function domainScores(t, kind, groups) {
  const out = [];
  for (const [domain, nodes] of groups) {
    const plugins = {};
    for (const p of t.plugins) {
      const values = nodes.map((n) => t.value(p, n, kind));
      plugins[p] = { max: max(values), median: median(values) };
    }
    const totals = nodes.map((n) => t.totals[n] ?? null);
    let best = null;
    for (const n of nodes) if (best === null || (t.totals[n] ?? -Infinity) > (t.totals[best] ?? -Infinity)) best = n;
    out.push({ domain, nodes, plugins, total: { max: max(totals), median: median(totals) }, best, chosen: t.chosen !== null && nodes.includes(t.chosen) });
  }
  return out;
}

/** The n nodes with the highest totals (stable: document order among equals); chosen always first. */
export function topNodes(t, nodes, n) {
  const ranked = [...nodes].sort((a, b) => (t.totals[b] ?? -Infinity) - (t.totals[a] ?? -Infinity));
  const top = ranked.slice(0, n);
  if (t.chosen && nodes.includes(t.chosen) && !top.includes(t.chosen)) top.splice(n - 1, 1, t.chosen);
  return top;
}
