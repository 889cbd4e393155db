// A run's event stream: websocket /ws/runs/{id}/?since=N, falling back to polling the events API.
// Delivery is by seq cursor, so reconnecting or switching transport never duplicates or skips.
// An event too large for one websocket message arrives as {"payload": null, "payloadOmitted": true};
// it is fetched from /api/runs/{id}/events?since=seq&limit=1 before anything after it is handed on.

import { api } from "./api.js";

const POLL_MS = 700;
const MAX_SOCKET_FAILURES = 2;
const FETCH_ATTEMPTS = 3;

/** Replace every payload-omitted event by the stored one (same seq), keeping the order. */
export async function completeEvents(runId, events, fetchOne = (seq) => api.events(runId, seq, 1)) {
  const omitted = events.filter((e) => e.payloadOmitted);
  if (!omitted.length) return events;
  const full = new Map();
  await Promise.all(omitted.map(async (e) => {
    let lastError = null;
    for (let attempt = 0; attempt < FETCH_ATTEMPTS; attempt += 1) {
      try {
        const page = await fetchOne(e.seq);
        const found = (page.events || []).find((x) => x.seq === e.seq);
        if (!found) throw new Error(`event ${e.seq} is not stored yet`);
        full.set(e.seq, found);
        return;
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 300 * (attempt + 1)));
      }
    }
    throw lastError;
  }));
  return events.map((e) => full.get(e.seq) || e);
}

/**
 * streamRun(runId, {onEvents(events), onEnd(status)}, {token}) -> {close()}
 * onEvents receives batches in seq order, every event with its payload; onEnd fires once, after
 * the last batch, with the final status.
 */
export function streamRun(runId, handlers, { token = "" } = {}) {
  const state = { cursor: 0, closed: false, ended: false, failures: 0, socket: null, timer: null, polling: false };
  // Messages are handled one after another: a batch waiting for an omitted payload holds back
  // every later batch (and the end), so the order is the stream's.
  let chain = Promise.resolve();
  const enqueue = (work) => {
    chain = chain.then(work).catch((error) => handlers.onError?.(error));
    return chain;
  };

  const deliver = (events) => {
    const fresh = events.filter((e) => e.seq >= state.cursor);
    if (!fresh.length) return;
    if (fresh[0].seq > state.cursor) return; // a gap (after a failed fetch): the resumed stream refills it
    state.cursor = fresh[fresh.length - 1].seq + 1;
    handlers.onEvents(fresh);
  };

  const receive = (events) => enqueue(async () => {
    if (state.closed) return;
    let complete;
    try {
      complete = await completeEvents(runId, events);
    } catch (error) {
      // Hand on what precedes the missing event, then resume from it by polling the API.
      const first = events.findIndex((e) => e.payloadOmitted);
      deliver(events.slice(0, first));
      handlers.onError?.(new Error(`could not fetch event ${events[first].seq}: ${error.message}`));
      switchToPolling();
      return;
    }
    deliver(complete);
  });

  const finish = (status) => {
    if (state.ended) return;
    state.ended = true;
    handlers.onEnd(status);
  };

  const openSocket = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams({ since: String(state.cursor) });
    if (token) params.set("token", token);
    const socket = new WebSocket(`${scheme}://${location.host}/ws/runs/${runId}/?${params}`);
    state.socket = socket;
    socket.addEventListener("message", (message) => {
      if (state.polling) return;
      const data = JSON.parse(message.data);
      if (data.type === "events") receive(data.events);
      else if (data.type === "end") {
        state.endSeen = true; // the server closes next: no reconnect
        enqueue(() => (state.polling ? null : finish(data.status)));
      }
    });
    socket.addEventListener("close", () => {
      if (state.socket === socket) state.socket = null;
      if (state.closed || state.ended || state.endSeen || state.polling) return;
      state.failures += 1;
      if (state.failures > MAX_SOCKET_FAILURES) switchToPolling();
      else setTimeout(openSocket, 500 * state.failures);
    });
  };

  const switchToPolling = () => {
    if (state.polling) return;
    state.polling = true;
    const socket = state.socket;
    state.socket = null;
    socket?.close();
    enqueue(() => poll());
  };

  const poll = async () => {
    if (state.closed || state.ended) return;
    try {
      const page = await api.events(runId, state.cursor);
      deliver(await completeEvents(runId, page.events));
      if (page.done) {
        const run = await api.run(runId);
        finish(run.status);
        return;
      }
      state.timer = setTimeout(poll, page.events.length ? 0 : POLL_MS);
    } catch (error) {
      handlers.onError?.(error);
      state.timer = setTimeout(poll, POLL_MS * 3);
    }
  };

  if ("WebSocket" in window) openSocket();
  else switchToPolling();

  return {
    close() {
      state.closed = true;
      clearTimeout(state.timer);
      state.socket?.close();
    },
  };
}
