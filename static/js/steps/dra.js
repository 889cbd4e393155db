// DynamicResources in the run view: PreFilter's claims and classes, per node it rejected what each
// request finds there (Filter), the allocation written at PreBind. Everything shown is the
// engine's: its pictures (text and numbers) in the events, and its explanation's sentences.

import { h } from "../dom.js";
import { point, POINT } from "../runmodel.js";
import { note, section, table } from "./common.js";

const PLUGIN = "DynamicResources";
const MAX_NODES = 200; // per-node rows drawn (the count says how many in all)

function payloadOf(ctx, name) {
  return point(ctx.cycle, name).plugins.get(PLUGIN);
}

/** PreFilter: the pod's claims (requests, allocation, reservations) and the classes they name. */
export function preFilterClaims(ctx) {
  const picture = payloadOf(ctx, POINT.PRE_FILTER)?.picture;
  if (!picture) return null;
  const rows = picture.claims.flatMap((claim) => claim.requests.map((request) => [
    claim.claim, request.name, request.deviceClass,
    request.allocationMode === "All" ? "all" : request.allocationMode === "FirstAvailable" ? "first available" : String(request.count),
    request.selectors.length ? request.selectors.join(" && ") : "—",
    claim.allocation ? claim.allocation.devices.map((d) => `${d.pool}/${d.device}`).join(", ") : claim.inFlight ? "in flight" : "not allocated",
    claim.reservedFor.length ? claim.reservedFor.join(", ") : "—",
  ]));
  const classes = Object.entries(picture.classes);
  return section("DynamicResources: claims and classes",
    table(["claim", "request", "class", "count", "selectors", "allocation", "reserved for"], rows, "dra-claims"),
    classes.length ? table(["device class", "selectors"], classes.map(([name, selectors]) => [name, selectors.join(" && ") || "—"]), "dra-classes") : null,
    picture.missingClasses.length ? h("p.notice.notice-error", `Missing device class(es): ${picture.missingClasses.join(", ")}`) : null,
    note(`${picture.devicesInUse} device(s) in use in the cluster (allocated claims and allocations in flight).`));
}

/** Filter: per node it rejected, each request's sentence with its numbers (free of wanted). */
export function filterClaims(ctx) {
  const pictures = payloadOf(ctx, POINT.FILTER)?.pictures;
  if (!pictures) return null;
  const nodes = Object.entries(pictures);
  const rows = nodes.slice(0, MAX_NODES).flatMap(([node, picture]) => [
    ...picture.requests.map((request, i) => h(
      `tr${picture.status ? ".rejected" : ""}`, { dataset: { node, request: request.request } },
      h("th", { scope: "row" }, node), h("td", request.request), h("td", `${request.free} of ${request.wanted}`),
      h("td.dra-sentence", picture.sentences[i]),
      h("td", picture.status ?? "fits"))),
    // Partitionable devices: the counters each partition draws on, as allocated devices leave them.
    ...(picture.counters || []).map((counter, i) => h(
      `tr.dra-counter${picture.status ? ".rejected" : ""}`, { dataset: { node, counterSet: counter.counterSet } },
      h("th", { scope: "row" }, node), h("td", `counter set ${counter.counterSet}`),
      h("td", `${counter.left} of ${counter.total} ${counter.counter}`),
      h("td.dra-sentence", picture.sentences[picture.requests.length + i]),
      h("td", picture.status ?? "fits"))),
    // Consumable capacity: what the shares of each shared device leave of its capacities.
    ...(picture.shares || []).map((share, i) => h(
      `tr.dra-share${picture.status ? ".rejected" : ""}`, { dataset: { node, device: share.device } },
      h("th", { scope: "row" }, node), h("td", `shared device ${share.device}`),
      h("td", `${share.left} of ${share.total} ${share.capacity}`),
      h("td.dra-sentence", picture.sentences[picture.requests.length + (picture.counters || []).length + i]),
      h("td", picture.status ?? "fits"))),
  ]);
  return section("DynamicResources: devices per request and node",
    ctx.explanation?.claims?.sentence && ctx.explanation.claims.shortfalls.length ? h("p.dra-why", ctx.explanation.claims.sentence) : null,
    h("table.data.dra-requests",
      h("thead", h("tr", ["node", "request", "free of wanted", "why", "verdict"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", rows)),
    nodes.length > MAX_NODES ? note(`… and ${nodes.length - MAX_NODES} more node(s)`) : null);
}

/** Reserve and PreBind: the allocation taken and written, per claim. */
export function bindingAllocations(ctx) {
  const rows = [];
  for (const name of [POINT.RESERVE, POINT.PRE_BIND]) {
    const state = payloadOf(ctx, name)?.state;
    for (const [claim, allocation] of Object.entries(state || {})) {
      rows.push([name, claim, allocation.devices.map((d) => `${d.driver}/${d.pool}/${d.device} (${d.request})`).join(", "),
        (allocation.nodeSelector || []).map((t) => [...t.matchExpressions, ...t.matchFields].join(", ")).join(" | ") || "any node"]);
    }
  }
  if (!rows.length) return null;
  return section("DynamicResources: allocations", table(["point", "claim", "devices", "node selector"], rows, "dra-allocations"),
    note("Reserve takes the allocation (in flight); PreBind writes it and status.reservedFor to the claim."));
}
