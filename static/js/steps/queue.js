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
  ];
}
