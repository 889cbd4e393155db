// Large runs: fetch one cycle's events on demand instead of the whole stream (a 500-node,
// 500-pod run is ~90 MB of events). Events are stored in seq order and a cycle's events are
// contiguous, so the first seq of a cycle is found by binary search with one-event probes.

import { api } from "./api.js";

const PAGE = 500;

export class CycleLoader {
  constructor(runId) {
    this.runId = runId;
    this.cycleAt = new Map(); // seq -> cycle (probe cache)
  }

  async cycleOf(seq) {
    if (!this.cycleAt.has(seq)) {
      const page = await api.events(this.runId, seq, 1);
      this.cycleAt.set(seq, page.events.length ? page.events[0].cycle : Infinity);
    }
    return this.cycleAt.get(seq);
  }

  async firstSeq(cycle, eventCount) {
    let lo = 0;
    let hi = eventCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((await this.cycleOf(mid)) < cycle) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Every stored event of one cycle, in seq order. */
  async load(cycle, eventCount) {
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
