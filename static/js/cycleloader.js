// Large runs: fetch one cycle's events on demand instead of the whole stream (a 5000-node,
// 1000-pod run is hundreds of MB of events as JSON).
//
// The server stores each cycle as one columnar segment (a NumPy .npz, ~7 KB at 5000 nodes) and the
// names its columns index once per run: GET /api/runs/{id}/names, then /segment?cycle=N, decoded
// here (segments.js) into the same events the JSON API gives. GET /api/runs/{id}/cycles lists every
// finished cycle's pod, outcome and seq range. Against an older server: GET /events?cycle=N (JSON),
// and without that the plain cursor API: events are stored in seq order and a cycle's events are
// contiguous, so the first seq of a cycle is found by binary search with one-event probes, then
// pages are read until the cycle ends.

import { api } from "./api.js";
import { decodeSegment, runNames } from "./segments.js";

const PAGE = 500;

export class CycleLoader {
  constructor(runId) {
    this.runId = runId;
    this.indexed = null; // null: not asked yet; true: /cycles and ?cycle= exist; false: fallback
    this.entries = new Map(); // cycle -> {cycle, pod, nodeName, firstSeq, endSeq, failedSchedulingMessage?}
    this.cycleAt = new Map(); // fallback: seq -> cycle (probe cache)
    this.binary = typeof DecompressionStream === "function"; // false: JSON answers only
    this.namesAnswer = null; // promise of GET /names ({nodes: [{name, labels}], pods}), asked once
    this.segmentRequests = new Map(); // cycle -> pending GET /segment (an ArrayBuffer)
  }

  /** The run's names (and node labels); null when the server has no /names (an older server). */
  names() {
    this.namesAnswer ||= api.runNames(this.runId).catch((error) => {
      if (error.status === 404) return null; // an older server
      this.namesAnswer = null; // a passing failure: ask again next time
      throw error;
    });
    return this.namesAnswer;
  }

  /** Ask for a cycle's segment (and the names) now; load() takes the answer when it comes. */
  prefetch(cycle) {
    if (!this.binary) return;
    this.names().catch(() => null);
    if (!this.segmentRequests.has(cycle)) {
      const request = api.segment(this.runId, cycle);
      request.catch(() => null); // load() reports the failure
      this.segmentRequests.set(cycle, request);
    }
  }

  /** A cycle's events from its stored segment; null when the server cannot answer that way. */
  async loadSegment(cycle) {
    this.prefetch(cycle); // the names and the segment side by side
    const request = this.segmentRequests.get(cycle);
    this.segmentRequests.delete(cycle); // a cycle not stored yet is asked again next time
    const answer = await this.names();
    if (!answer) {
      this.binary = false;
      return null;
    }
    let buffer;
    try {
      buffer = await request;
    } catch (error) {
      if (error.status !== 404) throw error;
      if (error.code === "not_found") return []; // the cycle is not stored yet
      this.binary = false; // no such endpoint (an older server answers without our error shape)
      return null;
    }
    this.decodingNames ||= runNames(answer);
    return (await decodeSegment(buffer, this.decodingNames)).events;
  }

  /** Refresh the cycle index; returns it (Map cycle -> entry), or null when the server has none. */
  async index() {
    if (this.indexed === false) return null;
    try {
      const list = await api.cycles(this.runId);
      this.indexed = true;
      for (const entry of list || []) this.entries.set(entry.cycle, entry);
      return this.entries;
    } catch (error) {
      if (error.status !== 404) throw error;
      this.indexed = false; // an older server: the run itself was readable a moment ago
      return null;
    }
  }

  entry(cycle) {
    return this.entries.get(cycle) || null;
  }

  /** Every stored event of one cycle, in seq order. */
  async load(cycle, eventCount) {
    if (this.binary) {
      const events = await this.loadSegment(cycle);
      if (events) return events;
    }
    // ?cycle= is tried until known to be missing (the index, fetched alongside, may still be on its way).
    if (this.indexed !== false) {
      const page = await api.cycleEvents(this.runId, cycle);
      const events = page.events || [];
      // A server that ignored ?cycle= answers the stream from seq 0: fall back for good.
      if (events.every((e) => e.cycle === cycle)) return this.complete(cycle, events, page);
      this.indexed = false;
    }
    return this.scan(cycle, eventCount);
  }

  /** The ?cycle= answer is the whole cycle; should a server ever page it, read on by cursor. */
  async complete(cycle, events, page) {
    const out = [...events];
    let next = page.next;
    let more = page.done === false && out.length > 0 && out[out.length - 1].extensionPoint !== "CycleEnd";
    while (more && Number.isInteger(next)) {
      const rest = await api.events(this.runId, next, PAGE * 4);
      const mine = rest.events.filter((e) => e.cycle === cycle);
      out.push(...mine);
      more = mine.length === rest.events.length && rest.events.length > 0 && !rest.done &&
        mine[mine.length - 1].extensionPoint !== "CycleEnd";
      next = rest.next;
    }
    return out;
  }

  // --- fallback: the cursor API only ---------------------------------------------------------

  async cycleOf(seq) {
    if (!this.cycleAt.has(seq)) {
      const page = await api.events(this.runId, seq, 1);
      this.cycleAt.set(seq, page.events.length ? page.events[0].cycle : Infinity);
    }
    return this.cycleAt.get(seq);
  }

  async firstSeq(cycle, eventCount) {
    const known = this.entries.get(cycle)?.firstSeq;
    if (Number.isInteger(known)) return known;
    let lo = 0;
    let hi = eventCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((await this.cycleOf(mid)) < cycle) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async scan(cycle, eventCount) {
    const out = [];
    let seq = await this.firstSeq(cycle, eventCount);
    for (;;) {
      const page = await api.events(this.runId, seq, PAGE);
      const mine = page.events.filter((e) => e.cycle === cycle);
      out.push(...mine);
      if (!page.events.length || mine.length < page.events.length || page.done) return out;
      seq = page.next;
    }
  }
}

/**
 * The picker's text for a cycle: from its loaded events, else from the server's cycle index.
 * People count from 1 everywhere (cycle 1, attempt 1, as the CLI prints); `?cycle=` and the JSON
 * keep the 0-based index.
 */
export function cycleLabel(index, cycle, entry, outcomeOf) {
  return shownCycleLabel(index + 1, cycle, entry, outcomeOf);
}

function shownCycleLabel(index, cycle, entry, outcomeOf) {
  if (cycle) {
    const result = outcomeOf(cycle);
    const tail = !result.done ? "…" : result.nodeName ? `→ ${result.nodeName}` : "✗ unschedulable";
    return `cycle ${index}: ${cycle.pod} ${tail}`;
  }
  if (entry) {
    const tail = entry.nodeName ? `→ ${entry.nodeName}` : entry.endSeq === null || entry.endSeq === undefined ? "…" : "✗ unschedulable";
    return `cycle ${index}: ${entry.pod} ${tail}`;
  }
  return `cycle ${index}`;
}
