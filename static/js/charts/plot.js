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

// Plotly (~5 MB) is not a blocking <script>: evaluating it takes a second or more on a slow
// machine, and the step's tables should not wait for it. The page names it (data-plotly-src on
// <main>, preloaded); the first chart inserts the script, and charts asked for meanwhile are drawn
// (latest figure per element) once it has run.
let loading = null;
const waiting = new Map(); // el -> () => draw

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!loading) {
    const src = document.querySelector("main")?.dataset.plotlySrc;
    loading = new Promise((resolve, reject) => {
      if (!src) {
        reject(new Error("no Plotly source on this page"));
        return;
      }
      const script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.addEventListener("load", () => (window.Plotly ? resolve(window.Plotly) : reject(new Error("Plotly did not define itself"))));
      script.addEventListener("error", () => reject(new Error("vendor/plotly.min.js did not load")));
      // After the next frame is painted: the step's text and tables show before Plotly's long evaluation.
      requestAnimationFrame(() => setTimeout(() => document.head.append(script), 0));
    });
  }
  return loading;
}

/** Draw (or update in place) a chart; uirevision keeps zoom/pan while the data changes. */
export function draw(el, data, layout, revision) {
  const Plotly = window.Plotly;
  if (!Plotly) {
    const first = !waiting.size;
    waiting.set(el, () => draw(el, data, layout, revision));
    if (!el.hasChildNodes()) el.append(Object.assign(document.createElement("p"), { className: "note chart-loading", textContent: "Drawing the chart…" }));
    if (first) {
      loadPlotly().then(() => {
        const pending = [...waiting];
        waiting.clear();
        for (const [target, drawNow] of pending) if (target.isConnected) drawNow(); // others redraw when shown
        performance.mark("charts-drawn");
      }, () => {
        for (const target of waiting.keys()) target.textContent = "Charts need vendor/plotly.min.js, which did not load.";
        waiting.clear();
      });
    }
    return;
  }
  el.querySelector(":scope > .chart-loading")?.remove();
  Plotly.react(el, data, { ...BASE_LAYOUT, ...layout, uirevision: revision }, CONFIG);
}

export function purge(el) {
  waiting.delete(el);
  window.Plotly?.purge(el);
}
