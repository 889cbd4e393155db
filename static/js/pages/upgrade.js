// What changes if we upgrade: /upgrades/<id>/[?token=]. Follows the comparison while the long-work
// worker runs it (/ws/upgrades/<id>/: runs to the end done of the total, as compare_releases reports
// them; polling the API when the socket cannot be used), offers Cancel, then draws the engine's answer
// (upgradeview.js), opens either release as a normal run, and makes a read-only share link.

import { api, useShareToken } from "../api.js";
import { $, h, mount, notify, pageData } from "../dom.js";
import { releaseLine } from "../releases.js";
import { upgradeAnswer } from "../upgradeview.js";

const upgradeId = Number(pageData().upgradeId);
const token = new URLSearchParams(location.search).get("token") || ""; // opened from its share link: read-only
useShareToken(token);
const FINISHED = new Set(["succeeded", "failed", "cancelled", "skipped"]);
const POLL_MS = 1000;
const root = $("#upgrade-root");

function progressText(status, done, total, what) {
  if (status === "queued") return "Queued: waiting for a long-work worker…";
  if (status === "running" && !total) return "Running: the first release's run to the end…";
  if (status === "running") return `Running: ${done} of ${total} runs to the end done (last: ${what})`;
  return `${status}`;
}

function header(upgrade) {
  const title = `${upgrade.scenarioName} v${upgrade.version}: ${upgrade.fromRelease || "its own release"} → ${upgrade.toRelease}`;
  $("#upgrade-title").textContent = `What changes if we upgrade? ${title}`;
  document.title = `Upgrade ${title} · SchedLab`;
  const gates = upgrade.featureGates ? Object.entries(upgrade.featureGates) : [];
  return [
    token ? h("p.readonly-banner", "Shared upgrade comparison (read-only).") : null,
    releaseLine(upgrade.release, { id: "upgrade-from-release", lead: "From" }),
    h("p.release-line#upgrade-to-release", h("span.release-tag", "To"), " ", h("strong.release-version", upgrade.toRelease),
      gates.length ? h("span.muted", ` · --feature-gates=${gates.map(([name, on]) => `${name}=${on}`).join(",")} on both sides`) : null),
  ];
}

/** Follows the comparison until it finishes; resolves with its final state. */
function follow(upgrade, shown) {
  return new Promise((resolve) => {
    let ended = false;
    const finish = async () => {
      if (ended) return;
      ended = true;
      resolve(await api.upgrade(upgradeId));
    };
    const poll = async () => {
      while (!ended) {
        const state = await api.upgrade(upgradeId).catch(() => null);
        if (state) {
          shown(state.status, state.progress.done, state.progress.total, state.progress.what);
          if (FINISHED.has(state.status)) { finish(); return; }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}/ws/upgrades/${upgradeId}/${token ? `?token=${encodeURIComponent(token)}` : ""}`);
    } catch {
      poll();
      return;
    }
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "progress") shown(message.status, message.done, message.total, message.what);
      if (message.type === "end") { socket.close(); finish(); }
    });
    socket.addEventListener("close", () => { if (!ended) poll(); });
  });
}

function running(upgrade) {
  const line = h("p.upgrade-progress#upgrade-progress", { role: "status" });
  const cancel = token ? null : h("button#upgrade-cancel", { type: "button", onclick: async () => {
    cancel.disabled = true;
    try {
      await api.cancelUpgrade(upgradeId);
    } catch (error) {
      notify(error.message, "error");
      cancel.disabled = false;
    }
  } }, "Cancel");
  mount(root, header(upgrade), h("div.run-status", line, cancel));
  const shown = (status, done, total, what) => {
    line.textContent = progressText(status, done, total, what);
    root.dataset.status = status;
  };
  shown(upgrade.status, upgrade.progress.done, upgrade.progress.total, upgrade.progress.what);
  return shown;
}

/** "Open v1.36.3 as a run": the run the server made of that side (made once), or one made now. */
function sideButton(upgrade, side, release) {
  const existing = side === "old" ? upgrade.oldRun : upgrade.newRun;
  if (token) return existing ? h("a.button", { href: `/runs/${existing}/?token=${encodeURIComponent(token)}`, id: `upgrade-open-${side}` }, `Open ${release} as a run`) : null;
  return h(`button#upgrade-open-${side}`, { type: "button", onclick: async () => {
    try {
      const run = await api.openUpgradeSide(upgradeId, side);
      location.href = `/runs/${run.id}/`;
    } catch (error) {
      notify(error.message, "error");
    }
  } }, `Open ${release} as a run`);
}

function shareButton(upgrade) {
  if (token) return null;
  const out = h("input.share-url#upgrade-share-url", { type: "text", readonly: true, hidden: true, "aria-label": "share link" });
  const button = h("button#upgrade-share", { type: "button", onclick: async () => {
    try {
      const link = await api.share(upgrade.scenario, { upgrade: upgrade.id });
      out.value = link.url;
      out.hidden = false;
      out.select();
    } catch (error) {
      notify(`Could not make a link: ${error.message}`, "error");
    }
  } }, "Share this comparison");
  return h("span.share", button, " ", out);
}

function finished(upgrade) {
  root.dataset.status = upgrade.status;
  if (upgrade.status !== "succeeded") {
    const why = upgrade.status === "skipped" ? upgrade.error : `The comparison ${upgrade.status}${upgrade.error ? `: ${upgrade.error}` : "."}`;
    mount(root, header(upgrade), h(`p.notice.${upgrade.status === "skipped" ? "notice-info" : "notice-error"}.upgrade-error`, why));
    return;
  }
  const download = h("a.button#upgrade-json", {
    href: URL.createObjectURL(new Blob([JSON.stringify(upgrade.answer, null, 1)], { type: "application/json" })),
    download: `upgrade-${upgrade.id}.json`,
  }, "Download JSON");
  mount($("#upgrade-actions"),
    sideButton(upgrade, "old", upgrade.answer.old),
    sideButton(upgrade, "new", upgrade.answer.new),
    download,
    shareButton(upgrade),
    token ? null : h("a.button", { href: `/scenarios/${upgrade.scenario}/` }, "Edit scenario"));
  mount(root, header(upgrade), upgradeAnswer(upgrade));
}

async function start() {
  let upgrade;
  try {
    upgrade = await api.upgrade(upgradeId);
  } catch (error) {
    mount(root, h("p.notice.notice-error", { role: "alert" }, error.message));
    return;
  }
  if (!FINISHED.has(upgrade.status)) upgrade = await follow(upgrade, running(upgrade));
  finished(upgrade);
}

start().catch((error) => notify(error.message, "error"));
