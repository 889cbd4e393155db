// The run to the end, told in order: every attempt (opens the stepper on it), every queue move and
// every change to the cluster, each with its time on the run's logical clock. A pod picked in the
// list shows its journey: its attempts, why it was moved back to the queue, its nomination and
// binding. The sentences and the times are the engine's (GET /api/runs/N/timeline); this file only
// lays them out and filters them by pod.

import { api } from "./api.js";
import { h, mount } from "./dom.js";

const KIND_LABEL = { attempt: "attempt", move: "queue", change: "cluster" };

export class TimelinePanel {
  /** goCycle(n): open the stepper on cycle n; onStory(story): the story as read (other panels draw from it). */
  constructor(runId, goCycle, onStory = () => {}) {
    this.runId = runId;
    this.goCycle = goCycle;
    this.onStory = onStory;
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
    const items = { attempt: story.attempts, move: story.moves, change: story.changes };
    const entries = story.entries.map(({ kind, index }) => ({ kind, item: items[kind][index] }))
      .filter(({ item }) => !this.pod || item.pod === this.pod);
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
    if (kind !== "attempt") return h(`li.${kind}`, { dataset: { kind } }, time, label, h("span.text", item.text));
    const outcome = item.nodeName && !item.bindingError ? "pass" : "fail"; // a failed binding chose a node
    return h(`li.attempt.${outcome}`, { dataset: { kind, cycle: String(item.cycle) } }, time, label,
      h("button.linkish.text", { type: "button", title: `open cycle ${item.cycle} in the stepper`, onclick: () => this.goCycle(item.cycle) },
        item.text));
  }
}
