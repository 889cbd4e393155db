// PreFilter: each plugin's status, the merged result, and the state Filter will read.

import { point, POINT } from "../runmodel.js";
import { note, section, statusBadge, table } from "./common.js";
import { affinityCountsSection, hardSpreadSection } from "./topology.js";

export function render(ctx) {
  const slot = point(ctx.cycle, POINT.PRE_FILTER);
  const rows = [...slot.plugins].map(([plugin, payload]) => [plugin, statusBadge(payload.status), payload.nodeNames ? payload.nodeNames.join(", ") : "all nodes"]);
  const merged = slot.summary;
  return [
    section("PreFilter plugins", table(["plugin", "status", "nodes allowed (PreFilterResult)"], rows),
      merged ? note(`Merged: ${merged.nodeNames ? `only ${merged.nodeNames.join(", ")}` : "all nodes go to Filter"}${merged.skipped?.length ? `; skipped at Filter: ${merged.skipped.join(", ")}` : ""}.`) : null),
    hardSpreadSection(ctx),
    affinityCountsSection(ctx),
  ];
}
