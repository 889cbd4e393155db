// The recorded answer beside the replay: for every pending pod of a dump that carries the real
// scheduler's last word (status.conditions[type=PodScheduled]: reason, message, time), that word
// next to the replay's FailedScheduling message (or the node the replay chose), whether they agree
// and, when not, the likely causes (the dump's completeness findings). The comparison is the
// engine's (GET /api/runs/N/timeline/summary, `recorded`); this only lays it out. Text only (untrusted).

import { h, mount } from "./dom.js";

export class RecordedPanel {
  constructor() {
    this.summary = h("p.recorded-summary#recorded-summary", { role: "status" });
    this.body = h("div.recorded-body");
    this.el = h("details.panel.recorded-panel#recorded-panel", { open: true, hidden: true },
      h("summary", h("h2", "Your cluster's answer beside the replay")),
      this.summary,
      this.body);
  }

  /** story.recorded: null when no pending pod carries a recorded PodScheduled condition. */
  show(story) {
    const recorded = story?.recorded;
    this.el.hidden = !recorded;
    if (!recorded) return;
    this.summary.textContent = recorded.summary;
    this.summary.dataset.agree = String(recorded.agree);
    this.summary.dataset.compared = String(recorded.compared);
    mount(this.body, h("table.data#recorded-table",
      h("thead", h("tr", ["pod", "your cluster said", "the replay says", "", "likely causes"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", recorded.pods.map((row) => h(row.agrees ? "tr.agree" : "tr.disagree", { dataset: { pod: row.pod } },
        h("th", { scope: "row" }, row.pod),
        h("td.recorded", h("strong", row.reason), ` ${row.message}`, row.time ? h("div.muted.small", row.time) : null),
        h("td.replay", row.replayed),
        h("td.verdict", row.agrees ? "✓ agree" : "✗ differ"),
        h("td.causes", row.causes.length ? h("ul.plain", row.causes.map((cause) => h("li", cause))) : ""))))));
  }
}
