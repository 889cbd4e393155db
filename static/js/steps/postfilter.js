// PostFilter (DefaultPreemption dry run): candidates, victims and the nominated node.

import { releaseLine } from "../releases.js";
import { api } from "../api.js";
import { h, notify } from "../dom.js";
import { point, POINT } from "../runmodel.js";
import { explainLine, note, outcomeBanner, section, statusBadge, table } from "./common.js";

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
        : noCandidates(plugin, payload)));
    if (plugin === "DefaultPreemption" && candidates.length) out.push(rankingSection(ctx));
  }
  if (ctx.cycle.end && !ctx.cycle.end.nodeName) out.push(whatIf(ctx));
  return out;
}

/**
 * Only preemption's dry run has candidates: its empty list is the sentence below, said only when it
 * did not succeed. Another PostFilter plugin (DynamicResources deallocating claims) has its status alone.
 */
function noCandidates(plugin, payload) {
  if (plugin !== "DefaultPreemption" || payload.code === "Success") return null;
  // Said without a cause of its own: the status above carries the dry run's reason for each node
  // (no lower-priority pod, not helpful, a PodDisruptionBudget, ...), and room is only one of them.
  return note("No candidate node: preemption would not help on any node (the reasons above say why).");
}

/**
 * DefaultPreemption's criteria for every candidate, in the release's order, with the criterion
 * that decided marked (◆) and the chosen node starred: the explanation's `preemption` (a replay of
 * the run), drawn as given.
 */
function rankingSection(ctx) {
  const ranking = ctx.explanation?.preemption;
  if (ctx.explanation === null) return section("Why this candidate", explainLine(ctx, () => null));
  if (!ranking) {
    const why = ctx.explanation?.filterDetailsNote;
    return section("Why this candidate", note(why ? `No ranking: ${why}.` : "No ranking was given for this cycle."));
  }
  const columns = [
    ["pdbViolations", "PDB violations", (c) => String(c.pdbViolations)],
    ["highestPriority", "highest victim priority", (c) => String(c.highestPriority)],
    ["prioritySum", "sum of priorities", (c) => String(c.prioritySum)],
    ["victims", "victims", (c) => String(c.victimCount)],
    ["latestStart", "earliest start of its highest-priority victims", (c) => c.earliestStart ?? "none (reads as now)"],
  ];
  const order = new Map(ranking.criteria.map((c, i) => [c.key, i + 1]));
  const header = (key, label) => h(`th${key === ranking.deciding ? ".deciding" : ""}`, { scope: "col", dataset: { key } },
    `${order.get(key)}. ${label}${key === ranking.deciding ? " ◆" : ""}`);
  const droppedText = (c) => (c.droppedAt ? `criterion ${order.get(c.droppedAt)}` : c.chosen ? "chosen" : "tied to the end");
  const rows = ranking.candidates.map((c) => h(`tr${c.chosen ? ".chosen" : ""}`, { dataset: { node: c.node } },
    h("th", { scope: "row" }, c.chosen ? `★ ${c.node}` : c.node),
    columns.map(([key, , value]) => h(`td${key === ranking.deciding ? ".deciding" : ""}${c.droppedAt === key ? ".dropped" : ""}`, value(c))),
    h("td.ruled-out", droppedText(c))));
  return section("Why this candidate",
    h("p.explain.preemption-why", h("span.explain-tag", "Why"), " ", h("span.explain-text", ranking.sentence)),
    note("pickOneNodeForPreemption compares the candidates criterion by criterion, keeping the best each time; ◆ marks the criterion that left one node."),
    h("div.scroll-x", h("table.data.ranking",
      h("thead", h("tr", h("th", { scope: "col" }, "candidate"), columns.map(([key, label]) => header(key, label)), h("th", { scope: "col" }, "ruled out at"))),
      h("tbody", rows))));
}

/** What would make it fit: the engine's verified single changes, each one click from a new run. */
function whatIf(ctx) {
  const pod = ctx.cycle.pod;
  const found = ctx.ui.whatIf?.pod === pod ? ctx.ui.whatIf : null;
  const ask = async () => {
    ctx.update({ whatIf: { pod, loading: true } });
    try {
      ctx.update({ whatIf: { pod, answer: await api.whatif(ctx.runId, pod) } });
    } catch (error) {
      ctx.update({ whatIf: { pod, error: error.message } });
    }
  };
  const apply = async (index) => {
    try {
      const run = await api.applyWhatIf(ctx.runId, pod, index);
      location.href = `/runs/${run.id}/`;
    } catch (error) {
      notify(error.message, "error");
    }
  };
  if (!found) return section("What would make it fit?", h("button#whatif-button", { type: "button", onclick: ask }, "Find the smallest changes"));
  if (found.loading) return section("What would make it fit?", note("Asking the engine…"));
  if (found.error) return section("What would make it fit?", h("p.notice.notice-error", found.error));
  const answer = found.answer;
  return section("What would make it fit?",
    h("p.whatif-summary", answer.summary),
    releaseLine(answer.release, { lead: "Verified as" }),
    answer.suggestions.length
      ? h("ol.whatif-list", answer.suggestions.map((s, index) => h("li", { dataset: { kind: s.kind } },
        h("span.text", s.text), ` — fits on ${s.nodeCount} node(s)${s.nodeCount ? `: ${s.nodes.slice(0, 5).join(", ")}${s.nodeCount > 5 ? ", …" : ""}` : ""} `,
        ctx.readOnly ? null : h("button.whatif-apply", { type: "button", onclick: () => apply(index) }, "Apply and run"))))
      : null,
    answer.moreSuggestions ? note(`…and ${answer.moreSuggestions} more of the same kinds, more intrusive or opening fewer nodes.`) : null);
}
