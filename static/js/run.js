// The run view: a stepper over cycles and extension points, live while the run streams, a replay
// once it has finished. The URL names the step (?cycle=2&step=Filter), so a link opens it exactly.

import { RecordedPanel } from "./recordedpanel.js";
import { TimelinePanel } from "./timelinepanel.js";
import { api } from "./api.js";
import { draw } from "./charts/plot.js";
import { h, mount, notify } from "./dom.js";
import { availableSteps, hasStep, neighbour, outcome, RunModel, STEPS, stepId } from "./runmodel.js";
import { streamRun } from "./socket.js";
import { CycleLoader, cycleLabel } from "./cycleloader.js";
import { releaseLine } from "./releases.js";
import * as bind from "./steps/bind.js";
import * as filter from "./steps/filter.js";
import * as postfilter from "./steps/postfilter.js";
import * as prefilter from "./steps/prefilter.js";
import * as prescore from "./steps/prescore.js";
import * as queue from "./steps/queue.js";
import { renderScores, renderTotal } from "./steps/scores.js";

const SCORING_STEPS = new Set(["PreScore", "Score", "NormalizeScore"]); // what one feasible node skips

const VIEWS = {
  QueueSort: queue.render,
  PreFilter: prefilter.render,
  Filter: filter.render,
  PostFilter: postfilter.render,
  PreScore: prescore.render,
  Score: (ctx) => renderScores(ctx, "weighted"), // the numbers that add up to the total
  NormalizeScore: (ctx) => renderScores(ctx, "normalized"),
  Total: renderTotal,
  Bind: bind.render,
};

const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
// Above these sizes the run view loads one cycle at a time instead of the whole event stream.
const LAZY_EVENTS = 5000;
const LAZY_NODE_CYCLES = 100_000;
const LAZY_POLL_MS = 1500;
const KEEP_CYCLES = 4;
const KEEP_EXPLANATIONS = 16;
const TIMELINE_WAIT_MS = 3000;

export function positionFromQuery(search) {
  const params = new URLSearchParams(search);
  if (!params.has("cycle") && !params.has("step")) return null;
  const cycle = Math.max(0, Number.parseInt(params.get("cycle") || "0", 10) || 0);
  return { cycle, step: stepId(params.get("step")) || "QueueSort" };
}

/** ?changeStep=K: the step of a run with steps to open (a link to a step). */
export function changeStepFromQuery(search) {
  const value = new URLSearchParams(search).get("changeStep");
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

export function stepQuery(pos) {
  return `cycle=${pos.cycle}&step=${pos.step}`;
}

/**
 * mountRun(root, {runId, token, readOnly, initial, actions}) — actions(controller) returns extra
 * header controls (share, fork, exports) so the owner's page and the share page differ only there.
 */
export async function mountRun(root, { runId, token = "", readOnly = false, initial = null, actions = null, changeStep = null }) {
  const c = new RunController(root, { runId, token, readOnly });
  c.changeStep = changeStep; // a run with steps: the step whose cluster opens first (?changeStep=K)
  await c.start(initial, actions);
  return c;
}

class RunController {
  constructor(root, { runId, token, readOnly }) {
    this.root = root;
    this.runId = runId;
    this.token = token;
    this.readOnly = readOnly;
    this.model = new RunModel();
    this.nodeLabels = new Map();
    this.pos = { cycle: 0, step: "QueueSort" };
    this.ui = { scoreKind: null, groupKey: "", onlyFailing: false, expanded: [], nodeFilter: "" };
    this.charts = new Map();
    this.explanations = new Map(); // cycle -> the engine's explanation (or {error}), once the cycle ended
    this.dirty = new Set();
    this.frame = 0;
    this.status = "queued";
    this.pace = new Pace();
  }

  async start(initial, actions) {
    this.loader = new CycleLoader(this.runId); // the run's names (node labels) come from it in any case
    const wanted = initial || positionFromQuery(location.search);
    // A big run shows one cycle as stored: ask for it and the names while the run itself is asked for.
    if (wanted) this.loader.prefetch(wanted.cycle);
    this.run = await api.run(this.runId);
    this.status = this.run.status;
    this.pos = wanted || this.pos;
    this.buildShell(actions);
    const finished = FINISHED.has(this.run.status);
    // A finished run's story (thousands of entries on a big run) is read once its first step is on
    // screen: the step's own requests and drawing go first.
    if (finished) this.afterFirstStep(() => this.loadStory());
    if (!finished) await this.loadNodes(); // a live run's size is known from its node count
    const forced = new URLSearchParams(location.search).get("load") === "cycle"; // ?load=cycle: per cycle at any size
    // A live run will have a cycle per pending pod at least: a 5,000-node run opened as it starts is
    // read per cycle too, not streamed whole into the page (issue 50).
    const cycles = Math.max(this.run.progress.cycles, this.pendingPods || 0);
    this.lazy = forced || (finished ? this.run.eventCount > LAZY_EVENTS : cycles * this.nodeLabels.size > LAZY_NODE_CYCLES);
    if (this.lazy) {
      this.loaded = []; // cycles held in the model, oldest first
      // The step's events and the node labels side by side; the step is drawn as soon as its events
      // are in (on a large scenario the labels are the slow part) and regrouped when they arrive.
      this.pollLazy(true);
      if (finished) this.loadNodes();
    } else {
      if (finished) await this.loadNodes();
      this.stream = streamRun(this.runId, {
        onEvents: (events) => this.onEvents(events),
        onEnd: (status) => this.onEnd(status),
        onError: (error) => notify(error.message, "error"),
      }, { token: this.token });
    }
    document.addEventListener("keydown", (e) => this.onKey(e));
    this.render(true);
  }

  /** A run that "succeeded" ran to its end; a rollout it left stuck is said beside that word, each
   * with kubectl rollout status's sentence as the engine wrote it (OnDelete waits are not stuck). */
  onStory(story) {
    this.recorded.show(story);
    const stuck = (story.steps || []).flatMap((step) => (step.summary?.rollouts || [])
      .filter((r) => !r.complete && r.strategy !== "OnDelete").map((r) => ({ step: step.step, rollout: r })));
    this.stuckLine.hidden = !stuck.length;
    mount(this.stuckLine, stuck.length ? [
      h("strong", `The run ended with ${stuck.length} rollout(s) stuck: `),
      stuck.map(({ step, rollout }, i) => [i ? "; " : "", `${rollout.kind} ${rollout.workload} at the end of step ${step} (`, h("code", rollout.status), ")"]),
      " — the Steps table below says which pods are pending and why."] : []);
    this.root.dataset.rolloutsStuck = String(stuck.length);
  }

  /** The run's story (its summary, GET /api/runs/N/timeline/summary; the timeline panel reads its entries a page
   * at a time), read once the run has ended: the timeline panel (a run to the end) and the recorded answers
   * beside the replay (any run) draw from it. */
  loadStory() {
    if (this.timeline) this.timeline.load();
    else api.timelineSummary(this.runId).then((story) => this.recorded.show(story), () => {});
  }

  /** then() after the first step is painted, or after TIMELINE_WAIT_MS should no step show. */
  afterFirstStep(then) {
    let done = false;
    const once = () => {
      if (!done) then();
      done = true;
    };
    this.firstStepShown = () => requestAnimationFrame(() => setTimeout(once, 0));
    setTimeout(once, TIMELINE_WAIT_MS);
  }

  // --- large runs: one cycle at a time -------------------------------------------------------

  async pollLazy(first = false) {
    try {
      if (!first) this.run = await api.run(this.runId);
      this.status = this.run.status;
      this.model.totalCycles = this.run.progress.cycles;
      // The cycle index (every cycle's pod and outcome, for the picker) and the shown cycle's
      // events are fetched side by side; the step renders as soon as its events are in.
      // The step's events are asked for first (one server thread answers in arrival order).
      const shown = this.ensureCycle(this.pos.cycle);
      const index = this.loader.index().then(() => this.render(false), (error) => notify(`Cycle list unavailable: ${error.message}`, "error"));
      await shown;
      if (FINISHED.has(this.status) && !this.ended) {
        this.ended = true;
        if (!first) this.loadStory(); // a finished run's timeline was asked for at the start
      }
      this.render(true);
      await index;
    } catch (error) {
      notify(error.message, "error");
    }
    if (!this.ended) this.pollTimer = setTimeout(() => this.pollLazy(), LAZY_POLL_MS);
  }

  async ensureCycle(index) {
    const have = this.model.cycles[index];
    if (have?.end || this.loading === index) return;
    if (index >= this.run.progress.cycles || this.run.eventCount === 0) return;
    this.loading = index;
    try {
      const events = await this.loader.load(index, this.run.eventCount);
      this.model.cycles[index] = undefined;
      this.model.add(events);
      this.loaded = [...this.loaded.filter((c) => c !== index), index];
      while (this.loaded.length > KEEP_CYCLES) {
        const old = this.loaded.shift();
        if (old !== this.pos.cycle) this.model.cycles[old] = undefined;
      }
    } finally {
      this.loading = null;
    }
  }

  /** The node labels: from the run's names (kept with the run; the per-cycle loader decodes with
   * them too), else the version's /nodes; the full /objects (or the YAML) on an older server. */
  async nodeList() {
    const names = await this.loader.names().catch(() => null);
    if (names) {
      this.pendingPods = (names.pods || []).length;
      return names.nodes;
    }
    try {
      return (await api.nodes(this.run.scenario, this.run.version)).nodes || [];
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    const { loadObjects } = await import("./objects.js");
    return (await loadObjects(this.run.scenario, this.run.version)).nodes;
  }

  async loadNodes() {
    try {
      const nodes = await this.nodeList();
      this.nodeLabels = new Map(nodes.map((n) => [n.name, n.labels || {}]));
      this.root.dataset.nodes = String(this.nodeLabels.size);
      if (this.view) this.render(true);
    } catch (error) {
      notify(`Node labels unavailable (${error.message}); domain views are limited.`, "info");
    }
  }

  /** A run with steps: the cluster at the end of a step drawn in the timeline panel, a link that opens it. */
  stepOptions() {
    const run = this.run;
    return {
      open: this.changeStep,
      // Loaded when first asked for: the run view's own modules stay as they were (no YAML parser, no cluster layout).
      showCluster: async (step, box) => (await import("./clusterview.js")).mountClusterView(box,
        { scenarioId: run.scenario, version: run.version, runId: this.runId, runStep: step }),
      share: this.readOnly ? null : async (step) => (await api.share(run.scenario, { run: this.runId, step: `changeStep=${step}` })).url,
    };
  }

  buildShell(actions) {
    // A run to the end: its attempts, queue moves and cluster changes in order, read once it has ended.
    this.recorded = new RecordedPanel();
    this.timeline = this.run.mode === "timeline"
      ? new TimelinePanel(this.runId, (cycle) => this.goAttempt(cycle), (story) => this.onStory(story), this.stepOptions())
      : null;
    if (this.timeline) this.timeline.current = this.pos.cycle;
    this.progress = h("progress", { max: "1", value: "0", "aria-label": "cycles finished" });
    this.progressText = h("span.progress-text");
    // A cycle picked keeps the step when it ran there, else opens its first (as Shift+→ and the timeline do).
    this.cycleSelect = h("select#cycle-select", { "aria-label": "cycle", onchange: (e) => this.goAttempt(Number(e.target.value)) });
    this.tabs = h("ol.steps", { "aria-label": "extension points" },
      STEPS.map((s) => h("li", h("button.step", { type: "button", dataset: { step: s.id }, onclick: () => this.go({ cycle: this.pos.cycle, step: s.id }) }, s.label))));
    this.view = h("div#step-view", { tabindex: "-1" });
    this.heading = h("h2#step-heading");
    this.errorLine = h("p.notice.notice-error.run-error", { role: "alert", hidden: true });
    this.stuckLine = h("p.notice.notice-warn.run-stuck#run-stuck", { hidden: true });
    mount(this.root,
      h("div.run-status", this.progress, this.progressText, actions ? actions(this) : null),
      // The release this run is replayed as and why (chosen when it started: the server's sentence).
      releaseLine(this.run.release, { id: "run-release", lead: "Replayed as" }),
      this.errorLine,
      this.stuckLine,
      this.recorded.el,
      this.timeline?.el ?? null,
      h("nav.stepper", { "aria-label": "run steps" },
        h("div.cycle-nav",
          h("button#prev-cycle", { type: "button", title: "previous cycle (Shift+←)", onclick: () => this.moveCycle(-1) }, "◀ cycle"),
          this.cycleSelect,
          h("button#next-cycle", { type: "button", title: "next cycle (Shift+→)", onclick: () => this.moveCycle(1) }, "cycle ▶")),
        this.tabs,
        h("p.hint", "Keys: ← → step · Shift+← → cycle")),
      this.heading,
      this.view);
  }

  onEvents(events) {
    this.model.add(events);
    for (const e of events) this.dirty.add(e.cycle);
    this.schedule();
  }

  async onEnd(status) {
    this.status = status;
    this.ended = true;
    this.loadStory();
    if (status !== "succeeded") this.run = await api.run(this.runId).catch(() => this.run); // its error text
    this.dirty.add(this.pos.cycle);
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render(this.dirty.has(this.pos.cycle));
      this.dirty.clear();
    });
  }

  render(stepChanged) {
    this.renderProgress();
    this.renderCycleOptions();
    this.renderTabs();
    if (stepChanged) this.renderStep();
  }

  renderProgress() {
    // A run to the end may retry pods: more attempts than pending pods (the server's count decides).
    const counted = this.lazy ? this.run.progress.cycle : this.model.finishedCycles;
    const total = Math.max(this.model.totalCycles || this.run.progress?.cycles || 0, counted);
    const done = FINISHED.has(this.status) ? total : counted;
    const events = this.lazy ? this.run.eventCount : this.model.eventCount;
    this.progress.max = Math.max(1, total);
    this.progress.value = done;
    const pace = FINISHED.has(this.status) ? "" : this.pace.sample(done, total);
    this.progressText.textContent = `${this.status} · ${done}/${total} cycle(s)${pace} · ${events} events${this.lazy ? " · loading one cycle at a time" : ""}`;
    this.errorLine.hidden = !(this.ended && this.run.error);
    this.errorLine.textContent = this.run.error ? `The run ${this.status}: ${this.run.error}` : "";
    // "succeeded" etc. only once every event has arrived (tests and links wait on it).
    this.root.dataset.status = this.ended ? this.status : "streaming";
  }

  renderCycleOptions() {
    const select = this.cycleSelect;
    const count = this.lazy ? this.run.progress.cycles : this.model.cycles.length;
    // Every render passes here; the 1000 labels of a big run change only when cycles arrive.
    const state = `${count}|${this.loader?.entries.size}|${this.model.eventCount}|${this.lazy ? this.loaded?.join(",") : ""}`;
    if (state !== this.optionsState) {
      this.optionsState = state;
      const added = document.createDocumentFragment();
      for (let i = 0; i < count; i += 1) {
        const cycle = this.model.cycles[i];
        if (!cycle && !this.lazy) continue;
        const text = cycleLabel(i, cycle, this.loader?.entry(i), outcome);
        const option = select.options[i];
        if (!option) added.append(new Option(text, String(i)));
        else if (option.text !== text) option.text = text;
      }
      select.append(added);
    }
    if (select.value !== String(this.pos.cycle) && select.options[this.pos.cycle]) select.value = String(this.pos.cycle);
  }

  renderTabs() {
    const cycle = this.model.cycles[this.pos.cycle];
    // One feasible node: the release scores nothing (the engine's explanation says so).
    const skipped = cycle?.end ? this.explanations.get(cycle.index)?.scoring?.skipped === true : false;
    for (const button of this.tabs.querySelectorAll("button.step")) {
      const id = button.dataset.step;
      button.disabled = !hasStep(cycle, id);
      const skip = skipped && SCORING_STEPS.has(id);
      button.classList.toggle("skipped", skip);
      if (skip) button.title = "Skipped by kube-scheduler: one feasible node";
      else button.removeAttribute("title");
      if (id === this.pos.step) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    }
  }

  renderStep() {
    const cycle = this.model.cycles[this.pos.cycle];
    const step = STEPS.find((s) => s.id === this.pos.step);
    // 1-based for people, as the CLI and the timeline count attempts (the URL keeps the index).
    this.heading.textContent = `Cycle ${this.pos.cycle + 1}${cycle?.pod ? ` · ${cycle.pod}` : ""} · ${step.label}`;
    if (!cycle || !hasStep(cycle, this.pos.step)) {
      const waiting = !FINISHED.has(this.status) || (this.lazy && !cycle);
      mount(this.view, h("p.note", waiting ? "Waiting for this step's events…" : "This step did not run in this cycle."));
      return;
    }
    const ctx = {
      cycle,
      runId: this.runId,
      readOnly: this.readOnly,
      model: this.model,
      nodeLabels: this.nodeLabels,
      ui: this.ui,
      explanation: this.explanation(cycle),
      plot: (key, figure) => this.plot(key, figure),
      update: (patch) => {
        Object.assign(this.ui, patch);
        this.renderStep();
      },
      goStep: (step) => this.go({ cycle: this.pos.cycle, step }),
    };
    this.pendingDraws = [];
    performance.mark("step-build");
    mount(this.view, VIEWS[this.pos.step](ctx));
    performance.mark("step-mounted");
    requestAnimationFrame(() => setTimeout(() => performance.mark("step-painted"), 0));
    // "atEnd": → has nowhere to go (the run's last step); set before "shown", which says the step is drawn.
    this.root.dataset.atEnd = String(this.stepFrom(1) === null);
    this.root.dataset.shown = `${this.pos.cycle}:${this.pos.step}:${this.nodeLabels.size ? "grouped" : "plain"}`;
    for (const drawNow of this.pendingDraws) drawNow(); // after mounting, so Plotly sizes to the page
    this.firstStepShown?.();
  }

  /**
   * The engine's explanation of a finished cycle (GET .../cycles/N/explain), fetched once and kept:
   * null while it loads (the step redraws when it arrives), {error} when it could not be read.
   */
  explanation(cycle) {
    const index = cycle.index;
    if (this.explanations.has(index)) return this.explanations.get(index);
    if (!cycle.end) return null; // a live cycle is explained once it has ended
    this.explanations.set(index, null);
    // Keep the last few (an explanation of a 5000-node cycle lists its nodes).
    for (const old of this.explanations.keys()) {
      if (this.explanations.size <= KEEP_EXPLANATIONS) break;
      if (old !== index) this.explanations.delete(old);
    }
    api.explain(this.runId, index).then(
      (found) => this.explained(index, found),
      (error) => this.explained(index, { error: error.message }));
    return null;
  }

  explained(index, found) {
    this.explanations.set(index, found);
    if (this.pos.cycle === index) {
      this.renderTabs();
      this.renderStep();
    }
  }

  /** A chart element for the view being built; drawn once it is in the document. */
  plot(key, figure) {
    const el = this.chart(key);
    this.pendingDraws.push(() => draw(el, figure.data, figure.layout, key));
    return el;
  }

  /** A persistent chart element per key, so Plotly.react updates in place (uirevision keeps zoom). */
  chart(key) {
    if (!this.charts.has(key)) this.charts.set(key, h("div.chart", { dataset: { chart: key } }));
    return this.charts.get(key);
  }

  go(pos) {
    const cycleChanged = pos.cycle !== this.pos.cycle;
    this.pos = pos;
    if (cycleChanged) Object.assign(this.ui, { expanded: [], reason: null });
    const token = new URLSearchParams(location.search).get("token"); // a run opened through a share link keeps it
    history.replaceState(null, "", `${location.pathname}?${stepQuery(pos)}${token ? `&token=${encodeURIComponent(token)}` : ""}`);
    this.timeline?.select(pos.cycle);
    this.render(true);
    if (this.lazy && !this.model.cycles[pos.cycle]?.end) {
      this.ensureCycle(pos.cycle).then(() => this.render(true), (error) => notify(error.message, "error"));
    }
  }

  /** From the timeline or the cycle picker: the attempt's cycle, on the same step when it ran there, else its first. */
  goAttempt(cycle) {
    const target = this.model.cycles[cycle];
    const steps = target ? availableSteps(target) : [];
    this.go({ cycle, step: !target || steps.includes(this.pos.step) ? this.pos.step : steps[0] || "QueueSort" });
  }

  moveCycle(direction) {
    const target = this.pos.cycle + direction;
    const cycle = this.model.cycles[target];
    if (this.lazy && !cycle && target >= 0 && target < this.run.progress.cycles) {
      this.go({ cycle: target, step: this.pos.step });
      return;
    }
    if (!cycle) return;
    const steps = availableSteps(cycle);
    this.go({ cycle: target, step: steps.includes(this.pos.step) ? this.pos.step : steps[0] || "QueueSort" });
  }

  onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    // The cycle picker is the stepper's own control: ←/→ step there too (instead of the select
    // switching options by itself); in every other field the arrows edit as usual.
    if (event.target !== this.cycleSelect && event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const direction = event.key === "ArrowRight" ? 1 : -1;
    event.preventDefault();
    if (event.shiftKey) {
      this.moveCycle(direction);
      return;
    }
    const next = this.stepFrom(direction);
    if (next) this.go(next);
  }

  /** The step ←/→ goes to from here (direction -1/+1), or null at either end of the run. */
  stepFrom(direction) {
    let next = neighbour(this.model, this.pos, direction);
    if (this.lazy && next && next.cycle !== this.pos.cycle) next = null; // other cached cycles are not adjacent
    if (next) return next;
    if (this.lazy && this.pos.cycle + direction >= 0 && this.pos.cycle + direction < this.run.progress.cycles) {
      return { cycle: this.pos.cycle + direction, step: direction > 0 ? "QueueSort" : "Bind" };
    }
    return null;
  }

  close() {
    this.stream?.close();
    clearTimeout(this.pollTimer);
  }
}

/** Attempts per second and the time left, from the cycles finished over the last few seconds
 * (one scheduling attempt per cycle). Shown while a run is live; the counts come from the server. */
export class Pace {
  constructor(windowMs = 5000, now = () => performance.now()) {
    this.windowMs = windowMs;
    this.now = now;
    this.samples = []; // [time, cycles done]
  }

  sample(done, total) {
    const at = this.now();
    const last = this.samples[this.samples.length - 1];
    if (!last || last[1] !== done) this.samples.push([at, done]);
    while (this.samples.length > 2 && at - this.samples[0][0] > this.windowMs) this.samples.shift();
    const [firstAt, firstDone] = this.samples[0];
    const seconds = (at - firstAt) / 1000;
    if (seconds < 0.5 || done <= firstDone) return "";
    const rate = (done - firstDone) / seconds;
    const left = Math.max(0, total - done) / rate;
    return ` · ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} attempts/s · ~${formatDuration(left)} left`;
  }
}

function formatDuration(seconds) {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** The share box: makes a read-only link to this version, run and step. */
export function shareControl(controller) {
  const output = h("input.share-url", { type: "text", readonly: true, "aria-label": "share link", hidden: true });
  const copy = h("button", { type: "button", hidden: true, onclick: async () => {
    output.select();
    try {
      await navigator.clipboard.writeText(output.value);
      notify("Link copied.");
    } catch {
      document.execCommand?.("copy");
    }
  } }, "Copy");
  const button = h("button#share-button", { type: "button", onclick: async () => {
    try {
      const link = await api.share(controller.run.scenario, { run: controller.runId, step: stepQuery(controller.pos) });
      output.value = link.url;
      output.hidden = false;
      copy.hidden = false;
      output.select();
    } catch (error) {
      notify(error.code === "forbidden" ? `${error.message}` : `Could not share: ${error.message}`, "error");
    }
  } }, "Share this step");
  return h("span.share", button, output, copy);
}

