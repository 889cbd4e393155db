// A run's event stream: websocket /ws/runs/{id}/?since=N, falling back to polling the events API.
// Delivery is by seq cursor, so reconnecting or switching transport never duplicates or skips.

import { api } from "./api.js";

const POLL_MS = 700;
const MAX_SOCKET_FAILURES = 2;

/**
 * streamRun(runId, {onEvents(events), onEnd(status)}, {token}) -> {close()}
 * onEvents receives batches in seq order; onEnd fires once with the final status.
 */
export function streamRun(runId, handlers, { token = "" } = {}) {
  const state = { cursor: 0, closed: false, ended: false, failures: 0, socket: null, timer: null };

  const deliver = (events) => {
    const fresh = events.filter((e) => e.seq >= state.cursor);
    if (!fresh.length) return;
    state.cursor = fresh[fresh.length - 1].seq + 1;
    handlers.onEvents(fresh);
  };

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
      const data = JSON.parse(message.data);
      if (data.type === "events") deliver(data.events);
      else if (data.type === "end") finish(data.status);
    });
    socket.addEventListener("close", () => {
      state.socket = null;
      if (state.closed || state.ended) return;
      state.failures += 1;
      if (state.failures > MAX_SOCKET_FAILURES) poll();
      else setTimeout(openSocket, 500 * state.failures);
    });
  };

  const poll = async () => {
    if (state.closed || state.ended) return;
    try {
      const page = await api.events(runId, state.cursor);
      deliver(page.events);
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
  else poll();

  return {
    close() {
      state.closed = true;
      clearTimeout(state.timer);
      state.socket?.close();
    },
  };
}
