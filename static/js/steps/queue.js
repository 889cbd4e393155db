// QueueSort: the pod this cycle schedules and the queue it came from.

import { h } from "../dom.js";
import { point, POINT } from "../runmodel.js";
import { kvList, note, section, table } from "./common.js";

export function render(ctx) {
  const { cycle } = ctx;
  const start = cycle.start || {};
  const order = point(cycle, POINT.QUEUE_SORT).plugins.values().next().value?.order || start.queue || [];
  const pod = start.pod || cycle.pod;
  return [
    section("Pod being scheduled",
      table(["pod", "priority", "labels", "nodes in cluster"], [[pod, String(start.priority ?? 0), kvList(start.labels), String(start.nodeCount ?? "")]])),
    section(`Queue (${order.length} pending, PrioritySort: higher priority first, then arrival)`,
      order.length
        ? h("ol.queue", order.slice(0, 500).map((p) => h(p === pod ? "li.current" : "li", p === pod ? `▶ ${p}` : p)))
        : note("The queue order was not reported."),
      order.length > 500 ? note(`… and ${order.length - 500} more`) : null),
    start.volumes?.length ? volumesTable(start.volumes) : null,
    start.queues ? queueLane(start.queues, pod) : null,
  ];
}

/** The pod's volumes the volume plugins read: each claim's state, class and bound volume (the engine's picture). */
function volumesTable(volumes) {
  const affinity = (terms) => (terms || []).map((term) => term.map((r) => `${r.key ?? r.field} ${r.operator} ${(r.values || []).join(",")}`).join(" ∧ ")).join(" ∨ ");
  const rows = volumes.map((v) => {
    const pv = v.persistentVolume;
    return [
      v.volume,
      v.claim ? `${v.claim} (${v.state})` : v.kind,
      v.storageClass ? `${v.storageClass}${v.bindingMode ? ` · ${v.bindingMode}` : ""}` : "—",
      pv ? pv.name : v.missingVolume ? `${v.missingVolume} (missing)` : v.selectedNode ? `to be provisioned on ${v.selectedNode}` : "—",
      pv ? [Object.keys(pv.topologyLabels || {}).length ? kvList(pv.topologyLabels) : null,
        pv.nodeAffinity ? h("div", affinity(pv.nodeAffinity)) : null] : "",
      v.migratesTo || v.driver || "",
    ];
  });
  return section("Volumes (what VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits read)",
    table(["volume", "claim (state)", "class · binding mode", "bound volume", "volume zone / node affinity", "CSI driver"], rows, "volumes-table"));
}

const LANES = [
  ["activeQ", "activeQ: ready, popped in this order"],
  ["backoffQ", "backoffQ: waiting out a back-off"],
  ["unschedulablePods", "unschedulablePods: waiting for a cluster event a rejecting plugin cares about"],
];

/** A run to the end: where every other pending pod was as this attempt started (this pod is in flight). */
function queueLane(queues, pod) {
  return section(`Queues as attempt started (${pod} in flight)`,
    h("div.queue-lane", LANES.map(([name, title]) => {
      const pods = queues[name] || [];
      return h("div.lane", { dataset: { queue: name } },
        h("h4", { title }, `${name} (${pods.length})`),
        pods.length ? h("ol.queue", pods.slice(0, 200).map((p) => h("li", p))) : h("p.muted", "empty"),
        pods.length > 200 ? note(`… and ${pods.length - 200} more`) : null);
    })));
}
