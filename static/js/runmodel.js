// Events (docs/ENGINE_API.md) -> cycles -> steps. Pure: no DOM, no drawing, no arithmetic on scores.

import { checked } from "./schemacheck.js";

export const POINT = Object.freeze({
  CYCLE_START: "CycleStart",
  QUEUE_SORT: "QueueSort",
  PRE_FILTER: "PreFilter",
  FILTER: "Filter",
  POST_FILTER: "PostFilter",
  PRE_SCORE: "PreScore",
  SCORE: "Score",
  NORMALIZE_SCORE: "NormalizeScore",
  TOTAL: "Total",
  RESERVE: "Reserve",
  PERMIT: "Permit",
  PRE_BIND: "PreBind",
  BIND: "Bind",
  POST_BIND: "PostBind",
  CYCLE_END: "CycleEnd",
});

/** What a run to the end adds between cycles (not extension points: kept apart from the steps). */
const LOOP_POINTS = new Set(["RunStart", "AttemptEnd", "QueueMove", "Cluster", "RunEnd", "StepStart", "StepEnd"]);

export const PLUGIN = Object.freeze({
  POD_TOPOLOGY_SPREAD: "PodTopologySpread",
  INTER_POD_AFFINITY: "InterPodAffinity",
});

/** The stepper's steps, in framework order; "Bind" gathers Reserve, Permit, PreBind, Bind, PostBind. */
export const STEPS = Object.freeze([
  { id: "QueueSort", label: "QueueSort", points: [POINT.CYCLE_START, POINT.QUEUE_SORT] },
  { id: "PreFilter", label: "PreFilter", points: [POINT.PRE_FILTER] },
  { id: "Filter", label: "Filter", points: [POINT.FILTER] },
  { id: "PostFilter", label: "PostFilter", points: [POINT.POST_FILTER] },
  { id: "PreScore", label: "PreScore", points: [POINT.PRE_SCORE] },
  { id: "Score", label: "Score", points: [POINT.SCORE] },
  { id: "NormalizeScore", label: "NormalizeScore", points: [POINT.NORMALIZE_SCORE] },
  { id: "Total", label: "Total", points: [POINT.TOTAL] },
  { id: "Bind", label: "Reserve · Permit · Bind", points: [POINT.RESERVE, POINT.PERMIT, POINT.PRE_BIND, POINT.BIND, POINT.POST_BIND, POINT.CYCLE_END] },
]);

const STEP_OF_POINT = new Map(STEPS.flatMap((s) => s.points.map((p) => [p, s.id])));

export function stepId(name) {
  const wanted = String(name || "").toLowerCase();
  return STEPS.find((s) => s.id.toLowerCase() === wanted || s.points.some((p) => p.toLowerCase() === wanted))?.id ?? null;
}

function newCycle(index) {
  return {
    index,
    pod: "",
    start: null, // CycleStart payload
    end: null, // CycleEnd payload
    points: {}, // point -> {plugins: Map(plugin -> payload), summary: payload | null}
  };
}

/** Mutable accumulator fed in seq order (live) — the views read it through the functions below. */
export class RunModel {
  constructor() {
    this.cycles = [];
    this.eventCount = 0;
    this.totalCycles = 0;
  }

  add(events) {
    for (const event of events) this.addOne(event);
  }

  addOne(received) {
    const event = checked(received, "Event"); // every view reads the events from here
    this.eventCount += 1;
    const point = event.extensionPoint;
    if (LOOP_POINTS.has(point)) {
      // Queue moves and cluster changes name other pods: the cycle's pod comes from its own events.
      if (point === "AttemptEnd") this.attemptEnded(event);
      return;
    }
    const cycle = (this.cycles[event.cycle] ||= newCycle(event.cycle));
    cycle.pod ||= event.pod || "";
    if (point === POINT.CYCLE_START) {
      cycle.start = event.payload;
      this.totalCycles = Math.max(this.totalCycles, event.payload?.cycles || 0);
      return;
    }
    if (point === POINT.CYCLE_END) cycle.end = event.payload;
    const slot = (cycle.points[point] ||= { plugins: new Map(), summary: null });
    if (event.plugin === null || event.plugin === undefined) slot.summary = event.payload;
    else slot.plugins.set(event.plugin, event.payload);
  }

  /** An attempt's end; one that corrects an earlier attempt's (a binding blocked in PreBind that a
   * preemption cancelled) changes only that attempt's binding error. */
  attemptEnded(event) {
    const corrected = event.payload.correctsCycle;
    if (corrected === undefined || corrected === null) {
      (this.cycles[event.cycle] ||= newCycle(event.cycle)).attemptEnd = event.payload;
      return;
    }
    const earlier = (this.cycles[corrected] ||= newCycle(corrected));
    earlier.attemptEnd = { ...(earlier.attemptEnd || {}), bindingError: event.payload.bindingError };
  }

  get finishedCycles() {
    return this.cycles.filter((c) => c && c.end).length;
  }
}

export function hasStep(cycle, id) {
  if (!cycle) return false;
  if (id === "QueueSort") return Boolean(cycle.start || cycle.points[POINT.QUEUE_SORT]);
  // PreFilter rejected the pod: Filter did not run, but its step says so (and links to PreFilter).
  if (id === "Filter" && cycle.points[POINT.PRE_FILTER]?.summary?.status) return true;
  const step = STEPS.find((s) => s.id === id);
  return step.points.some((p) => p !== POINT.CYCLE_END && cycle.points[p]) || (id === "Bind" && Boolean(cycle.end));
}

export function availableSteps(cycle) {
  return STEPS.filter((s) => hasStep(cycle, s.id)).map((s) => s.id);
}

/** The next/previous (cycle, step) that exists, crossing cycle boundaries. */
export function neighbour(model, position, direction) {
  const order = [];
  for (const cycle of model.cycles) {
    if (!cycle) continue;
    for (const id of availableSteps(cycle)) order.push({ cycle: cycle.index, step: id });
  }
  const at = order.findIndex((p) => p.cycle === position.cycle && p.step === position.step);
  const next = order[at + direction];
  return next || null;
}

export function stepOfPoint(point) {
  return STEP_OF_POINT.get(point) || null;
}

// --- per-step projections ----------------------------------------------------------------------

export function point(cycle, name) {
  return cycle?.points[name] || { plugins: new Map(), summary: null };
}

/** The outcome of a cycle, as the engine reported it. */
export function outcome(cycle) {
  if (!cycle?.end) return { done: false };
  return {
    done: true,
    nodeName: cycle.end.nodeName ?? null,
    message: cycle.end.failedSchedulingMessage ?? null,
    error: cycle.end.error ?? null,
  };
}

/**
 * Filter matrix: {plugins, nodes: [{name, feasible, cells: {plugin: status|null}}], evaluated, feasible}.
 * A node is listed when the Filter summary evaluated it (or, before the summary arrives, when a
 * plugin reported on it).
 */
export function filterMatrix(cycle) {
  const slot = point(cycle, POINT.FILTER);
  const plugins = [...slot.plugins.keys()];
  const summary = slot.summary;
  const feasible = new Set(summary?.feasibleNodes || []);
  let names = summary?.evaluated;
  if (!names) {
    const seen = new Set();
    for (const payload of slot.plugins.values()) for (const n of Object.keys(payload.statuses || {})) seen.add(n);
    names = [...seen];
  }
  const nodes = names.map((name) => ({
    name,
    feasible: summary ? feasible.has(name) : null,
    cells: Object.fromEntries(plugins.map((p) => [p, slot.plugins.get(p).statuses?.[name] || null])),
  }));
  return { plugins, nodes, summary };
}

/** Scores as {plugins, nodes, value(plugin, node, kind), weights, totals, chosen, ties}. kind: raw|normalized|weighted */
export function scoreTable(cycle) {
  const score = point(cycle, POINT.SCORE);
  const normalize = point(cycle, POINT.NORMALIZE_SCORE);
  const total = point(cycle, POINT.TOTAL).summary;
  const plugins = [...new Set([...score.plugins.keys(), ...normalize.plugins.keys()])];
  const nodeSet = new Set();
  for (const payload of score.plugins.values()) for (const n of Object.keys(payload.raw || {})) nodeSet.add(n);
  for (const n of Object.keys(total?.totalScores || {})) nodeSet.add(n);
  const feasibleOrder = point(cycle, POINT.FILTER).summary?.feasibleNodes;
  const nodes = feasibleOrder ? feasibleOrder.filter((n) => nodeSet.has(n)) : [...nodeSet];
  const value = (plugin, node, kind) => {
    if (kind === "raw") return score.plugins.get(plugin)?.raw?.[node] ?? null;
    const payload = normalize.plugins.get(plugin);
    if (!payload) return kind === "normalized" ? score.plugins.get(plugin)?.raw?.[node] ?? null : null;
    return payload[kind]?.[node] ?? null;
  };
  const weights = Object.fromEntries(plugins.map((p) => [p, normalize.plugins.get(p)?.weight ?? null]));
  return {
    plugins,
    nodes,
    value,
    weights,
    totals: total?.totalScores || {},
    chosen: total?.nodeName ?? null,
    ties: total?.ties || [],
    error: total?.error || null,
  };
}

export function preFilterState(cycle, plugin) {
  return point(cycle, POINT.PRE_FILTER).plugins.get(plugin)?.state ?? null;
}

export function preScoreState(cycle, plugin) {
  return point(cycle, POINT.PRE_SCORE).plugins.get(plugin)?.state ?? null;
}

/** Nodes on which a plugin's Filter passed (evaluated and not rejected by it). */
export function passedFilter(cycle, plugin) {
  const { nodes } = filterMatrix(cycle);
  return new Set(nodes.filter((n) => !n.cells[plugin]).map((n) => n.name));
}

export function statusText(status) {
  if (!status) return "Success";
  const reasons = status.reasons?.length ? `: ${status.reasons.join(", ")}` : "";
  return `${status.code}${reasons}`;
}
