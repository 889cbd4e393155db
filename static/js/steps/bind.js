// Reserve → Permit → PreBind → Bind → PostBind, and the cycle's outcome.

import { point, POINT } from "../runmodel.js";
import { outcomeBanner, section, statusBadge, table, note } from "./common.js";
import { bindingAllocations } from "./dra.js";

const BINDING = [POINT.RESERVE, POINT.PERMIT, POINT.PRE_BIND, POINT.BIND, POINT.POST_BIND];

export function render(ctx) {
  const rows = [];
  for (const name of BINDING) {
    for (const [plugin, payload] of point(ctx.cycle, name).plugins) rows.push([name, plugin, payload.nodeName || "", statusBadge(payload.status)]);
  }
  return [
    section("Outcome", outcomeBanner(ctx.cycle)),
    section("Binding cycle", rows.length ? table(["point", "plugin", "node", "status"], rows) : note("No binding steps ran (no node was chosen).")),
    bindingAllocations(ctx),
  ];
}
