// A fleet check: /upgrades/fleet/<id>/. One row per scenario, filling in as its comparison finishes on
// the long-work workers: the scenario, its release and where the dump says it, pods that land elsewhere,
// stay Pending or are scored differently, and the release changes behind them (each with the engine's
// sentence). /ws/fleet/<id>/ says when a row changed (the page then reads GET /api/upgrades/fleet/<id>);
// the page is its URL, so a reload finds it as it stands. Every number is the server's.

import { api } from "../api.js";
import { $, h, mount, notify, pageData } from "../dom.js";
import { checked } from "../schemacheck.js";

const fleetId = Number(pageData().fleetId);
const root = $("#fleet-root");
const FINISHED = new Set(["succeeded", "failed", "cancelled", "skipped"]);
const POLL_MS = 1500;

function place(row) {
  if (row.status === "queued") return "queued";
  if (row.status === "running") return row.progress.total ? `running · ${row.progress.done} of ${row.progress.total} runs` : "running";
  return row.status;
}

function releaseCell(row) {
  if (!row.release) return h("span.muted", row.fromRelease || "found when it starts");
  const where = row.release.source === "default" ? "the dump does not say: the default" : `${row.release.source}${row.release.where ? `: ${row.release.where}` : ""}`;
  return h("span", { title: row.release.sentence }, h("strong", row.release.version), h("div.small.muted", where));
}

function countCell(counts, key) {
  if (!counts) return h("span.muted", "—");
  return String(counts[key]);
}

function causesCell(row) {
  if (row.status !== "succeeded") return row.error ? h("span.small", row.error) : h("span.muted", "—");
  if (!row.causes.length) return h("span.muted", row.summary || "nothing changes");
  return h("ul.plain.causes", row.causes.map((cause) => h("li", h("code.cause-name", cause.name),
    h("span.small.cause-sentence", ` — ${cause.sentence}`))));
}

function draw(fleet) {
  $("#fleet-title").textContent = `Upgrade check to ${fleet.toRelease}`;
  document.title = `Upgrade check to ${fleet.toRelease} · SchedLab`;
  root.dataset.finished = String(fleet.finished);
  const cancel = fleet.finished ? null : h("button#fleet-cancel", { type: "button", onclick: async () => {
    cancel.disabled = true;
    try {
      draw(await api.cancelFleet(fleetId));
    } catch (error) {
      notify(error.message, "error");
    }
  } }, "Cancel");
  mount($("#fleet-actions"), cancel);
  const gates = fleet.featureGates ? Object.entries(fleet.featureGates) : [];
  mount(root,
    h("p.muted", `Each scenario's latest version, from the release it is replayed as to ${fleet.toRelease}`,
      gates.length ? ` (--feature-gates=${gates.map(([name, on]) => `${name}=${on}`).join(",")})` : "", "."),
    h("div.scroll-x", h("table.data#fleet-table",
      h("thead", h("tr", ["scenario", "its release", "land elsewhere", "more Pending", "rescored", "because of", "status"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", fleet.rows.map((row) => {
        const counts = row.counts ? checked(row.counts, "UpgradeCounts") : null;
        return h("tr", { dataset: { upgrade: String(row.upgrade), scenario: String(row.scenario), status: row.status } },
          h("th", { scope: "row" }, h("a", { href: `/scenarios/${row.scenario}/` }, row.scenarioName), h("span.muted", ` v${row.version}`)),
          h("td.fleet-release", releaseCell(row)),
          h("td.num.fleet-elsewhere", countCell(counts, "elsewhere")),
          h("td.num.fleet-pending", countCell(counts, "morePending")),
          h("td.num.fleet-rescored", countCell(counts, "rescored")),
          h("td.fleet-causes", causesCell(row)),
          h("td.fleet-status", h("a", { href: `/upgrades/${row.upgrade}/` }, place(row))));
      })))));
}

/** Redraws when the server says a row changed (its socket), or every POLL_MS without one, until all finished. */
function follow() {
  let ended = false;
  let asking = false;
  const refresh = async () => {
    if (asking) return;
    asking = true;
    try {
      const fleet = await api.fleet(fleetId);
      draw(fleet);
      if (fleet.finished) ended = true;
    } catch (error) {
      notify(error.message, "error");
    } finally {
      asking = false;
    }
  };
  const poll = async () => {
    while (!ended) {
      await refresh();
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/ws/fleet/${fleetId}/`);
  } catch {
    poll();
    return;
  }
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "progress" || message.type === "end") refresh();
    if (message.type === "end") ended = true;
  });
  socket.addEventListener("close", () => { if (!ended) poll(); });
}

async function start() {
  try {
    const fleet = await api.fleet(fleetId);
    draw(fleet);
    if (!fleet.finished) follow();
  } catch (error) {
    mount(root, h("p.notice.notice-error", { role: "alert" }, error.message));
  }
}

start();
