// Filter: node × plugin matrix (✓ / ✗ with the reason on hover and focus), the FailedScheduling
// line, and the spread / affinity state the Filter decided with. Large clusters are aggregated by
// a topology domain, with drill-down into one domain's nodes.

import { h } from "../dom.js";
import { filterMatrix, point, POINT, statusText } from "../runmodel.js";
import { defaultTopologyKey, explainLine, FAIL, keySelect, labelKeys, note, outcomeBanner, PASS, section } from "./common.js";
import { filterClaims } from "./dra.js";
import { affinityCountsSection, hardSpreadSection } from "./topology.js";

export const LARGE = 150;
const MAX_DOMAIN_ROWS = 300;
const MAX_REASON_NODES = 200; // nodes listed under an opened reason (the count says how many in all)

export function render(ctx) {
  const matrix = filterMatrix(ctx.cycle);
  const summary = matrix.summary;
  const result = section("Result", outcomeBanner(ctx.cycle), explainLine(ctx, filterWhy, "cycle-why"));
  if (!point(ctx.cycle, POINT.FILTER).summary && point(ctx.cycle, POINT.PRE_FILTER).summary?.status) {
    // PreFilter rejected the pod: Filter never ran. Say so instead of drawing an empty matrix.
    return [result, preFilterNotice(ctx, true)];
  }
  const detail = h("p.cell-detail", { "aria-live": "polite" }, "Hover or focus a cell to read its status.");
  const counts = summary
    ? `Evaluated ${summary.evaluated.length} node(s); ${summary.feasibleNodes.length} feasible` +
      (summary.numFeasibleNodesToFind < summary.evaluated.length ? ` (stops after ${summary.numFeasibleNodesToFind})` : "") + "." +
      (summary.batchHint ? " That node was tried alone: OpportunisticBatching's hint." :
        summary.nominatedNodeOnly ? " That node was tried alone: the pod's nominated node." : "")
    : "Filter is still running…";
  const onlyFailing = ctx.ui.onlyFailing;
  const controls = h("div.controls",
    h("label.inline", h("input", { type: "checkbox", checked: onlyFailing, onchange: (e) => ctx.update({ onlyFailing: e.target.checked }) }), " only rejected nodes"));
  const large = matrix.nodes.length > LARGE;
  let body;
  if (large && ctx.nodeLabels.size > 0) {
    const keys = labelKeys(ctx.nodeLabels);
    const key = keys.includes(ctx.ui.groupKey) ? ctx.ui.groupKey : defaultTopologyKey(keys);
    controls.append(keySelect("filter-group-key", "group by", keys, key, (k) => ctx.update({ groupKey: k, expanded: [] })));
    body = aggregated(ctx, matrix, key, detail);
  } else if (large) {
    // Node labels are still loading (or unavailable): one group of every node until they arrive.
    body = [note("Grouping by topology domain appears once the node labels have loaded."), aggregated(ctx, matrix, "", detail)];
  } else {
    body = matrixTable(matrix, matrix.nodes.filter((n) => !onlyFailing || n.feasible === false), detail, openedReasonNodes(ctx), numbersOf(ctx));
  }
  result.append(note(counts));
  const noNodes = summary && !summary.evaluated.length;
  return [
    result,
    preFilterNotice(ctx, noNodes),
    reasonsSection(ctx),
    filterClaims(ctx),
    noNodes ? null : section("Filter: node × plugin", controls, body, detail),
    hardSpreadSection(ctx, { why: !spreadIsTheHeadline(ctx.explanation) }),
    affinityCountsSection(ctx),
  ];
}

/** The engine's sentence for this step: why nothing fits, or (a pod was bound) what Filter left. */
function filterWhy(explanation) {
  return explanation.outcome === "scheduled" ? explanation.filter?.sentence ?? explanation.headline : explanation.headline;
}

function spreadIsTheHeadline(explanation) {
  return Boolean(explanation?.spread && !explanation.error && filterWhy(explanation) === explanation.spread.sentence);
}

/**
 * When PreFilter rejected the pod or narrowed the nodes, the Filter step says so (the engine's
 * sentence) with a way to PreFilter. `always`: also when PreFilter let every node through (never
 * the case when called with true, since then PreFilter rejected or left no node).
 */
function preFilterNotice(ctx, always) {
  const pre = ctx.explanation?.preFilter;
  const narrowed = pre && (pre.rejected || pre.narrowedTo !== null);
  if (!narrowed && !always) return null;
  const sentence = narrowed ? pre.sentence : explainLine(ctx, (e) => e.preFilter?.sentence);
  return section("PreFilter decided first",
    h("p.prefilter-notice", sentence),
    h("button#goto-prefilter.linkish", { type: "button", onclick: () => ctx.goStep("PreFilter") }, "Open the PreFilter step →"));
}

/** The reasons nodes were rejected, grouped with counts as FailedScheduling counts them; a click lists the nodes. */
function reasonsSection(ctx) {
  const filter = ctx.explanation?.filter;
  if (ctx.explanation === null) return section("Why nodes were rejected", explainLine(ctx, () => null));
  if (!filter || !filter.groups.length) return null;
  const opened = ctx.ui.reason ?? null;
  const items = filter.groups.map((group, i) => {
    const open = opened === i;
    return h("li.reason-group", { dataset: { reason: group.reason } },
      h("button.reason", { type: "button", "aria-expanded": String(open), onclick: () => ctx.update({ reason: open ? null : i }) },
        h("span.reason-count", String(group.count)), " ", h("span.reason-text", group.reason),
        h("span.reason-plugins.muted", ` — ${group.plugins.join(", ")}`)),
      open ? reasonNodes(ctx, group) : null);
  });
  return section("Why nodes were rejected",
    note("Each rejected node counts once, under the reasons of the first Filter plugin that rejected it (as the FailedScheduling message counts them). Click a reason for its nodes."),
    h("ul.reason-groups", items));
}

function reasonNodes(ctx, group) {
  if (group.outsidePreFilter) {
    return h("div.reason-nodes", note(`${group.count} node(s) left out by PreFilter's result (the events count them but do not name them).`),
      h("button.linkish", { type: "button", onclick: () => ctx.goStep("PreFilter") }, "Open the PreFilter step →"));
  }
  const shown = group.nodes.slice(0, MAX_REASON_NODES);
  const numbers = numbersOf(ctx);
  const facts = (node) => group.plugins.map((p) => numbers(node, p)).find((text) => text) ?? null;
  const withNumbers = shown.some((n) => facts(n));
  return h("div.reason-nodes",
    withNumbers
      ? h("ul.node-numbers", shown.map((n) => h("li", { dataset: { node: n } }, h("code", n), " ", h("span.numbers", facts(n) ?? ""))))
      : h("ul.node-chips", shown.map((n) => h("li", h("code", n)))),
    ctx.explanation?.filterDetailsNote ? note(`${withNumbers ? "Numbers" : "No numbers"}: ${ctx.explanation.filterDetailsNote}.`) : null,
    group.nodes.length > shown.length ? note(`… and ${group.nodes.length - shown.length} more`) : null);
}

/**
 * The engine's numbers behind a rejection (the explanation's filterDetails: a replay of the run),
 * as (node, plugin) => text or null. Drawn as given: the browser computes none of them.
 */
function numbersOf(ctx) {
  const nodes = ctx.explanation?.filterDetails?.nodes;
  return (node, plugin) => nodes?.[node]?.plugins?.[plugin]?.text ?? null;
}

function cell(node, plugin, numbers = () => null) {
  const status = node.cells[plugin];
  const facts = status ? numbers(node.name, plugin) : null;
  const text = `${node.name} × ${plugin}: ${statusText(status)}${facts ? ` — ${facts}` : ""}`;
  return h(status ? `td.cell.fail${facts ? ".has-numbers" : ""}` : "td.cell.pass", { title: text, tabindex: "0", dataset: { detail: text } },
    status ? FAIL : PASS);
}

function resultCell(node) {
  if (node.feasible === null) return h("td.cell.result", "…");
  return node.feasible ? h("td.cell.result.pass", `${PASS} feasible`) : h("td.cell.result.fail", `${FAIL} rejected`);
}

function showDetail(detail) {
  return (event) => {
    const text = event.target.closest?.("[data-detail]")?.dataset.detail;
    if (text) detail.textContent = text;
  };
}

/** The nodes of the reason the reader opened, marked in the matrix. */
function openedReasonNodes(ctx) {
  const group = ctx.explanation?.filter?.groups?.[ctx.ui.reason ?? -1];
  return new Set(group ? group.nodes : []);
}

function matrixTable(matrix, nodes, detail, marked = new Set(), numbers = () => null) {
  if (!matrix.plugins.length) return note("No Filter plugin ran in this cycle.");
  const show = showDetail(detail);
  return h("div.scroll-x", h("table.data.matrix", { onmouseover: show, onfocusin: show },
    h("thead", h("tr", h("th", { scope: "col" }, "node"), matrix.plugins.map((p) => h("th.rot", { scope: "col" }, h("span", p))), h("th", { scope: "col" }, "result"))),
    h("tbody", nodes.map((n) => h(`tr${n.feasible === false ? ".rejected" : ""}${marked.has(n.name) ? ".marked" : ""}`, { dataset: { node: n.name } },
      h("th", { scope: "row" }, n.name), matrix.plugins.map((p) => cell(n, p, numbers)), resultCell(n))))));
}

function aggregated(ctx, matrix, key, detail) {
  const groups = new Map();
  for (const node of matrix.nodes) {
    const domain = key ? ctx.nodeLabels.get(node.name)?.[key] ?? "(no label)" : "all nodes";
    if (!groups.has(domain)) groups.set(domain, []);
    groups.get(domain).push(node);
  }
  const expanded = new Set(ctx.ui.expanded || []);
  const show = showDetail(detail);
  const rows = [];
  for (const [domain, nodes] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const feasible = nodes.filter((n) => n.feasible).length;
    if (ctx.ui.onlyFailing && feasible === nodes.length) continue;
    const open = expanded.has(domain);
    rows.push(h("tr.domain",
      h("th", { scope: "row" },
        h("button.linkish", { type: "button", "aria-expanded": String(open), onclick: () => ctx.update({ expanded: open ? [...expanded].filter((d) => d !== domain) : [...expanded, domain] }) },
          `${open ? "▾" : "▸"} ${domain}`)),
      h("td", String(nodes.length)),
      matrix.plugins.map((p) => {
        const failed = nodes.filter((n) => n.cells[p]).length;
        const text = `${key ? `${key}=${domain}` : domain} × ${p}: ${failed} of ${nodes.length} node(s) rejected`;
        return h(failed ? "td.cell.fail" : "td.cell.pass", { title: text, tabindex: "0", dataset: { detail: text } }, failed ? `${FAIL} ${failed}` : PASS);
      }),
      h(feasible ? "td.cell.result.pass" : "td.cell.result.fail", feasible ? `${PASS} ${feasible} feasible` : `${FAIL} none`)));
    if (open) {
      const shown = nodes.filter((n) => !ctx.ui.onlyFailing || n.feasible === false).slice(0, MAX_DOMAIN_ROWS);
      const numbers = numbersOf(ctx);
      for (const n of shown) rows.push(h("tr.drill", h("th", { scope: "row" }, `  ${n.name}`), h("td", ""), matrix.plugins.map((p) => cell(n, p, numbers)), resultCell(n)));
      if (nodes.length > shown.length) rows.push(h("tr.drill", h("td", { colspan: String(matrix.plugins.length + 3) }, `… ${nodes.length - shown.length} more in this domain`)));
    }
  }
  return [
    key ? note(`${matrix.nodes.length} nodes, grouped by ${key}. Open a domain to see its nodes.`) : null,
    h("div.scroll-x", h("table.data.matrix.aggregated", { onmouseover: show, onfocusin: show },
      h("thead", h("tr", h("th", { scope: "col" }, key || "nodes"), h("th", { scope: "col" }, "nodes"), matrix.plugins.map((p) => h("th.rot", { scope: "col" }, h("span", p))), h("th", { scope: "col" }, "result"))),
      h("tbody", rows))),
  ];
}
