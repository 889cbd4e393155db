// The run to the end, told in order: every attempt (opens the stepper on it), every queue move and
// every change to the cluster, each with its time on the run's logical clock. A pod picked in the
// list shows its journey: its attempts, why it was moved back to the queue, its nomination and
// binding. The sentences and the times are the engine's (GET /api/runs/N/timeline); this file only
// lays them out and filters them by pod.

import { api } from "./api.js";
import { h, mount } from "./dom.js";

const KIND_LABEL = { attempt: "attempt", move: "queue", change: "cluster", step: "step" };

export class TimelinePanel {
  /** goCycle(n): open the stepper on cycle n; onStory(story): the story as read (other panels draw from it). */
  /** steps (a run with steps): {showCluster(step, box), share(step) -> url | null, open: the step to open first}. */
  constructor(runId, goCycle, onStory = () => {}, steps = {}) {
    this.runId = runId;
    this.goCycle = goCycle;
    this.onStory = onStory;
    this.stepOptions = steps;
    this.stepsBox = h("section.steps-summary#steps-summary", { hidden: true, "aria-label": "steps" });
    this.story = null;
    this.pod = "";
    this.current = null;
    this.attemptItems = new Map(); // cycle -> its attempt's list item
    this.marked = null; // the list item marked current
    this.list = h("ol.timeline-list", { "aria-label": "attempts, queue moves and cluster changes" });
    this.podSelect = h("select#journey-pod", { "aria-label": "pod", onchange: (e) => this.showPod(e.target.value) });
    this.summary = h("p.timeline-summary");
    this.el = h("details.panel.timeline-panel#timeline-panel", { open: true },
      h("summary", h("h2", "Timeline")),
      h("div.controls", h("label", "Journey of ", this.podSelect)),
      this.summary,
      this.stepsBox,
      this.list);
  }

  async load() {
    try {
      this.story = await api.timeline(this.runId);
    } catch (error) {
      mount(this.list, h("li.muted", `The timeline could not be read: ${error.message}`));
      return;
    }
    this.onStory(this.story);
    const pods = [...new Set(this.story.attempts.map((a) => a.pod))];
    mount(this.podSelect, new Option("every pod", ""), pods.map((pod) => new Option(pod, pod)));
    this.podSelect.value = this.pod;
    this.render();
    if (this.story.steps?.length) this.renderSteps();
  }

  /** A run with steps: each step's summary as the engine wrote it (GET /api/runs/N/timeline `steps`), the
   * cluster at its end (drawn from GET /api/runs/N/steps/K/cluster) and a link to it. */
  renderSteps() {
    const steps = this.story.steps;
    this.clusterBox = h("div.step-cluster#step-cluster", { hidden: true, "aria-live": "polite" });
    this.shareBox = h("input.share-url#step-share-url", { type: "text", readonly: true, hidden: true, "aria-label": "link to this step" });
    const names = (list) => (list.length ? list.join(", ") : "");
    const cell = (list, cls) => h(`td.${cls}`, { title: names(list) }, String(list.length));
    mount(this.stepsBox,
      h("h3", `Steps (${steps.length})`),
      h("table.data.steps-table",
        h("thead", h("tr", ["step", "", "created", "placed", "pending", "evicted", "deleted", "blocked drains", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", steps.map((step) => {
          const sum = step.summary;
          return h("tr.step-row", { dataset: { step: String(step.step) } },
            h("td", String(step.step)),
            h("td.step-name", h("strong", step.name), step.operations.length ? h("div.muted.small", step.operations.join("; ")) : null),
            ...(sum ? [cell(sum.created, "created"), cell(sum.placed, "placed"),
              h("td.pending", { title: names(sum.pending) }, String(sum.pending.length), sum.pending.length ? h("div.muted.small", names(sum.pending.slice(0, 10))) : null),
              cell(sum.evicted, "evicted"), cell(sum.deleted, "deleted"),
              h("td.blocked", sum.blocked.length ? h("ul.plain", sum.blocked.map((b) => h("li", `${b.pod} — budget ${b.budget}`))) : "—")]
              : [h("td", { colspan: "6" }, "under way")]),
            h("td.step-actions", sum ? [
              h("button.linkish.small.step-cluster-button", { type: "button", onclick: () => this.openStep(step.step) }, "cluster at its end"),
              this.stepOptions.share ? h("button.linkish.small.step-share-button", { type: "button", onclick: () => this.shareStep(step.step) }, "share") : null,
            ] : null));
        }))),
      this.shareBox,
      this.clusterBox);
    this.stepsBox.hidden = false;
    const open = this.stepOptions.open;
    if (open !== null && open !== undefined && steps.some((s) => s.step === open && s.summary)) this.openStep(open);
  }

  async openStep(step) {
    if (!this.stepOptions.showCluster) return;
    for (const row of this.stepsBox.querySelectorAll("tr.step-row")) row.classList.toggle("current", row.dataset.step === String(step));
    this.clusterBox.hidden = false;
    mount(this.clusterBox, h("p.muted", `Reading the cluster at the end of step ${step}…`));
    try {
      const box = h("div.step-cluster-view");
      mount(this.clusterBox, h("h3", `The cluster at the end of step ${step}`), box);
      await this.stepOptions.showCluster(step, box);
    } catch (error) {
      mount(this.clusterBox, h("p.notice.notice-error", `The cluster at step ${step} could not be read: ${error.message}`));
    }
    this.clusterBox.scrollIntoView({ block: "nearest" });
  }

  async shareStep(step) {
    try {
      this.shareBox.value = await this.stepOptions.share(step);
      this.shareBox.hidden = false;
      this.shareBox.select();
    } catch (error) {
      this.shareBox.hidden = false;
      this.shareBox.value = `Could not share: ${error.message}`;
    }
  }

  showPod(pod) {
    this.pod = pod;
    this.render();
  }

  /** The stepper moved: mark the attempt it shows (a big run lists thousands: touch only two). */
  select(cycle) {
    this.current = cycle;
    this.marked?.classList.remove("current");
    this.marked = this.attemptItems.get(cycle) ?? null;
    if (!this.marked) return;
    this.marked.classList.add("current");
    this.list.scrollTop = Math.max(0, this.marked.offsetTop - this.list.offsetTop - this.list.clientHeight / 3);
  }

  render() {
    const story = this.story;
    if (!story) return;
    const items = { attempt: story.attempts, move: story.moves, change: story.changes, step: story.steps || [] };
    // A run with steps is grouped by step: each step's heading (kept whatever pod is picked) before its entries.
    const entries = story.entries.map(({ kind, index }) => ({ kind, item: items[kind][index] }))
      .filter(({ kind, item }) => item && (kind === "step" || !this.pod || item.pod === this.pod));
    const rows = entries.map(({ kind, item }) => this.entry(kind, item));
    this.attemptItems = new Map(rows.filter((li) => li.dataset.cycle !== undefined).map((li) => [Number(li.dataset.cycle), li]));
    this.marked = null;
    mount(this.list, rows);
    this.summary.textContent = story.outcome;
    this.select(this.current);
  }

  entry(kind, item) {
    const time = h("span.time", item.time ?? "");
    const label = h("span.kind", KIND_LABEL[kind]);
    if (kind === "step") return h("li.step-heading", { dataset: { kind, step: String(item.step) } }, time, label, h("strong.text", item.text));
    if (kind !== "attempt") return h(`li.${kind}`, { dataset: { kind } }, time, label, h("span.text", item.text));
    const outcome = item.nodeName && !item.bindingError ? "pass" : "fail"; // a failed binding chose a node
    return h(`li.attempt.${outcome}`, { dataset: { kind, cycle: String(item.cycle) } }, time, label,
      h("button.linkish.text", { type: "button", title: `open cycle ${item.cycle} in the stepper`, onclick: () => this.goCycle(item.cycle) },
        item.text));
  }
}
