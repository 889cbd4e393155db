// Drawing through Plotly.react with a stable uirevision, and escaping for Plotly's text.
//
// Plotly reads a small HTML subset (<b>, <br>, <a href>, entities) in tick labels, hover text and
// annotations. Names, labels and values from a scenario are untrusted, so every string that
// reaches Plotly goes through safe(): it turns & < > " into entities, which Plotly shows as the
// literal characters (as text nodes), so no markup in the data is ever interpreted.

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function safe(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export const COLORS = Object.freeze({
  pass: "#2e7d32",
  fail: "#9e9e9e",
  unknown: "#1565c0",
  chosen: "#e65100",
  tie: "#f9a825",
  bar: "#5c6bc0",
  line: "#c62828",
  min: "#37474f",
});

const BASE_LAYOUT = {
  margin: { l: 60, r: 20, t: 36, b: 60 },
  font: { family: "system-ui, sans-serif", size: 12 },
  paper_bgcolor: "rgba(0,0,0,0)",
  plot_bgcolor: "rgba(0,0,0,0)",
  hoverlabel: { namelength: -1 },
};

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"] };

/** Draw (or update in place) a chart; uirevision keeps zoom/pan while the data changes. */
export function draw(el, data, layout, revision) {
  const Plotly = window.Plotly;
  if (!Plotly) {
    el.textContent = "Charts need vendor/plotly.min.js, which did not load.";
    return;
  }
  Plotly.react(el, data, { ...BASE_LAYOUT, ...layout, uirevision: revision }, CONFIG);
}

export function purge(el) {
  window.Plotly?.purge(el);
}
