// The run to the end, told in order: every attempt (opens the stepper on it), every queue move and
// every change to the cluster, each with its time on the run's logical clock — a page at a time (a big
// run has hundreds of thousands): GET /api/runs/N/timeline/summary says how the run ended and how many
// there are, GET /api/runs/N/timeline/entries a window of them, filtered by pod (a pod's journey: its
// attempts, why it was moved back to the queue, its nomination and binding) or kind. The sentences,
// times and counts are the engine's and the server's; this file only lays them out.

import { api } from "./api.js";
import { h, mount } from "./dom.js";
import { checked } from "./schemacheck.js";

const KIND_LABEL = { attempt: "attempt", move: "queue", change: "cluster", step: "step" };
const KIND_SCHEMA = { attempt: "StoryAttempt", move: "StoryMove", change: "StoryChange", step: "StoryStep" };
const KIND_CHOICES = [["", "every kind"], ["attempt", "attempts"], ["move", "queue moves"], ["change", "cluster changes"], ["step", "steps"]];
const PAGE_ENTRIES = 200; // entries in a page (the server's default; it allows 1000 at most)

export class TimelinePanel {
  /** goCycle(n): open the stepper on cycle n; onStory(summary): the story's summary as read (other panels draw from it). */
  /** steps (a run with steps): {showCluster(step, box), share(step) -> url | null, open: the step to open first}. */
  constructor(runId, goCycle, onStory = () => {}, steps = {}) {
    this.runId = runId;
    this.goCycle = goCycle;
    this.onStory = onStory;
    this.stepOptions = steps;
    this.stepsBox = h("section.steps-summary#steps-summary", { hidden: true, "aria-label": "steps" });
    this.story = null; // the summary (GET .../timeline/summary)
    this.query = { pod: "", kind: "" };
    this.page = null; // the last page answered
    this.first = 0; // the offset of the first entry drawn
    this.rows = []; // the entries drawn ({kind, index, item}), from `first`
    this.current = null;
    this.asked = 0; // the latest request's number: an older answer arriving late is dropped
    this.loading = null; // the summary and first page being read
    this.attemptItems = new Map(); // cycle -> its attempt's list item
    this.marked = null; // the list item marked current
    this.list = h("ol.timeline-list", { "aria-label": "attempts, queue moves and cluster changes" });
    this.podInput = h("input#journey-pod", { type: "search", placeholder: "pod name, or part of it", "aria-label": "pod" });
    this.kindSelect = h("select#timeline-kind", { "aria-label": "kind", onchange: (e) => this.ask({ kind: e.target.value }) },
      KIND_CHOICES.map(([value, label]) => h("option", { value }, label)));
    this.counts = h("p.timeline-counts.muted#timeline-counts");
    this.pager = h("div.timeline-pager#timeline-pager");
    this.summary = h("p.timeline-summary");
    this.el = h("details.panel.timeline-panel#timeline-panel", { open: true },
      h("summary", h("h2", "Timeline")),
      h("div.controls",
        h("form.inline#timeline-search", { onsubmit: (e) => { e.preventDefault(); this.ask({ pod: this.podInput.value.trim() }); } },
          h("label", "Journey of ", this.podInput), h("button", { type: "submit" }, "show"),
          h("button.linkish#timeline-every-pod", { type: "button", onclick: () => { this.podInput.value = ""; this.ask({ pod: "" }); } }, "every pod")),
        h("label", " Kind ", this.kindSelect)),
      this.summary,
      this.stepsBox,
      this.counts,
      this.list,
      this.pager);
  }

  /** Reads the summary and the first page (once: a second call while it is read waits for the same). */
  load() {
    this.loading ??= this.read().finally(() => { this.loading = null; });
    return this.loading;
  }

  async read() {
    let served;
    try {
      served = await api.timelineSummary(this.runId);
    } catch (error) {
      mount(this.list, h("li.muted", `The timeline could not be read: ${error.message}`));
      return;
    }
    this.onStory(served); // the summary: mode, outcome, counts, steps, recorded
    this.story = served;
    this.summary.textContent = served.outcome;
    if (served.steps?.length) this.renderSteps();
    await this.show(0, { cycle: this.current ?? undefined }); // the first page, or the one holding the attempt shown
  }

  /** A new filter: its first page. */
  ask(patch) {
    Object.assign(this.query, patch);
    return this.show(0);
  }

  /** The page of entries from `offset` (or the page holding `cycle`'s attempt); `append`: after those drawn. */
  async show(offset, { append = false, cycle = undefined } = {}) {
    const number = ++this.asked;
    this.el.dataset.loading = "true";
    let page;
    try {
      page = await api.timelineEntries(this.runId, {
        pod: this.query.pod || undefined, kind: this.query.kind || undefined, offset, limit: PAGE_ENTRIES, cycle,
      });
    } catch (error) {
      if (number === this.asked) mount(this.list, h("li.muted", `The timeline could not be read: ${error.message}`));
      return;
    }
    if (number !== this.asked) return;
    this.page = page;
    const entries = page.entries.map((e) => ({ ...e, item: checked(e.item, KIND_SCHEMA[e.kind]) }));
    if (append) this.rows = this.rows.concat(entries);
    else {
      this.first = page.offset;
      this.rows = entries;
    }
    this.render();
    this.el.dataset.loading = "";
  }

  /** A run with steps: each step's summary as the engine wrote it (GET /api/runs/N/timeline `steps`: the pods it
   * created, placed, made succeed, left pending, evicted, deleted — each count opens to the names —, the drains a
   * budget blocked, and each rollout under way when it went quiet with kubectl rollout status's words), the cluster
   * at its end (drawn from GET /api/runs/N/steps/K/cluster) and a link to it. */
  renderSteps() {
    const steps = this.story.steps;
    this.clusterBox = h("div.step-cluster#step-cluster", { hidden: true, "aria-live": "polite" });
    this.shareBox = h("input.share-url#step-share-url", { type: "text", readonly: true, hidden: true, "aria-label": "link to this step" });
    const columns = ["created", "placed", "succeeded", "pending", "evicted", "deleted"];
    const heads = { pending: "still pending" };
    const width = 2 + columns.length + 2;
    mount(this.stepsBox,
      h("h3", `Steps (${steps.length})`),
      h("table.data.steps-table",
        h("thead", h("tr", ["step", "", ...columns.map((c) => heads[c] || c), "blocked drains", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", steps.flatMap((step) => {
          const sum = step.summary;
          const row = h("tr.step-row", { dataset: { step: String(step.step) } },
            h("td", String(step.step)),
            h("td.step-name", h("strong", step.name), step.operations.length ? h("div.muted.small", step.operations.join("; ")) : null),
            ...(sum ? [...columns.map((c) => c === "pending" && sum.pendingWhy ? pendingCell(sum.pendingWhy, sum.counts?.pending, step.step)
              : podsCell(sum[c] || [], sum.counts?.[c], c, step.step)),
              h("td.blocked", sum.blocked.length ? h("ul.plain", sum.blocked.map((b) => h("li", `${b.pod} — budget ${b.budget}`))) : "—")]
              : [h("td", { colspan: String(columns.length + 1) }, "under way")]),
            h("td.step-actions", sum ? [
              h("button.linkish.small.step-cluster-button", { type: "button", onclick: () => this.openStep(step.step) }, "cluster at its end"),
              this.stepOptions.share ? h("button.linkish.small.step-share-button", { type: "button", onclick: () => this.shareStep(step.step) }, "share") : null,
            ] : null));
          return [row, ...(sum?.rollouts || []).map((rollout) => rolloutRow(rollout, step.step, width))];
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

  /** The stepper moved: mark the attempt it shows; one not drawn brings the page holding it. */
  select(cycle) {
    this.current = cycle;
    if (!this.page) return;
    if (cycle !== null && cycle !== undefined && !this.attemptItems.has(cycle) && (!this.query.kind || this.query.kind === "attempt")) {
      this.show(0, { cycle });
      return;
    }
    this.mark();
  }

  mark() {
    this.marked?.classList.remove("current");
    this.marked = this.attemptItems.get(this.current) ?? null;
    if (!this.marked) return;
    this.marked.classList.add("current");
    this.list.scrollTop = Math.max(0, this.marked.offsetTop - this.list.offsetTop - this.list.clientHeight / 3);
  }

  render() {
    const page = this.page;
    const rows = this.rows.map(({ kind, item }) => this.entry(kind, item));
    this.attemptItems = new Map(rows.filter((li) => li.dataset.cycle !== undefined).map((li) => [Number(li.dataset.cycle), li]));
    this.marked = null;
    const last = this.first + rows.length; // one past the last entry drawn, of those matching
    const left = page.matched - last;
    const which = [this.query.kind ? KIND_CHOICES.find(([k]) => k === this.query.kind)[1] : "", this.query.pod ? `of pods matching “${this.query.pod}”` : ""]
      .filter(Boolean).join(" ");
    this.counts.textContent = page.matched
      ? `entries ${this.first + 1}–${last} of ${page.matched}${which ? ` (${which}; ${page.total} in all)` : ""}`
      : `no entries${which ? ` ${which}` : ""} (${page.total} in all)`;
    const more = left > 0 ? h("li.timeline-more", h("span.muted", `${left} more `),
      h("button.linkish#timeline-more", { type: "button", onclick: () => this.show(last, { append: true }) },
        `show ${Math.min(left, PAGE_ENTRIES)} more`)) : null;
    mount(this.list, rows, more);
    mount(this.pager,
      h("button#timeline-prev", { type: "button", disabled: this.first === 0, onclick: () => this.show(Math.max(0, this.first - PAGE_ENTRIES)) }, "← previous page"),
      " ",
      h("button#timeline-next", { type: "button", disabled: left <= 0, onclick: () => this.show(last) }, "next page →"));
    this.mark();
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

/** The server lists a step's first pods (its `counts` says how many in all): a line says so under a cut list. */
function firstOf(shown, count) {
  return count > shown ? h("li.muted.pods-cut", `the first ${shown} of ${count}: search the timeline for a pod`) : null;
}

/** A count of pods that opens to their names (the engine's lists, in the order things happened). */
function podsCell(pods, count, cls, step) {
  const all = count ?? pods.length;
  if (!all) return h(`td.${cls}`, h("span.count", "0"));
  return h(`td.${cls}`, h("details.pods-list", h("summary", { "aria-label": `${all} ${cls} in step ${step}: show the pods` },
    h("span.count", String(all))), h("ul.plain.small", pods.map((pod) => h("li", pod)), firstOf(pods.length, all))));
}

/** The pods still pending when the step went quiet, each with why: its last FailedScheduling message (the engine's
 * `pendingWhy`; a rollout's new pods or any other). */
function pendingCell(pending, count, step) {
  const all = count ?? pending.length;
  if (!all) return h("td.pending", h("span.count", "0"));
  return h("td.pending", h("details.pods-list", h("summary", { "aria-label": `${all} pending in step ${step}: show the pods` },
    h("span.count", String(all))), h("ul.plain.small", pending.map((p) => h("li.pending-pod", { dataset: { pod: p.pod } },
      h("strong", p.pod), " — ", h("span.why", p.failedSchedulingMessage ?? "not attempted yet"))), firstOf(pending.length, all))));
}

/** A Deployment rollout's progress deadline: when it passes if nothing moves the rollout, or that it passed. */
function deadlineLine(deadline) {
  if (!deadline) return null;
  const words = deadline.exceeded ? `exceeded: passed at ${deadline.passesAt} (ProgressDeadlineExceeded)`
    : `passes at ${deadline.passesAt} unless the rollout progresses`;
  return h("p.rollout-deadline.small", { dataset: { exceeded: String(deadline.exceeded) } },
    `progress deadline (${deadline.seconds} s) ${words}`);
}

/** A rollout under way when its step went quiet: its counts as kubectl rollout status reads them, the engine's
 * sentence, complete or stuck (the engine's `complete`; OnDelete waits for deletes) and, when stuck, each new pod
 * still pending with its last FailedScheduling message. */
function rolloutRow(rollout, step, width) {
  const state = rollout.complete ? ["complete", "✓ complete"]
    : rollout.strategy === "OnDelete" ? ["waiting", "… waiting for deletes (OnDelete)"] : ["stuck", "✗ stuck"];
  const counts = [["new", rollout.updated], ["old", rollout.oldPods.length], ["available", rollout.available], ["desired", rollout.desired]];
  return h(`tr.rollout-row.rollout-${state[0]}`, { dataset: { step: String(step), workload: rollout.workload } },
    h("td"),
    h("td", { colspan: String(width - 1) },
      h("div.rollout-head",
        h("strong", `rollout of ${rollout.kind} ${rollout.workload}`), ` to revision ${rollout.revision} (${rollout.updateRevision}) `,
        h(`span.rollout-state.${state[0]}`, state[1]),
        h("span.rollout-counts", counts.map(([label, n]) => h("span.rollout-count", { dataset: { count: label } }, `${label} ${n}`))),
        rollout.partition !== undefined && rollout.partition !== null ? h("span.muted", ` partition ${rollout.partition}`) : null,
        rollout.paused ? h("span.rollout-paused", " paused") : null),
      h("p.rollout-status", h("code", rollout.status)),
      deadlineLine(rollout.progressDeadline),
      rollout.pending.length ? h("div.rollout-pending",
        h("span", rollout.complete ? "pending new pods:" : "stuck on the new pods still pending:"),
        h("ul.plain", rollout.pending.map((p) => h("li.rollout-pending-pod", { dataset: { pod: p.pod } },
          h("strong", p.pod), " — ", h("span.why", p.failedSchedulingMessage ?? "not attempted yet"))))) : null,
      rollout.oldPods.length ? h("details.pods-list.rollout-old", h("summary", `${rollout.oldPods.length} old pod(s) left`),
        h("ul.plain.small", rollout.oldPods.map((pod) => h("li", pod)))) : null));
}
