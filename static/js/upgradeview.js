// An upgrade comparison's answer (issue 48), drawn as the engine wrote it (its UpgradeComparison,
// GET /api/upgrades/{id}): the summary, each pod's node and FailedScheduling message under both
// releases with the plugins whose scores differ and the changes behind it, then every release
// change with what it does on this cluster and those with no effect. Names and messages from the
// scenario are text nodes (dom.js h()); nothing is counted or compared here.

import { h } from "./dom.js";
import { checked } from "./schemacheck.js";
import { section } from "./steps/common.js";

const LISTED = 200; // pods drawn (the answer lists every one; the JSON download has them all)
// The engine leaves out what holds its default (an empty list, a null node, checked: true).
const all = (list) => list ?? [];

/** The answer's view; `upgrade` is the API's UpgradeOut (succeeded). */
export function upgradeAnswer(upgrade) {
  const answer = checked(upgrade.answer, "UpgradeComparison");
  const sentences = new Map(all(answer.changes).map((change) => [change.name, change.sentence]));
  return [
    h("p.upgrade-summary", { role: "status" }, `Upgrading ${answer.old} → ${answer.new}: ${answer.summary}`),
    podsSection(answer, sentences),
    changesSection(answer),
  ];
}

function podsSection(answer, sentences) {
  const pods = all(answer.pods);
  if (!pods.length) return section("Pods", h("p.muted", "No pod ends elsewhere, scores differently or gets another message."));
  const shown = pods.slice(0, LISTED);
  const place = (node) => (node === null || node === undefined ? h("span.fail", "Pending") : node === "deleted" ? h("span.muted", "evicted") : node);
  return section(`Pods that change (${pods.length})`,
    h("div.scroll-x", h("table.data.upgrade-pods",
      h("thead", h("tr",
        h("th", { scope: "col" }, "pod"),
        h("th", { scope: "col" }, answer.old),
        h("th", { scope: "col" }, answer.new),
        h("th", { scope: "col" }, "scores differ"),
        h("th", { scope: "col" }, "because of"))),
      h("tbody", shown.map((row) => [
        h("tr", { dataset: { pod: row.pod } },
          h("th", { scope: "row" }, row.pod),
          h("td.upgrade-old", place(row.oldNode)),
          h("td.upgrade-new", place(row.newNode)),
          h("td.upgrade-plugins", all(row.plugins).length ? all(row.plugins).join(", ") : h("span.muted", "—")),
          h("td.upgrade-causes", causesOf(row, sentences))),
        messagesRow(answer, row),
      ])))),
    pods.length > LISTED ? h("p.muted", `… and ${pods.length - LISTED} more pod(s): the JSON has every one.`) : null);
}

/** The changes the engine found behind the pod's difference, each with its sentence. */
function causesOf(row, sentences) {
  const named = (name) => h("li", h("code.cause-name", name), sentences.get(name) ? h("span.cause-sentence", ` — ${sentences.get(name)}`) : null);
  const causes = all(row.causes);
  if (causes.length) {
    return [h("ul.plain.causes", causes.map(named)),
      causes.length > 1 ? h("p.muted.small", "Undoing any one of them alone gives the old outcome.") : null];
  }
  const byPlugin = Object.entries(row.pluginCauses || {});
  if (byPlugin.length) {
    return h("ul.plain.causes", byPlugin.map(([plugin, names]) => h("li", h("span.muted", `${plugin}: `),
      h("ul.plain", names.map(named)))));
  }
  if (all(row.touchedBy).length) return [h("p.small", "No change alone explains it; these move it together:"), h("ul.plain.causes", all(row.touchedBy).map(named))];
  return h("span.muted", "no single release change explains it");
}

function messagesRow(answer, row) {
  if (row.oldMessage === row.newMessage || (!row.oldMessage && !row.newMessage)) return null;
  return h("tr.upgrade-messages", h("td", { colspan: "5" },
    h("p.small", h("strong", `${answer.old}: `), h("code", row.oldMessage || "(scheduled)")),
    h("p.small", h("strong", `${answer.new}: `), h("code", row.newMessage || "(scheduled)"))));
}

function changesSection(answer) {
  const does = (c) => all(c.explains).length || all(c.touches).length || all(c.plugins).length;
  const effective = all(answer.changes).filter(does);
  const quiet = all(answer.changes).filter((c) => c.checked !== false && !does(c));
  const unchecked = all(answer.changes).filter((c) => c.checked === false && !c.refused);
  const refused = all(answer.changes).filter((c) => c.refused);
  return section("What changed between the releases, and what it does here",
    effective.length
      ? h("ul.upgrade-changes", effective.map((c) => h("li", { dataset: { change: c.name, kind: c.kind } },
        h("code.cause-name", c.name), ` (${c.kind === "gate" ? "feature gate" : "code change"}): `, h("span.change-sentence", c.sentence),
        h("ul.small",
          listed("explains", all(c.explains), "pod(s)"),
          listed("moves, with other changes,", all(c.touches), "more pod(s)"),
          listed("gives back the old scores of", all(c.plugins), "plugin/pod pair(s)")))))
      : h("p.muted", "No release change does anything on this cluster."),
    quiet.length ? h("details.upgrade-quiet", h("summary", `No effect on this cluster (${quiet.length})`),
      h("ul.small", quiet.map((c) => h("li", { dataset: { change: c.name } }, h("code", c.name), ` — ${c.sentence}`)))) : null,
    unchecked.length ? h("details.upgrade-unchecked", h("summary", `Not run: the cluster has no resource claims or devices (${unchecked.length})`),
      h("ul.small", unchecked.map((c) => h("li", h("code", c.name), ` — ${c.sentence}`)))) : null,
    refused.length ? h("div.upgrade-refused", h("p.small", `Not run: ${answer.new} with these put back refuses this cluster's objects`),
      h("ul.small", refused.map((c) => h("li", { dataset: { change: c.name } }, h("code", c.name), ` — ${c.sentence}; `, h("span.refusal", c.refused))))) : null);
}

/** "explains 3 pod(s): a, b, c" — the engine's list, its length as given, the first ten named. */
function listed(verb, names, what) {
  if (!names.length) return null;
  return h("li", `${verb} ${names.length} ${what}: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ", …" : ""}`);
}
