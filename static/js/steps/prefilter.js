// PreFilter: each plugin's status, the merged result (the engine's sentence about it), and the
// state Filter will read.

import { point, POINT } from "../runmodel.js";
import { explainLine, note, outcomeBanner, section, statusBadge, table } from "./common.js";
import { preFilterClaims } from "./dra.js";
import { affinityCountsSection, hardSpreadSection } from "./topology.js";

export function render(ctx) {
  const slot = point(ctx.cycle, POINT.PRE_FILTER);
  const rows = [...slot.plugins].map(([plugin, payload]) => [plugin, statusBadge(payload.status), payload.nodeNames ? payload.nodeNames.join(", ") : "all nodes"]);
  const merged = slot.summary;
  const stopped = Boolean(merged?.status); // PreFilter rejected the pod: the cycle ends here
  return [
    stopped ? section("Result", outcomeBanner(ctx.cycle)) : null,
    section("PreFilter plugins",
      explainLine(ctx, (e) => e.preFilter?.sentence, "prefilter-why"),
      table(["plugin", "status", "nodes allowed (PreFilterResult)"], rows),
      merged ? note(`Merged: ${merged.nodeNames ? `only ${merged.nodeNames.join(", ")}` : "all nodes go to Filter"}${merged.skipped?.length ? `; skipped at Filter: ${merged.skipped.join(", ")}` : ""}.`) : null),
    preFilterClaims(ctx),
    hardSpreadSection(ctx),
    affinityCountsSection(ctx),
  ];
}
