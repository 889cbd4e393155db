// PostFilter (DefaultPreemption dry run): candidates, victims and the nominated node.

import { h } from "../dom.js";
import { point, POINT } from "../runmodel.js";
import { note, outcomeBanner, section, statusBadge, table } from "./common.js";

export function render(ctx) {
  const out = [section("Outcome", outcomeBanner(ctx.cycle))];
  // A run to the end carries the preemption out: its victims are deleted and the pod nominated.
  const carriedOut = ctx.cycle.attemptEnd;
  const victimsHeader = carriedOut ? "victims (deleted gracefully when this node is chosen)" : "victims (would be evicted; nothing is evicted in a dry run)";
  if (carriedOut?.victims?.length) {
    out.push(section("Carried out", h("p.carried-out", `Evicted ${carriedOut.victims.join(", ")} and nominated the pod to ${carriedOut.nominatedNodeName}.`)));
  }
  for (const [plugin, payload] of point(ctx.cycle, POINT.POST_FILTER).plugins) {
    const candidates = Object.entries(payload.candidates || {});
    const nominated = payload.nominatedNodeName;
    out.push(section(`${plugin}`,
      h("p", statusBadge({ code: payload.code, reasons: payload.reasons })),
      h("p", "Nominated node: ", nominated ? h("strong.chosen", `★ ${nominated}`) : h("span.muted", payload.nominationTie ? "none (a random tie between candidates)" : "none")),
      payload.victims?.length ? h("p", "Victims on the nominated node: ", payload.victims.join(", ")) : null,
      candidates.length
        ? table(["candidate node", victimsHeader],
          candidates.map(([node, victims]) => [node === nominated ? `★ ${node}` : node, victims.length ? victims.join(", ") : "—"]), "candidates")
        : note("No node would have room even after preempting lower-priority pods.")));
  }
  return out;
}
