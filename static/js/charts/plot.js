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

// Plotly's automargin grows a margin to fit long tick labels by laying the chart out a second time
// (about half of a chart's drawing time). The figures below size their margins for their own
// labels first, measured with the font Plotly uses, so that pass is not needed; automargin stays on
// as the safety net should a measure fall short.
const FONT = "system-ui, sans-serif";
let measurer = null;

/** The widest of these texts in pixels at Plotly's font (the raw text, as shown: not escaped). */
export function textWidth(texts, size = 12) {
  measurer ??= document.createElement("canvas").getContext("2d");
  measurer.font = `${size}px ${FONT}`;
  let widest = 0;
  for (const text of texts) widest = Math.max(widest, measurer.measureText(String(text ?? "")).width);
  return Math.ceil(widest);
}

const TICK_GAP = 10; // tick label to plot area, and a little air
const TITLE_SPACE = 26; // an axis title's line and its standoff

/** Left margin for category labels on the y axis (and its title, if any). */
export function leftMargin(labels, titled = false, minimum = 60) {
  return Math.max(minimum, textWidth(labels) + TICK_GAP + (titled ? TITLE_SPACE : 0) + 6);
}

/**
 * Category labels under the x axis: horizontal when each fits its share of the plot's width, else
 * tilted by 30 degrees (what Plotly would pick); the bottom margin for them and the axis title.
 */
export function bottomAxis(labels, plotWidth, titled = false) {
  const widest = textWidth(labels);
  const share = plotWidth / Math.max(1, labels.length);
  const tilted = widest + 8 > share;
  const height = tilted ? Math.ceil(widest * 0.5 + 12 * 0.87) : 16;
  return { tickangle: tilted ? 30 : 0, margin: height + TICK_GAP + (titled ? TITLE_SPACE : 0) + 6 };
}

const BASE_LAYOUT = {
  margin: { l: 60, r: 20, t: 36, b: 60 },
  font: { family: FONT, size: 12 },
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
      loadPlotly().then((Plotly) => {
        const pending = [...waiting];
        waiting.clear();
        for (const [target, drawNow] of pending) if (target.isConnected) drawNow(); // others redraw when shown
        performance.mark("charts-drawn");
        warmUp(Plotly);
      }, () => {
        for (const target of waiting.keys()) target.textContent = "Charts need vendor/plotly.min.js, which did not load.";
        waiting.clear();
      });
    }
    return;
  }
  // A view is rebuilt whole when only its text changed (an explanation arrived, a table was
  // opened): the same figure again is not drawn again (Plotly.react would lay it out anew).
  const figure = JSON.stringify([data, layout, revision]);
  if (drawn.get(el) === figure && el.classList.contains("js-plotly-plot")) return;
  el.querySelector(":scope > .chart-loading")?.remove();
  Plotly.react(el, data, { ...BASE_LAYOUT, ...layout, uirevision: revision }, CONFIG);
  drawn.set(el, figure);
}

const drawn = new WeakMap(); // el -> the figure last drawn in it (as JSON)

// The first heatmap and the first bar chart a page draws take longer than later ones (Plotly's code
// for them runs for the first time). Once the page's first charts are drawn, one small chart of
// each kind is drawn off screen and dropped while the page is idle, so the first step change to a
// view of scores is as quick as later ones (60-100 ms less on a 2-core machine).
function warmUp(Plotly) {
  const whenIdle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 300));
  whenIdle(() => {
    const el = Object.assign(document.createElement("div"), { ariaHidden: "true" });
    el.style.cssText = "position:absolute;left:-10000px;top:0;width:600px;height:300px";
    document.body.append(el);
    const layout = { ...BASE_LAYOUT, xaxis: { type: "category", automargin: true }, yaxis: { type: "category", automargin: true } };
    Plotly.newPlot(el, [{ type: "heatmap", x: ["a", "b"], y: ["c", "d"], z: [[1, 2], [3, 4]], texttemplate: "%{z}", xgap: 2, ygap: 2, colorbar: { thickness: 12 } }],
      { ...layout, annotations: [{ x: "a", y: "c", text: "a", showarrow: false }] }, { displaylogo: false })
      .then(() => Plotly.newPlot(el, [{ type: "bar", orientation: "h", x: [1, 2], y: ["a", "b"], text: ["1", "2"], textposition: "outside" },
        { type: "bar", orientation: "h", x: [1, 1], y: ["a", "b"] }], { ...layout, barmode: "stack", legend: { orientation: "h" } }, { displaylogo: false }))
      .catch(() => {}) // only a warm-up: the real charts are drawn either way
      .finally(() => {
        Plotly.purge(el);
        el.remove();
      });
  }, { timeout: 2000 });
}

export function purge(el) {
  waiting.delete(el);
  drawn.delete(el);
  window.Plotly?.purge(el);
}
