// The cluster view's DRA devices: a node × device map drawn with Plotly from the objects API's
// `devices` section (the engine's inventory: each device's classes and the claim holding it).
// Colour: the device's first class; fill: allocation (filled: allocated, open: free, crossed: in
// flight). A table under it says the same in words. Nothing is computed here beyond placing points.

import { draw, safe } from "./charts/plot.js";
import { h } from "./dom.js";

const CLASS_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const NO_CLASS = "(no class)";
const MAX_TABLE_ROWS = 300;

function stateOf(device) {
  if (!device.claim) return "free";
  return device.inFlight ? "in flight" : "allocated";
}

const SYMBOL = { free: "square-open", allocated: "square", "in flight": "square-x-open" };

function holderText(device) {
  if (!device.claim && (device.sharedBy || []).length) {
    return `shared by ${device.sharedBy.join(", ")} (${device.capacityLeft.join("; ")})`;
  }
  if (!device.claim) return (device.capacityLeft || []).length ? `free (${device.capacityLeft.join("; ")})` : "free";
  const pods = device.reservedFor.length ? ` (reserved for ${device.reservedFor.join(", ")})` : " (reserved for no pod)";
  return `${device.inFlight ? "in flight to" : "allocated to"} ${device.claim}${pods}`;
}

/** The devices section, or null when no node has devices. */
export function devicesSection(devices) {
  const nodes = devices.filter((n) => n.devices.length);
  if (!nodes.length) return null;
  const classes = [...new Set(nodes.flatMap((n) => n.devices.map((d) => d.classes[0] ?? NO_CLASS)))].sort();
  const colour = new Map(classes.map((c, i) => [c, CLASS_COLOURS[i % CLASS_COLOURS.length]]));
  const traces = classes.map((cls) => {
    const points = nodes.flatMap((n) => n.devices.map((d, i) => ({ node: n.node, i, d })).filter((p) => (p.d.classes[0] ?? NO_CLASS) === cls));
    return {
      type: "scatter", mode: "markers", name: safe(cls),
      x: points.map((p) => p.i), y: points.map((p) => p.node),
      marker: { symbol: points.map((p) => SYMBOL[stateOf(p.d)]), size: 22, color: colour.get(cls), line: { width: 2, color: colour.get(cls) } },
      text: points.map((p) => safe(`${p.node} · ${p.d.device}<br>classes: ${p.d.classes.join(", ") || "none"}<br>${holderText(p.d)}`)),
      hovertemplate: "%{text}<extra></extra>",
    };
  });
  const widest = Math.max(...nodes.map((n) => n.devices.length));
  const chart = h("div.chart.device-map", { "aria-label": "devices per node" });
  const layout = {
    height: Math.max(160, 60 + 34 * nodes.length),
    xaxis: { title: { text: "device (slice order)" }, dtick: 1, range: [-0.5, widest - 0.5], zeroline: false },
    yaxis: { type: "category", autorange: "reversed" },
    showlegend: true,
    legend: { title: { text: "class (filled: allocated · open: free · crossed: in flight)" }, orientation: "h", y: -0.35 },
    margin: { l: 90, r: 20, t: 10, b: 90 },
  };
  requestAnimationFrame(() => draw(chart, traces, layout, "devices"));
  const rows = nodes.flatMap((n) => n.devices.map((d) => ({ n, d }))).slice(0, MAX_TABLE_ROWS);
  const total = nodes.reduce((sum, n) => sum + n.devices.length, 0);
  const free = nodes.reduce((sum, n) => sum + n.free, 0);
  return h("section.devices-by-node", { "aria-label": "DRA devices per node" },
    h("h3", `Devices per node (${total} device(s), ${free} free)`),
    chart,
    h("details.device-table", h("summary", "Devices as a table"),
      h("table.data.devices",
        h("thead", h("tr", ["node", "device", "classes", "allocation"].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", rows.map(({ n, d }) => h(`tr.device-${stateOf(d).replace(" ", "-")}`, { dataset: { node: n.node, device: d.device } },
          h("th", { scope: "row" }, n.node), h("td", h("code", d.device)), h("td", d.classes.join(", ") || "—"), h("td", holderText(d)))))),
      total > rows.length ? h("p.muted", `… ${total - rows.length} more device(s)`) : null));
}

/** Claims per pod (requests, allocated devices, reserved for), for the pods that have claims. */
export function claimsSection(pods) {
  const withClaims = pods.filter((p) => p.claims?.length);
  if (!withClaims.length) return null;
  return h("section.claims-by-pod", { "aria-label": "claims per pod" },
    h("h3", `ResourceClaims per pod (${withClaims.length} pod(s))`),
    h("table.data.pod-claims",
      h("thead", h("tr", ["pod", "claim", "requests", "allocated devices", "reserved for"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", withClaims.flatMap((p) => p.claims.map((c) => h("tr", { dataset: { pod: `${p.namespace}/${p.name}`, claim: c.claim ?? "" } },
        h("th", { scope: "row" }, `${p.namespace}/${p.name}`), h("td", c.claim ?? `${c.podClaim} (not created yet)`),
        h("td", c.requests.join("; ") || "—"), h("td", c.devices.join(", ") || "none"), h("td", c.reservedFor.join(", ") || "—")))))));
}
