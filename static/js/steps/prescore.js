// PreScore: statuses and the state the Score step reads.

import { point, POINT } from "../runmodel.js";
import { section, skippedScoring, statusBadge, table } from "./common.js";
import { softSpreadSection, topologyScoreSection } from "./topology.js";

export function render(ctx) {
  const slot = point(ctx.cycle, POINT.PRE_SCORE);
  const numbers = [
    section("PreScore plugins", table(["plugin", "status"], [...slot.plugins].map(([plugin, p]) => [plugin, statusBadge(p.status)]))),
    topologyScoreSection(ctx),
    softSpreadSection(ctx),
  ];
  return skippedScoring(ctx, ...numbers.filter(Boolean)) ?? numbers;
}
